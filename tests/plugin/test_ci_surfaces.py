"""Markdown and step summaries, baselines and waivers."""

from __future__ import annotations

import datetime
import json

import pytest

from ._helpers import CANARY, claim, esc, evidence, validate_report, write_claims_project

MEDICATION = "gates.openmed.toml::claims(notes)::class[medication]"
GATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\n[claims.classes.medication]\nmax_unsupported_rate = 0.1\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, GATE)
    return pytester


def test_markdown_summary_is_written_where_asked(project: pytest.Pytester) -> None:
    project.runpytest("--openmed-markdown", "summary.md").assert_outcomes(passed=1, failed=1)
    text = (project.path / "summary.md").read_text()
    assert text.startswith("## openmed gates")
    assert "| `gates.openmed.toml::claims(notes)` | claims | FAILED | threshold | 2 | 1 |" in text
    assert f"- `{MEDICATION}`: FAILED threshold: unsupported_rate 0.2000 > max 0.10" in text
    assert "2 gate items: 1 failed, 1 passed; 2 verdicts: 1 passed, 1 threshold" in text
    assert "Non-diagnostic" in text
    assert CANARY not in text


def test_step_summary_is_appended_and_can_be_turned_off(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = project.path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    project.runpytest()
    text = step.read_text()
    assert text.startswith("earlier step\n## openmed gates")
    project.runpytest("--openmed-no-step-summary")
    assert step.read_text() == text
    project.makeini("[pytest]\nopenmed_step_summary = false\n")
    project.runpytest()
    assert step.read_text() == text


def test_step_summary_stays_untouched_by_a_gate_free_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = pytester.path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    pytester.makepyfile("def test_ok():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)
    assert not step.exists()


def _baseline(project: pytest.Pytester, lower: float, rate: float, upper: float) -> None:
    project.runpytest("--openmed-report", "base.json")
    document = json.loads((project.path / "base.json").read_text())
    for gate in document["gates"]:
        gate["metrics"].update(lower=lower, unsupported_rate=rate, upper=upper)
    (project.path / "base.json").write_text(json.dumps(document))


def test_baseline_regression_fails_as_threshold_with_the_increase(
    pytester: pytest.Pytester,
) -> None:
    # 20 of 40 claims uncited: the interval sits far above a baseline of [0, 0].
    claims = [claim(i, "lab", [] if i % 2 else [f"{CANARY}-ev-{i}"]) for i in range(40)]
    rows = [evidence(i) for i in range(0, 40, 2)]
    (pytester.path / "c.json").write_text(json.dumps(claims))
    (pytester.path / "e.json").write_text(json.dumps(rows))
    (pytester.path / "gates.openmed.toml").write_text(
        '[[claims]]\nname = "labs"\nclaims = "c.json"\nevidence = "e.json"\n'
        "max_unsupported_rate = 1.0\n"
    )
    _baseline(pytester, 0.0, 0.0, 0.0)
    result = pytester.runpytest("--openmed-baseline", "base.json", "--openmed-report", "r.json")
    result.assert_outcomes(failed=1)
    (overall,) = validate_report(pytester.path / "r.json")["gates"]
    assert overall["status"] == "threshold"
    assert overall["reason"] == "baseline_regression"
    assert overall["metrics"]["baseline_upper"] == 0.0
    assert overall["metrics"]["rate_increase"] == 0.5
    result.stdout.fnmatch_lines(["*baseline_regression*rate_increase=0.5000*"])


def test_overlapping_baseline_is_not_a_regression(project: pytest.Pytester) -> None:
    _baseline(project, 0.0, 0.1, 0.3)
    project.runpytest("--openmed-baseline", "base.json").assert_outcomes(passed=1, failed=1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not strict UTF-8 JSON"),
        ('{"schema_version": "0"}', "is not a pytest-openmed gate report"),
    ],
)
def test_a_bad_baseline_is_a_usage_error(
    project: pytest.Pytester, content: str, message: str
) -> None:
    (project.path / "base.json").write_text(content)
    result = project.runpytest("--openmed-baseline", "base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def _waiver(
    project: pytest.Pytester, gate: str, expires: datetime.date, reference: str = "RISK-1"
) -> None:
    (project.path / "waivers.toml").write_text(
        f'[[waiver]]\ngate = "{gate}"\nexpires = {expires.isoformat()}\nreference = "{reference}"\n'
    )


def test_a_waived_failing_gate_is_xfail_and_listed(project: pytest.Pytester) -> None:
    until = datetime.date.today() + datetime.timedelta(days=30)
    _waiver(project, MEDICATION, until)
    result = project.runpytest(
        "-rx", "--openmed-waivers", "waivers.toml", "--openmed-report", "r.json"
    )
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"*waived until {until.isoformat()} (ref RISK-1)*"])
    report = validate_report(project.path / "r.json")
    assert report["waivers"] == [
        {"gate": MEDICATION, "expires": until.isoformat(), "reference": "RISK-1", "applied": True}
    ]


def test_a_waiver_does_not_hide_refused_inputs(project: pytest.Pytester) -> None:
    _waiver(project, MEDICATION, datetime.date.today())
    (project.path / "evidence.jsonl").write_text("{not json\n")
    result = project.runpytest("--openmed-waivers", "waivers.toml")
    result.assert_outcomes(errors=2)


def test_an_expired_waiver_fails_the_run(project: pytest.Pytester) -> None:
    _waiver(project, MEDICATION, datetime.date.today() - datetime.timedelta(days=1))
    result = project.runpytest("--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*waiver #1 expired on*"])


def test_a_waiver_naming_no_gate_fails_the_run(project: pytest.Pytester) -> None:
    _waiver(project, "gates.openmed.toml::claims(other)::overall", datetime.date.today())
    result = project.runpytest("--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*waiver #1 names no collected gate*"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[waiver]]\ngate = "x"\nexpires = "soon"\nreference = "R"\n',
            "'expires' must be a TOML date",
        ),
        (
            '[[waiver]]\ngate = "x"\nexpires = 2999-01-01\nreference = "Jane Doe asked"\n',
            "'reference' must be an opaque ticket id",
        ),
        ('[[waiver]]\ngate = "x"\nexpires = 2999-01-01\n', "expected exactly the keys"),
        ("[other]\n", "may only contain [[waiver]] tables"),
    ],
)
def test_malformed_waiver_files_are_usage_errors(
    project: pytest.Pytester, text: str, message: str
) -> None:
    (project.path / "waivers.toml").write_text(text)
    result = project.runpytest("--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*" + esc(message) + "*"])
