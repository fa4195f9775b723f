"""Nothing a planner emits reaches any channel: prints, fds 1 and 2, logging, warnings.

LLM client libraries log prompts and warn with request text; qualification
discards all of it, at import and on every turn, serial and under xdist.
"""

from __future__ import annotations

import pytest

CANARY = "ZQXNOISE"

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
