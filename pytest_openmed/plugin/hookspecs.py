"""Hook specifications that pytest-openmed offers to downstream plugins.

Registered with ``pytest_addhooks``; implement them in a ``conftest.py`` or a
plugin of your own to forward gate verdicts (dashboards, release notes) or to
amend the written report.  Both hooks see only value-free data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from pytest_openmed.contract import GateResult

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_openmed_gate_result(
    config: pytest.Config, item: pytest.Item, result: GateResult
) -> None:
    """Called once per gate verdict, in the process that ran the item.

    Use it to forward verdicts (a dashboard, release notes) as they happen.
    ``result`` is immutable; the item's outcome is decided by the plugin (only
    ``passed`` passes) and cannot be changed here, and a return value is
    ignored.  Under pytest-xdist this runs on the worker that ran the item; use
    :func:`pytest_openmed_report` to see every verdict in one place.

    :param config: The pytest config object.
    :param item: The item that produced the verdict: a gate item collected from
        a gate file or a ``--openmed-planner`` option, or an ordinary test whose
        ``claim_scorer`` / ``qualify_planner`` fixture produced it.  Its
        ``nodeid`` is the only identifier to forward.
    :param result: The verdict: ``kind`` (``claims``, ``planner``, ``pack``,
        ``custom``), ``status`` (a ``GateStatus``), ``reason`` (a closed rule
        name such as ``unsupported_rate``) and ``metrics`` (names and numbers
        only).  It holds no identifier, key, path or source text.

    Example, a conftest that lists the gates that did not pass at the end of
    a serial run::

        FAILED_GATES = []


        def pytest_openmed_gate_result(config, item, result):
            if result.status.value != "passed":
                FAILED_GATES.append(f"{item.nodeid}: {result.status.value} ({result.reason})")


        def pytest_terminal_summary(terminalreporter):
            for line in FAILED_GATES:
                terminalreporter.write_line(f"release blocker: {line}")

    Use in conftest plugins: any conftest file or plugin can implement this
    hook.  It is called through ``config.hook``, so every conftest loaded by
    then sees every verdict, not only the conftests above the item.
    """


@hookspec
def pytest_openmed_report(config: pytest.Config, report: dict[str, Any]) -> None:
    """Called once on the controller just before the JSON report is written.

    Use it to add your own data to the report (a release train, a ticket).
    Not called when no ``--openmed-report`` path is configured; a return value
    is ignored.

    :param config: The pytest config object.
    :param report: The document that will be written to ``--openmed-report``,
        a mutable ``dict`` shaped as docs/report.md describes, every worker's
        verdicts included.  Add keys under ``report["extensions"]``; the
        amended document must still serialise as strict JSON (no ``NaN``,
        sets or arbitrary objects) and validate against the shipped schema,
        otherwise nothing is written and the run exits 4 with
        ``OPENMED-REPORT-HOOK``.

    Example, a conftest that records the release train and the gate kinds
    that ran::

        def pytest_openmed_report(config, report):
            kinds = sorted({gate["kind"] for gate in report["gates"]})
            report["extensions"]["release"] = {"train": "2026.12", "kinds": kinds}

    Use in conftest plugins: any conftest file or plugin can implement this
    hook; every conftest loaded during the run sees it.
    """
