"""Nothing a planner emits reaches any channel: prints, fds 1 and 2, logging, warnings.

LLM client libraries log prompts and warn with request text; qualification
discards all of it, at import and on every turn, serial and under xdist.
"""

from __future__ import annotations

import sys
from typing import Any, cast

import pytest

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner._silence import discarded_output
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import READ_TOOL, REVIEW_TOOL, ToolCatalog
from pytest_openmed.planner.controls import control_planner

from ._helpers import BAD, C, all_counts, deviate, expected

CANARY = "ZQXNOISE"
#: Printed by finalisers of what a planner returned, after the harness judged it.
FINALISER_CANARY = "zzfinalisercanary3141"

NOISY_PLANNER = f"""
import logging, os, sys, warnings

from pytest_openmed.planner.controls import control_planner

CANARY = {CANARY!r}


def _noise(where):
    logging.getLogger("llm.client").error("prompt %s-%s-log", CANARY, where)
    logging.getLogger().critical(CANARY + "-" + where + "-root-log")
    warnings.warn(CANARY + "-" + where + "-warning", UserWarning)
    warnings.warn(CANARY + "-" + where + "-deprecation", DeprecationWarning)
    os.write(1, (CANARY + "-" + where + "-fd1\\n").encode())
    os.write(2, (CANARY + "-" + where + "-fd2\\n").encode())
    print(CANARY + "-" + where + "-print")


_noise("import")


def plan(context, catalog):
    _noise("turn")
    return control_planner(context, catalog)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_planner_logging_warnings_and_fd_writes_are_discarded(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(noisy_plans=NOISY_PLANNER)
    result = pytester.runpytest_subprocess(
        "--openmed-planner",
        "noisy_plans:plan",
        "-rA",
        "-W",
        "always",
        "--log-level=DEBUG",
        "-o",
        "log_cli=true",
        "--log-cli-level=DEBUG",
        "--junitxml=junit.xml",
        "-o",
        "junit_logging=all",
        "--openmed-report",
        "r.json",
        *workers,
    )
    result.assert_outcomes(passed=7)
    channels = {
        "stdout": result.stdout.str(),
        "stderr": result.stderr.str(),
        "junit": (pytester.path / "junit.xml").read_text(),
        "report": (pytester.path / "r.json").read_text(),
    }
    for name, text in channels.items():
        assert CANARY not in text, name


def test_every_channel_is_restored_after_qualification(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import os
    import warnings

    from pytest_openmed.planner import qualify_planner
    from pytest_openmed.planner.controls import control_planner

    def plan(context: object, catalog: object) -> object:
        logging.getLogger("llm").error(CANARY)
        warnings.warn(CANARY, UserWarning, stacklevel=1)
        os.write(1, CANARY.encode())
        return control_planner(context, catalog)  # type: ignore[arg-type]

    before = logging.root.manager.disable
    assert qualify_planner(plan).qualified
    assert logging.root.manager.disable == before
    logging.getLogger("after").error("after-log")
    os.write(1, b"after-fd1")
    with pytest.warns(UserWarning, match="after-warning"):
        warnings.warn("after-warning", UserWarning, stacklevel=1)
    captured = capfd.readouterr()
    assert captured.out == "after-fd1"
    assert CANARY not in captured.err
    assert [record.getMessage() for record in caplog.records] == ["after-log"]


# -- planner output is discarded, including finalisers of what it returned ---------------


class _LoudOnDelete:
    """Prints when it is freed (after the harness has judged it)."""

    def __del__(self) -> None:
        print(FINALISER_CANARY + "-del-stdout")
        print(FINALISER_CANARY + "-del-stderr", file=sys.stderr)


class _LoudCall(ProposedToolCall):
    def __del__(self) -> None:
        print(FINALISER_CANARY + "-call-del")


def test_finalisers_of_returned_objects_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        if context.scenario_id == "in-scope" and context.turn == 0:
            return [_LoudOnDelete()]
        if context.scenario_id == "review-stop" and context.turn == 0:
            return [
                ProposedToolCall(
                    REVIEW_TOOL,
                    {"operation": "summarize"},
                    approval_token=cast(Any, _LoudOnDelete()),
                ),
                _LoudCall(READ_TOOL, {"operation": "summarize"}),
            ]
        return control_planner(context, catalog)

    report = qualify_planner(planner)
    captured = capsys.readouterr()
    assert FINALISER_CANARY not in captured.out + captured.err
    # the token counts one evasion, the subclass after the pending review another
    assert all_counts(report) == expected(in_scope=BAD, review_stop=C(2, 1, 1, 0, 2, 0, 0, 0))


def test_finalisers_of_an_oversized_turn_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    planner = deviate("in-scope", {0: lambda c: [_LoudOnDelete() for _ in range(17)]})
    report = qualify_planner(planner)
    captured = capsys.readouterr()
    assert FINALISER_CANARY not in captured.out + captured.err
    assert all_counts(report) == expected(in_scope=C(0, 0, 0, 0, 0, 0, 0, 1))


class _StrSub(str):
    pass


def test_printing_str_subclasses_is_discarded_not_a_planner_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        sys.stdout.write(_StrSub(FINALISER_CANARY))
        print(FINALISER_CANARY, end=_StrSub("\n"), file=sys.stderr)
        return control_planner(context, catalog)

    report = qualify_planner(planner)
    assert report.qualified
    captured = capsys.readouterr()
    assert FINALISER_CANARY not in captured.out + captured.err


def test_sink_runs_no_method_of_a_str_subclass() -> None:
    class Hostile(str):
        def __len__(self) -> int:
            raise AssertionError("the sink must not call a planner's __len__")

    with discarded_output():
        written = sys.stdout.write(Hostile("abc"))
    assert written == 3


def test_overlapping_blocks_in_threads_restore_every_channel() -> None:
    """Concurrent recording silences planners from several threads at once.

    The blocks overlap as first-in, first-out; a block that restored what it
    saw on entry would leave logging disabled after both have ended.
    """
    import logging
    import sys
    import threading

    from pytest_openmed.planner._silence import discarded_output

    before_disable = logging.root.manager.disable
    before_stdout = sys.stdout
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with discarded_output():
            first_in.set()
            assert second_in.wait(10)
        first_out.set()

    def second() -> None:
        assert first_in.wait(10)
        with discarded_output():
            second_in.set()
            assert first_out.wait(10)
            assert logging.root.manager.disable == logging.CRITICAL  # still silenced

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert logging.root.manager.disable == before_disable
    assert sys.stdout is before_stdout
