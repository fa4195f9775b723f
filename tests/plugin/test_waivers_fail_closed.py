"""Waivers fail closed: a stale waiver is visible, an unmatched one is exit 4 under xdist too."""

from __future__ import annotations

import datetime

import pytest

from ._helpers import NOTES_MEDICATION_GATE, esc, validate_report, write_claims_project

OVERALL = "gates.openmed.toml::claims(notes)::overall"
MEDICATION = "gates.openmed.toml::claims(notes)::class[medication]"
UNTIL = datetime.date.today() + datetime.timedelta(days=30)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, NOTES_MEDICATION_GATE)
    return pytester


def _waivers(project: pytest.Pytester, *gates: str) -> None:
    text = "".join(
        f'[[waiver]]\ngate = "{gate}"\nexpires = {UNTIL.isoformat()}\nreference = "RISK-{n}"\n'
        for n, gate in enumerate(gates, start=1)
    )
    (project.path / "waivers.toml").write_text(text)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_waiver_on_a_passing_gate_is_unused_and_the_gate_simply_passes(
    project: pytest.Pytester, workers: list[str]
) -> None:
    _waivers(project, OVERALL, MEDICATION)
    result = project.runpytest_subprocess(
        *workers, "-rA", "--openmed-waivers", "waivers.toml", "--openmed-report", "r.json"
    )
    result.assert_outcomes(passed=1, xfailed=1)  # overall passed: not XPASS
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*= openmed gates =*",
            f"UNUSED  waiver for {OVERALL} (ref RISK-1): the gate did not fail in this run*",
            f"WAIVED  {esc(MEDICATION)} until *",
        ]
    )
    assert "XPASS" not in result.stdout.str()
    report = validate_report(project.path / "r.json")
    assert [(w["gate"], w["applied"]) for w in report["waivers"]] == [
        (OVERALL, False),
        (MEDICATION, True),
    ]
    overall = next(gate for gate in report["gates"] if gate["nodeid"] == OVERALL)
    assert overall["outcome"] == "passed"


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_waiver_naming_no_gate_is_a_usage_error_serial_and_under_xdist(
    project: pytest.Pytester, workers: list[str]
) -> None:
    _waivers(project, "gates.openmed.toml::claims(other)::overall")
    result = project.runpytest_subprocess(*workers, "--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "waiver #1 names no collected gate" in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert "passed" not in result.stdout.str()  # no gate ran
