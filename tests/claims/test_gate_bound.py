"""The claims gate bound: never below the exact bound; too few claims is underpowered, not a pass."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

from pytest_openmed.claims import messages, score_summary_claims
from pytest_openmed.claims._gate import evaluate_thresholds
from pytest_openmed.contract import GateItemRefused, GateResult

from ._helpers import claim, declared, evidence


def report_with(unsupported: int, total: int, *, label: str = "lab", alpha: float = 0.05) -> Any:
    claims = [claim(i, [] if i < unsupported else ["e"], claim_class=label) for i in range(total)]
    return score_summary_claims(claims, [evidence("e")], n_resamples=200, alpha=alpha)


def test_three_supported_claims_are_underpowered_for_max_upper_ten_percent() -> None:
    verdict = evaluate_thresholds(
        report_with(0, 3), declared(max_unsupported_rate=0.05, max_upper=0.10)
    )
    refused = verdict["overall"]
    assert isinstance(refused, GateItemRefused)
    assert refused.args[0] == messages.UNDERPOWERED
    assert dict(refused.figures) == {
        "claim_count": 3,
        "needed_claims": 29,
        "max_upper": 0.10,
        "confidence": 0.95,
    }
    assert refused.describe().endswith(
        "(claim_count=3, needed_claims=29, max_upper=0.1000, confidence=0.9500)"
    )


def test_twenty_nine_supported_claims_pass_and_twenty_eight_do_not() -> None:
    passed = evaluate_thresholds(
        report_with(0, 29), declared(max_unsupported_rate=0.05, max_upper=0.10)
    )
    verdict = passed["overall"]
    assert isinstance(verdict, GateResult) and verdict.passed
    assert verdict.metrics["gate_upper_method"] == "clopper_pearson"
    assert verdict.metrics["upper"] == 0.0  # the bootstrap collapsed; the gate did not read it
    gate = verdict.metrics["gate_upper"]
    assert isinstance(gate, float) and 0.098 < gate <= 0.10
    short = evaluate_thresholds(report_with(0, 28), declared(max_upper=0.10))["overall"]
    assert isinstance(short, GateItemRefused) and short.figures["needed_claims"] == 29


def test_a_gate_with_only_a_rate_threshold_is_not_underpowered() -> None:
    verdict = evaluate_thresholds(report_with(0, 3), declared(max_unsupported_rate=0.05))["overall"]
    assert isinstance(verdict, GateResult) and verdict.passed


def test_an_all_unsupported_collection_is_bounded_at_one() -> None:
    verdict = evaluate_thresholds(report_with(40, 40), declared(max_upper=0.5))["overall"]
    assert isinstance(verdict, GateResult) and verdict.reason == "interval_upper"
    assert verdict.metrics["gate_upper"] == 1.0


def test_the_bootstrap_bound_is_kept_when_it_is_the_larger() -> None:
    report = report_with(15, 30, alpha=0.5)  # a 50% two-sided bootstrap, a one-sided exact bound
    verdict = evaluate_thresholds(report, declared())["overall"]
    assert isinstance(verdict, GateResult)
    exact = float(beta.ppf(0.5, 16, 15))
    assert report.overall.interval.upper > exact
    assert verdict.metrics["gate_upper"] == report.overall.interval.upper
    assert verdict.metrics["gate_upper_method"] == "bootstrap"
    assert verdict.metrics["upper"] == report.overall.interval.upper  # the seed's interval


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    total=st.integers(1, 400),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]),
)
def test_the_gate_bound_is_never_below_the_exact_bound(
    data: st.DataObject, total: int, alpha: float
) -> None:
    unsupported = data.draw(st.integers(0, total))
    report = report_with(unsupported, total, alpha=alpha)
    verdict = evaluate_thresholds(report, declared())["overall"]
    assert isinstance(verdict, GateResult)
    exact = (
        1.0
        if unsupported == total
        else float(beta.ppf(1 - alpha, unsupported + 1, total - unsupported))
    )
    gate = verdict.metrics["gate_upper"]
    assert isinstance(gate, float)
    assert gate >= exact
    assert gate >= report.overall.interval.upper
    method = verdict.metrics["gate_upper_method"]
    assert method == ("bootstrap" if gate == report.overall.interval.upper else "clopper_pearson")


def test_a_class_with_too_few_claims_is_underpowered() -> None:
    claims = [claim(f"m{i}", ["e"], claim_class="medication") for i in range(5)]
    claims += [claim(f"d{i}", ["e"], claim_class="diagnosis") for i in range(40)]
    report = score_summary_claims(claims, [evidence("e")], n_resamples=200)
    verdicts = evaluate_thresholds(
        report,
        declared(
            max_upper=0.10,
            classes={
                "medication": {"max_upper": 0.2, "allow_absent": True},
                "diagnosis": {"max_upper": 0.10},
                "allergy": {"max_upper": 0.10, "allow_absent": True},
            },
        ),
    )
    medication = verdicts["class[medication]"]
    assert isinstance(medication, GateItemRefused)  # allow_absent does not excuse a small class
    assert medication.subject == "medication"
    assert dict(medication.figures)["needed_claims"] == 14
    assert isinstance(verdicts["overall"], GateResult) and verdicts["overall"].passed
    assert isinstance(verdicts["class[diagnosis]"], GateResult)
    assert verdicts["class[diagnosis]"].passed
    allergy = verdicts["class[allergy]"]  # absent, and allowed to be: nothing to bound
    assert isinstance(allergy, GateResult) and allergy.passed


def test_a_zero_max_upper_can_never_be_met() -> None:
    refused = evaluate_thresholds(report_with(0, 100), declared(max_upper=0.0))["overall"]
    assert isinstance(refused, GateItemRefused)
    assert refused.figures["needed_claims"] is None


@pytest.mark.parametrize("total", [29, 200])
def test_enough_claims_keep_every_metric_of_the_seed(total: int) -> None:
    report = report_with(1, total)
    verdict = evaluate_thresholds(report, declared(max_upper=0.5))["overall"]
    assert isinstance(verdict, GateResult)
    interval = report.overall.interval
    assert (verdict.metrics["lower"], verdict.metrics["upper"]) == (interval.lower, interval.upper)
    assert verdict.metrics["degenerate"] is interval.degenerate
