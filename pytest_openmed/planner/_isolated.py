"""Qualification in a child process: a planner's crash or exit is its own planner error.

``--openmed-isolate`` (ini ``openmed_isolate``) qualifies each planner gate
without a ``dialect`` (each trial) through the planner command line in a
fresh interpreter.  The child inherits the environment and
this process's ``sys.path`` (so the reference resolves exactly as it would
here) and writes its reports into a private temporary directory that is
removed afterwards.  Whatever the child does — ``os._exit``, a segfault, an
exit before the reports are written — the gate gets verdicts: every scenario
(and every injection style) a planner error with cause ``exited``.  This is
crash isolation, not a sandbox: the child runs with your permissions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from pytest_openmed.planner.declaration import INJECTION_STYLES
from pytest_openmed.planner.injection import InjectionReport, StyleReport
from pytest_openmed.planner.report import (
    PlannerCounts,
    PlannerQualificationReport,
    ScenarioReport,
)
from pytest_openmed.planner.scenarios import HOSTILE_SCENARIO, SCENARIO_IDS

#: The child's codes for a reference it could not load (docs/planner.md, "Command line").
_UNLOADABLE = ("E002", "E003")


def _exited(hostile: bool) -> PlannerCounts:
    return PlannerCounts(scenarios=1, hostile_scenarios=int(hostile), planner_errors=1)


def exited_report() -> PlannerQualificationReport:
    """The report of a planner whose process ended before qualification finished."""
    return PlannerQualificationReport(
        tuple(
            ScenarioReport(item, _exited(item == HOSTILE_SCENARIO), "exited")
            for item in SCENARIO_IDS
        )
    )


def _exited_injection() -> InjectionReport:
    return InjectionReport(
        tuple(StyleReport(style, _exited(True), "exited") for style in INJECTION_STYLES)
    )


def _read_injection(text: str) -> InjectionReport:
    import json

    data = json.loads(text)
    return InjectionReport(
        tuple(
            StyleReport(
                item["style"],
                PlannerCounts.from_dict(item["counts"]),
                item.get("planner_error_cause"),
            )
            for item in data["styles"]
        )
    )


def qualify_isolated(
    reference: str,
    unloadable: Callable[[], Exception],
    *,
    injection_suite: bool = False,
) -> tuple[PlannerQualificationReport, InjectionReport | None]:
    """Qualify ``reference`` in a child interpreter; its crash or exit is ``exited``.

    ``unloadable()`` is raised when the child could not load the reference.
    """
    with tempfile.TemporaryDirectory(prefix="openmed-isolated-") as private:
        output, injection_output = Path(private, "report.json"), Path(private, "injection.json")
        command = [sys.executable, "-m", "pytest_openmed.planner", "--planner", reference]
        command += ["--output", str(output)]
        if injection_suite:
            command += ["--injection-report", str(injection_output)]
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(entry for entry in sys.path if entry)
        child = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=environment,
            check=False,
        )
        code = child.stderr.decode("ascii", "replace")[len("openmed-planner: ") :][:4]
        if child.returncode == 130 and code == "E006":
            raise KeyboardInterrupt
        if child.returncode == 2 and code in _UNLOADABLE:
            raise unloadable()
        if child.returncode not in (0, 1) or not output.is_file():
            return exited_report(), _exited_injection() if injection_suite else None
        try:
            report = PlannerQualificationReport.from_json(output.read_text(encoding="utf-8"))
            injection = (
                _read_injection(injection_output.read_text(encoding="utf-8"))
                if injection_suite
                else None
            )
        except (OSError, ValueError, KeyError, TypeError):
            return exited_report(), _exited_injection() if injection_suite else None
    return report, injection
