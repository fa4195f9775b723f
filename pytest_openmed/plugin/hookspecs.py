"""Hook specifications that pytest-openmed offers to downstream plugins.

PYTEST_DONT_REWRITE

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

__all__ = ["pytest_openmed_gate_result", "pytest_openmed_report"]

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_openmed_gate_result(
    config: pytest.Config, item: pytest.Item, result: GateResult
) -> None:
    """Called once per gate verdict, in the process that ran the item.

    ``item`` is a gate item collected from a gate file or a planner option, or
    an ordinary test whose ``claim_scorer`` / ``qualify_planner`` fixture
    produced a verdict.  ``result`` is immutable; the item's outcome is decided
    by the plugin (only ``passed`` passes) and cannot be changed here.  Under
    pytest-xdist this runs on the worker; use ``pytest_openmed_report`` to see
    every verdict in one place.
    """


@hookspec
def pytest_openmed_report(config: pytest.Config, report: dict[str, Any]) -> None:
    """Called once on the controller just before the JSON report is written.

    ``report`` is the document that will be written to ``--openmed-report``
    (a mutable ``dict``); implementations may add keys under ``"extensions"``.
    The amended document must still serialise as strict JSON and validate
    against the shipped schema; otherwise nothing is written and the run exits
    4 (``OPENMED-REPORT-HOOK``).  Not called when no report path is configured.
    """
