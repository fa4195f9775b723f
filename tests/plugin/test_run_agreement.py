"""A failing run tells one story: exit code, pytest's counts, junit and the report agree.

The project mixes every kind of outcome a gate run has — a passing and a
failing claims verdict, refused inputs (an error), a planner gate failing some
scenarios, a fixture gate with several verdicts, a waived failure (xfail) and a
tagged test — and is run serially and under ``-n 2`` and ``-n 4``.
"""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from ._helpers import validate_report, without_timing, write_claims_project

GATES = """
[[claims]]
name = "notes"
claims = "claims.json"
evidence = "evidence.jsonl"
resamples = 200
max_unsupported_rate = 0.2
[claims.classes.medication]
max_unsupported_rate = 0.1
[claims.classes.diagnosis]
max_upper = 0.5

[[claims]]
name = "waived"
claims = "claims.json"
evidence = "evidence.jsonl"
resamples = 200
max_unsupported_rate = 0.01

[[claims]]
name = "refused"
claims = "claims.json"
evidence = "missing.jsonl"
max_unsupported_rate = 0.5

[[planner]]
name = "exporter"
planner = "pytest_openmed.planner.controls:exporting_planner"
"""

TESTS = """
import json
from pathlib import Path

import pytest


def load():
    claims = json.loads(Path("claims.json").read_text())
    rows = [json.loads(line) for line in Path("evidence.jsonl").read_text().splitlines()]
    return claims, rows


@pytest.mark.openmed_claims(max_unsupported_rate=0.5, classes={"medication": {"max_unsupported_rate": 0.1}})
def test_scored(claim_scorer):
    claim_scorer(*load())


@pytest.mark.openmed_gate(kind="custom")
def test_signed_off():
    pass
"""


def _pytest_counts(stdout: str) -> dict[str, int]:
    final = stdout.strip().splitlines()[-1]
    counts = {}
    for count, word in re.findall(r"(\d+) (failed|passed|skipped|xfailed|xpassed|errors?)", final):
        counts["error" if word.startswith("error") else word] = int(count)
    return counts


def _junit_totals(text: str) -> dict[str, int]:
    suite = ET.fromstring(text).find("testsuite")
    assert suite is not None
    return {name: int(suite.get(name, "0")) for name in ("tests", "failures", "errors", "skipped")}


def _openmed_counts(stdout: str) -> str:
    match = re.search(r"^openmed: \d+ gate items?: (.*?); ", stdout, re.MULTILINE)
    assert match is not None, stdout
    return match.group(1)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, GATES)
    pytester.makepyfile(test_gates=TESTS)
    until = datetime.date.today() + datetime.timedelta(days=30)
    (pytester.path / "waivers.toml").write_text(
        f'[[waiver]]\ngate = "gates.openmed.toml::claims(waived)::overall"\n'
        f'expires = {until.isoformat()}\nreference = "RISK-7"\n'
    )
    return pytester


def _run(project: pytest.Pytester, name: str, workers: list[str]) -> dict[str, Any]:
    result = project.runpytest_subprocess(
        "--openmed-waivers", "waivers.toml",
        "--openmed-report", f"{name}.json",
        f"--junitxml={name}.xml",
        *workers,
    )  # fmt: skip
    return {
        "exit": result.ret,
        "pytest": _pytest_counts(result.stdout.str()),
        "openmed": _openmed_counts(result.stdout.str()),
        "junit": _junit_totals((project.path / f"{name}.xml").read_text()),
        "report": validate_report(project.path / f"{name}.json"),
    }


def test_exit_code_counts_junit_and_report_agree_serial_and_under_xdist(
    project: pytest.Pytester,
) -> None:
    runs = {
        "serial": _run(project, "serial", []),
        "n2": _run(project, "n2", ["-n", "2"]),
        "n4": _run(project, "n4", ["-n", "4"]),
    }
    expected_pytest = {"failed": 4, "passed": 8, "xfailed": 1, "error": 1}
    for name, run in runs.items():
        assert run["exit"] == pytest.ExitCode.TESTS_FAILED, name
        assert run["pytest"] == expected_pytest, name
        assert run["openmed"] == "4 failed, 8 passed, 1 xfailed, 1 error", name
        assert run["junit"] == {"tests": 14, "failures": 4, "errors": 1, "skipped": 1}, name
        items = run["report"]["summary"]["items"]
        assert {k: v for k, v in items.items() if v} == expected_pytest, name
        assert run["report"]["run"]["exit_status"] == 1, name
        assert run["report"]["run"]["partial_selection"] is False, name
    reports = [without_timing(run["report"]) for run in runs.values()]
    assert reports[0] == reports[1] == reports[2]
