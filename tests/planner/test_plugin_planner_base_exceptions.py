"""A planner cannot skip, xfail or unwind its own gate: any ``BaseException`` is a planner error.

Only ``KeyboardInterrupt`` ends the run.  A planner (or its module, at import)
that calls ``pytest.skip``/``pytest.xfail`` or raises ``GeneratorExit`` or its
own ``BaseException`` subclass would otherwise turn the gate's items into
skips beside a green run, or print its message and file through pytest's frames.
"""

from __future__ import annotations

import pytest

from tests.plugin._helpers import WORKERS, validate_report

from ._helpers import planner_project

CANARY = "QQBASECANARY"

PLANS = f"""
import pytest


class Unwinds(BaseException):
    pass


def skips(context, catalog):
    pytest.skip("{CANARY} skipped")


def xfails(context, catalog):
    pytest.xfail("{CANARY} xfailed")


def closes(context, catalog):
    raise GeneratorExit("{CANARY} closed")


def unwinds(context, catalog):
    raise Unwinds("{CANARY} unwound")
"""


@WORKERS
@pytest.mark.parametrize("attribute", ["skips", "xfails", "closes", "unwinds"])
def test_a_planner_raising_a_base_exception_fails_every_item_with_its_cause(
    pytester: pytest.Pytester, workers: list[str], attribute: str
) -> None:
    planner_project(pytester, PLANS, attribute)
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = pytester.runpytest_subprocess(*workers, "--openmed-report=r.json", "-rA")
    result.assert_outcomes(failed=7, passed=1)
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output
    assert "plans.py" not in output
    assert "planner_error_cause=raised_exception" in output
    report = validate_report(pytester.path / "r.json")
    assert report["summary"]["gates"] == 7
    assert {gate["metrics"]["planner_error_cause"] for gate in report["gates"]} == {
        "raised_exception"
    }


@WORKERS
def test_a_planner_module_that_skips_itself_is_an_import_error_not_a_skip(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    source = (
        "import pytest\n"
        f'pytest.skip("{CANARY} module skipped", allow_module_level=True)\n'
        "def plan(context, catalog):\n    return []\n"
    )
    planner_project(pytester, source, "plan")
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = pytester.runpytest_subprocess(*workers, "-rA")
    # Serial: the collection error interrupts the run (2); xdist: the run fails (1).
    assert result.ret in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED)
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 1 and "skipped" not in outcomes
    result.stdout.fnmatch_lines(["*OPENMED-PLANNER-IMPORT-RAISED*"])
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output
