"""A fixture given refused input raises the gate's value-free error, as an error of the test.

No claim id, key, evidence id or relation value reaches the terminal, junit XML
or the report, whatever traceback options the run uses: the plugin's frames
hold no input, and the refusal carries no engine exception.
"""

from __future__ import annotations

import json
import re

import pytest

from ._helpers import CANARY, validate_report

HELPERS = f"""
CANARY = {CANARY!r}


def claims():
    # Two claims share an id: the engine refuses the input.
    return [
        {{"claim_id": CANARY + "-id", "claim_class": "lab", "claim_key": {{"k": CANARY + "-key"}},
          "evidence_ids": [CANARY + "-ev"]}},
        {{"claim_id": CANARY + "-id", "claim_class": "lab", "claim_key": {{"k": CANARY + "-key2"}},
          "evidence_ids": []}},
    ]


def evidence():
    return [{{"evidence_id": CANARY + "-ev", "claim_key": {{"k": CANARY + "-key"}},
              "approved": True, "relation": "supports"}}]
"""

TESTS = """
from helpers import claims, evidence


def test_refused_claims(claim_scorer):
    claim_scorer(claims(), evidence())


def test_refused_planner(qualify_planner):
    qualify_planner(42)


def test_refused_pack_task(development_pack):
    development_pack("no-such-task")
"""

OPTIONS = [
    [],
    ["--showlocals"],
    ["--tb=long"],
    ["--fulltrace"],
    ["--showlocals", "--tb=long", "--fulltrace"],
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: " ".join(o) or "default")
def test_refused_fixture_input_is_a_value_free_error(
    pytester: pytest.Pytester, options: list[str]
) -> None:
    pytester.makepyfile(helpers=HELPERS, test_scoring=TESTS)
    result = pytester.runpytest(
        "-p", "openmed", "-rA", "--junitxml=j.xml", "--openmed-report", "r.json", *options
    )
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*openmed claims gate input refused: ValueError: claims record * duplicate claim_id*",
            "*openmed planner gate input refused: TypeError: planner must be a callable*",
            "*openmed development_pack fixture input refused: ValueError: task must be*",
        ]
    )
    junit = (pytester.path / "j.xml").read_text()
    assert 'errors="3"' in junit and 'failures="0"' in junit
    report = validate_report(pytester.path / "r.json")
    assert [(g["kind"], g["status"], g["outcome"]) for g in report["gates"]] == [
        ("claims", None, "error"),
        ("planner", None, "error"),
    ]
    for channel in (result.stdout.str(), result.stderr.str(), junit, json.dumps(report)):
        assert CANARY not in channel
    short_summary = result.stdout.str().partition("short test summary info")[2]
    assert "GateInputError" not in short_summary
    messages = re.findall(r'message="([^"]*)"', junit)
    assert len(messages) == 3
    assert all("openmed" in m and "pytest_openmed" not in m for m in messages)


def test_refused_fixture_input_is_an_error_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(helpers=HELPERS, test_scoring=TESTS)
    result = pytester.runpytest_subprocess(
        "-p", "openmed", "-n", "2", "--showlocals", "--tb=long", "--junitxml=j.xml"
    )
    result.assert_outcomes(errors=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert CANARY not in result.stdout.str() + (pytester.path / "j.xml").read_text()


def test_a_refusal_can_still_be_expected_as_a_value_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        helpers=HELPERS,
        test_expected="""
        import pytest
        from helpers import claims, evidence

        def test_refusal_expected(claim_scorer):
            with pytest.raises(ValueError, match="duplicate claim_id"):
                claim_scorer(claims(), evidence())
        """,
    )
    pytester.runpytest("-p", "openmed").assert_outcomes(passed=1)


def test_two_calls_in_one_test_yield_distinct_stable_parts(
    claims_project: pytest.Pytester,
) -> None:
    claims_project.makepyfile(
        """
        import json
        from pathlib import Path
        import pytest

        def load():
            claims = json.loads(Path("claims.json").read_text())
            rows = [json.loads(l) for l in Path("evidence.jsonl").read_text().splitlines()]
            return claims, rows

        @pytest.mark.openmed_claims(max_unsupported_rate=0.5, classes={"medication": {"max_upper": 1}})
        def test_twice(claim_scorer):
            claim_scorer(*load())
            claim_scorer(*load())
        """
    )
    for _ in range(2):
        claims_project.runpytest(
            "test_two_calls_in_one_test_yield_distinct_stable_parts.py",
            "--openmed-report",
            "r.json",
            "--junitxml=j.xml",
        ).assert_outcomes(passed=1)
        report = validate_report(claims_project.path / "r.json")
        parts = [gate["part"] for gate in report["gates"]]
        assert parts == ["call2.class[medication]", "call2.overall", "class[medication]", "overall"]
        junit = (claims_project.path / "j.xml").read_text()
        assert 'name="openmed.call2.overall.status"' in junit
