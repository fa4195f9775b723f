"""SARIF 2.1.0: one result per failing verdict, located, stably fingerprinted, schema-valid.

The log is validated against the published SARIF 2.1.0 schema (vendored under
``tests/data/sarif``), written by ``--openmed-sarif``, its ini twin and
``openmed-report sarif`` alike, serial and under ``-n 2``.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_openmed.report.cli import main as report_main
from pytest_openmed.report.rules import is_failing
from pytest_openmed.report.sarif import FINGERPRINT
from tests.plugin._helpers import CANARY, validate_report, write_claims_project

SCHEMA = Path(__file__).parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"
GATES = (
    "# gates of this project\n"
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\n[claims.classes.medication]\nmax_unsupported_rate = 0.1\n\n"
    '[[claims]]\nname = "labs"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.05\n"
)
TESTS = """
import pytest

def test_unit():
    pass

@pytest.mark.openmed_gate(kind="claims")
def test_custom_gate():
    assert False
"""


def check_sarif(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(document)
    return document


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, GATES)
    pytester.makepyfile(test_units=TESTS)
    until = datetime.date.today() + datetime.timedelta(days=30)
    (pytester.path / "waivers.toml").write_text(
        '[[waiver]]\ngate = "gates.openmed.toml::claims(labs)::overall"\n'
        f'expires = {until.isoformat()}\nreference = "RISK-9"\n'
    )
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest(
        "--openmed-waivers=waivers.toml", "--openmed-report=r.json", "-p", "no:randomly", *args
    )


def test_one_located_result_per_failing_verdict(project: pytest.Pytester) -> None:
    run(project, "--openmed-sarif=out.sarif").assert_outcomes(passed=2, failed=2, xfailed=1)
    report = validate_report(project.path / "r.json")
    sarif = check_sarif(project.path / "out.sarif")
    assert sarif["version"] == "2.1.0"
    (log,) = sarif["runs"]
    results = log["results"]
    failing = [entry for entry in report["gates"] if is_failing(entry)]
    active = [result for result in results if "suppressions" not in result]
    assert len(active) == len(failing) == 2
    by_rule = {result["ruleId"]: result for result in active}
    medication = by_rule["openmed/claims/unsupported_rate"]
    location = medication["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "gates.openmed.toml"
    assert location["region"]["startLine"] == 2  # the line of `[[claims]]` of "notes"
    assert "unsupported_rate 0.2000 > max 0.10" in medication["message"]["text"]
    custom = by_rule["openmed/claims/no_verdict"]
    location = custom["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "test_units.py"
    assert location["region"]["startLine"] == 7  # def test_custom_gate
    (waived,) = [result for result in results if "suppressions" in result]
    assert waived["locations"][0]["physicalLocation"]["region"]["startLine"] == 10
    assert "RISK-9" in waived["suppressions"][0]["justification"]
    rules = [rule["id"] for rule in log["tool"]["driver"]["rules"]]
    assert all(rules[result["ruleIndex"]] == result["ruleId"] for result in results)
    text = (project.path / "out.sarif").read_text()
    assert CANARY not in text and str(project.path) not in text


def test_fingerprints_are_stable_across_runs_and_under_xdist(project: pytest.Pytester) -> None:
    run(project, "--openmed-sarif=serial.sarif")
    run(project, "--openmed-sarif=again.sarif")
    run(project, "--openmed-sarif=xdist.sarif", "-n", "2")
    fingerprints = [
        [
            r["partialFingerprints"][FINGERPRINT]
            for r in check_sarif(project.path / name)["runs"][0]["results"]
        ]
        for name in ("serial.sarif", "again.sarif", "xdist.sarif")
    ]
    assert fingerprints[0] == fingerprints[1] == fingerprints[2]
    assert len(set(fingerprints[0])) == len(fingerprints[0]) == 3


def test_the_ini_twin_and_the_console_script_write_the_same_log(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\nopenmed_sarif = ini.sarif\n")
    run(project)
    assert (
        report_main(
            [
                "sarif",
                str(project.path / "r.json"),
                "-o",
                str(project.path / "cli.sarif"),
                "--root",
                str(project.path),
            ]
        )
        == 0
    )
    assert check_sarif(project.path / "ini.sarif") == check_sarif(project.path / "cli.sarif")


def test_github_annotations_name_each_failing_gate(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not [line for line in run(project).outlines if line.startswith("::error")]
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    lines = [line for line in run(project).outlines if line.startswith("::")]
    assert lines == [
        "::error file=gates.openmed.toml,line=2,title=openmed claims gate failed::"
        "gates.openmed.toml::claims(notes): 1 failing: class[medication]: "
        "unsupported_rate 0.2000 > max 0.10",
        "::error file=test_units.py,line=7,title=openmed claims gate failed::"
        "test_units.py: 1 failing: test_custom_gate: no verdict",
    ]
