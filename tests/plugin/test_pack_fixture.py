"""The assess_pack fixture records a pack verdict like the [[pack]] gate and fails as a gate."""

from __future__ import annotations

import json

import pytest

KEY = "k" * 24 + "-CANARYKEY-" + "k" * 8  # at least 32 bytes; must never be printed

TESTS = """
from pytest_openmed.development import ALL_TRUE, simulate_review

def reviews(pack, reviewers, key):
    ratings = {"config-a": ALL_TRUE, "config-b": ALL_TRUE}
    return [simulate_review(pack, r, key=key, ratings=ratings) for r in reviewers]

def test_config_a(assess_pack, development_pack, simulated_reviewers, evaluator_key):
    pack = development_pack("burned_in")
    found = reviews(pack, simulated_reviewers("burned_in"), evaluator_key)
    assessment = assess_pack(pack, "config-a", found, key=evaluator_key)
    assert assessment.decision.value == "rubric_satisfied"

def test_config_b(assess_pack, development_pack, simulated_reviewers, evaluator_key):
    pack = development_pack("burned_in")
    found = reviews(pack, simulated_reviewers("burned_in"), evaluator_key)
    assess_pack(pack, "config-b", found, key=evaluator_key)

def test_wrong_key(assess_pack, development_pack, simulated_reviewers, evaluator_key):
    pack = development_pack("burned_in")
    found = reviews(pack, simulated_reviewers("burned_in"), b"w" * 32)
    assess_pack(pack, "config-a", found, key=evaluator_key)
"""


@pytest.fixture
def result(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    monkeypatch.setenv("OPENMED_TEST_KEY", KEY)
    pytester.makepyfile(test_packs=TESTS)
    return pytester.runpytest(
        "-p",
        "openmed",
        "--openmed-key-env",
        "OPENMED_TEST_KEY",
        "--openmed-report",
        "r.json",
        "--showlocals",
        "--tb=long",
        "-rA",
    )


def test_verdicts_are_recorded_like_the_pack_gate(
    result: pytest.RunResult, pytester: pytest.Pytester
) -> None:
    gates = json.loads((pytester.path / "r.json").read_text())["gates"]
    recorded = {(g["nodeid"].rsplit("::", 1)[1], g["part"]): g for g in gates}
    passed = recorded[("test_config_a", "config-a")]
    assert (passed["kind"], passed["status"], passed["reason"]) == ("pack", "passed", "ok")
    assert passed["metrics"] == {
        "adjudications": 0,
        "review_origin": "development_simulation",
        "reviews": 2,
        "units": 1,
    }
    blocked = recorded[("test_config_b", "config-b")]
    assert (blocked["status"], blocked["reason"]) == ("blocked", "safety")
    assert recorded[("test_wrong_key", "config-a")]["status"] is None


def test_a_blocked_candidate_fails_the_test_as_a_gate(result: pytest.RunResult) -> None:
    result.assert_outcomes(passed=1, failed=1, errors=1)  # refused evidence is an error
    result.stdout.fnmatch_lines(
        [
            "*openmed pack gate: blocked (safety); adjudications=0, review_origin=development_simulation, reviews=2, units=1*"
        ]
    )


def test_refused_evidence_says_so_without_the_key_or_evidence(result: pytest.RunResult) -> None:
    result.stdout.fnmatch_lines(["*openmed pack gate input refused: WrongKey*"])
    text = result.stdout.str() + result.stderr.str()
    assert "CANARYKEY" not in text
    assert "www" not in text and "sha256:" not in text
