"""A verdict that breaks its threshold and regressed against its baseline shows both.

The HTML report's regressions section, its trend flag and ``openmed-report
diff`` of the same two reports must agree: a failing verdict is not exempt
from the baseline comparison (docs/ci.md: every matched verdict carries it).
"""

from __future__ import annotations

import json

import pytest

from pytest_openmed.report.cli import main as report_main
from pytest_openmed.report.html import render_html

from ._helpers import CANARY, claim, evidence, validate_report

GATE = "gates.openmed.toml::claims(labs)::overall"


@pytest.fixture
def regressed_run(pytester: pytest.Pytester) -> pytest.Pytester:
    # 20 of 40 claims uncited: over max 0.05 and far above a baseline of [0, 0.175].
    claims = [claim(i, "lab", [] if i % 2 else [f"{CANARY}-ev-{i}"]) for i in range(40)]
    (pytester.path / "c.json").write_text(json.dumps(claims))
    (pytester.path / "e.json").write_text(json.dumps([evidence(i) for i in range(0, 40, 2)]))
    (pytester.path / "gates.openmed.toml").write_text(
        '[[claims]]\nname = "labs"\nclaims = "c.json"\nevidence = "e.json"\n'
        "resamples = 200\nmax_unsupported_rate = 0.05\n"
    )
    pytester.runpytest("--openmed-report", "base.json")
    document = json.loads((pytester.path / "base.json").read_text())
    for gate in document["gates"]:
        gate["metrics"].update(lower=0.0, unsupported_rate=0.05, upper=0.175)
    (pytester.path / "base.json").write_text(json.dumps(document))
    result = pytester.runpytest(
        "--openmed-baseline", "base.json", "--openmed-report", "r.json", "--openmed-html", "r.html"
    )
    result.assert_outcomes(failed=1)
    return pytester


def test_the_failing_verdict_keeps_its_rule_and_carries_the_regression(
    regressed_run: pytest.Pytester,
) -> None:
    (overall,) = validate_report(regressed_run.path / "r.json")["gates"]
    assert (overall["status"], overall["reason"]) == ("threshold", "unsupported_rate")
    assert overall["metrics"]["baseline_upper"] == 0.175
    assert overall["metrics"]["baseline_regressed"] is True
    assert overall["metrics"]["rate_increase"] > 0


def test_html_regressions_and_diff_agree(
    regressed_run: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    html = (regressed_run.path / "r.html").read_text()
    regressions = html.partition('id="regressions"')[2].partition("</section>")[0]
    assert "No verdict regressed" not in regressions
    assert GATE in regressions
    assert (
        report_main(
            ["diff", str(regressed_run.path / "base.json"), str(regressed_run.path / "r.json")]
        )
        == 1
    )
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("regressed")] == [f"{GATE}:"]


def test_the_trend_marks_the_point_regressed(regressed_run: pytest.Pytester) -> None:
    report = json.loads((regressed_run.path / "r.json").read_text())
    html = render_html(report, [("20261201T000000000000Z-nocommit", report)])
    trends = html.partition('id="trends"')[2]
    assert "regressed" in trends
