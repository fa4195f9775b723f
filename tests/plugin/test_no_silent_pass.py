"""No silent pass: a threshold that cannot be checked is an error, never a pass."""

from __future__ import annotations

import pytest

from ._helpers import CANARY, esc, validate_report, write_claims_project

HEAD = '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'


def test_a_class_threshold_naming_an_absent_class_is_an_error_of_that_item(
    pytester: pytest.Pytester,
) -> None:
    # "medications" (plural) names no claim; "medication" does.
    write_claims_project(
        pytester.path,
        HEAD + "max_unsupported_rate = 0.2\n[claims.classes.medications]\nmax_upper = 0.9\n",
    )
    result = pytester.runpytest("-v", "--openmed-report", "r.json")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*" + esc("claims(notes)::class[medications]") + " ERROR*",
            "openmed claims gate input refused: medications: not a standard class, and no claim "
            "has it*(closest_standard_class=medication)",
        ]
    )
    report = validate_report(pytester.path / "r.json")
    absent = report["gates"][1]
    assert (absent["outcome"], absent["status"], absent["metrics"]) == ("error", None, {})


def test_a_standard_class_is_named_and_a_custom_one_as_the_gate_file_spells_it(
    pytester: pytest.Pytester,
) -> None:
    """A gate file's class names are configuration (already in the node id), not data."""
    write_claims_project(
        pytester.path,
        HEAD + "[claims.classes.allergy]\nmax_upper = 0.9\n"
        f"[claims.classes.{CANARY.lower()}_ward]\nmax_upper = 0.9\n",
    )
    result = pytester.runpytest("-q", "--openmed-report", "r.json")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*input refused: allergy: the class has no claims*"])
    # The error sections, not the short summary (which CI=true leaves untruncated).
    errors = [
        line
        for line in result.stdout.lines
        if "input refused" in line and not line.startswith("ERROR ")
    ]
    assert len(errors) == 2
    custom = f"input refused: {CANARY.lower()}_ward: not a standard class, and no claim has it"
    assert custom in errors[1] and "closest_standard_class=" not in errors[1]  # nothing is close
    assert "class_" not in errors[0] + errors[1]


def test_allow_absent_lets_an_empty_class_pass_with_zero_claims(pytester: pytest.Pytester) -> None:
    write_claims_project(
        pytester.path,
        HEAD + "[claims.classes.allergy]\nmax_upper = 0.9\nallow_absent = true\n",
    )
    result = pytester.runpytest("--openmed-report", "r.json")
    result.assert_outcomes(passed=2)
    _, allergy = validate_report(pytester.path / "r.json")["gates"]
    assert allergy["metrics"]["claim_count"] == 0


def test_a_claims_gate_without_any_threshold_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, HEAD)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "openmed gate file error: gates.openmed.toml: "
            + esc("[[claims]]")
            + " #1: a claims gate needs*"
        ]
    )


def test_claim_scorer_refuses_an_absent_marker_class(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, HEAD + "max_upper = 1.0\n")
    pytester.makepyfile(
        """
        import json
        from pathlib import Path
        import pytest

        @pytest.mark.openmed_claims(classes={"allergy": {"max_upper": 0.5}})
        def test_scored(claim_scorer):
            claims = json.loads(Path("claims.json").read_text())
            rows = [json.loads(l) for l in Path("evidence.jsonl").read_text().splitlines()]
            claim_scorer(claims, rows)

        @pytest.mark.openmed_claims(classes={"allergy": {"max_upper": 0.5, "allow_absent": True}})
        def test_allowed(claim_scorer):
            claims = json.loads(Path("claims.json").read_text())
            rows = [json.loads(l) for l in Path("evidence.jsonl").read_text().splitlines()]
            claim_scorer(claims, rows)
        """
    )
    result = pytester.runpytest(
        "test_claim_scorer_refuses_an_absent_marker_class.py", "--openmed-report", "r.json"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*class[[]allergy[]]: openmed claims gate input refused: allergy*"]
    )
    assert CANARY not in result.stdout.str()
    parts = {
        (gate["nodeid"].rsplit("::", 1)[1], gate["part"]): gate["status"]
        for gate in validate_report(pytester.path / "r.json")["gates"]
    }
    assert parts[("test_scored", "class[allergy]")] is None
    assert parts[("test_allowed", "class[allergy]")] == "passed"
