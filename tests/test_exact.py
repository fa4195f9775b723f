"""Exact one-sided upper bounds against an independent implementation: SciPy's beta quantile."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binom

from pytest_openmed._exact import (
    ROUNDING,
    binomial_tail,
    exact_upper,
    minimum_trials,
    planned_trials,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

CONFIDENCES = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999])


def scipy_upper(k: int, n: int, confidence: float) -> float:
    """The Clopper–Pearson one-sided upper bound, as SciPy computes it."""
    return 1.0 if k == n else float(beta.ppf(confidence, k + 1, n - k))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), n=st.integers(1, 100_000), confidence=CONFIDENCES)
def test_never_below_the_exact_bound_and_within_rounding(
    data: st.DataObject, n: int, confidence: float
) -> None:
    k = data.draw(st.one_of(st.integers(0, min(n, 3)), st.integers(0, n)))
    reference = scipy_upper(k, n, confidence)
    ours = exact_upper(k, n, confidence)
    assert ours >= reference
    assert ours - reference <= 10 * ROUNDING


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 2_000))
def test_the_tail_at_the_bound_is_the_error_rate(data: st.DataObject, n: int) -> None:
    k = data.draw(st.integers(0, n - 1))
    bound = exact_upper(k, n, 0.95)
    assert binom.cdf(k, n, bound) == pytest.approx(0.05, rel=1e-6)
    assert binomial_tail(k, n, bound) == pytest.approx(float(binom.cdf(k, n, bound)), rel=1e-9)


def test_the_issue_examples() -> None:
    assert exact_upper(0, 3) == pytest.approx(0.6316, abs=1e-4)
    assert minimum_trials(0.10, 0.95) == 29
    assert exact_upper(0, 28) > 0.10 >= exact_upper(0, 29)
    assert minimum_trials(0.05, 0.95) == 59
    assert exact_upper(0, 58) > 0.05 >= exact_upper(0, 59)


@settings(max_examples=200, deadline=None)
@given(threshold=st.floats(0.0005, 0.999), confidence=CONFIDENCES)
def test_minimum_trials_is_the_first_size_that_can_pass(
    threshold: float, confidence: float
) -> None:
    n = minimum_trials(threshold, confidence)
    assert n is not None
    assert exact_upper(0, n, confidence) <= threshold
    assert n == 1 or exact_upper(0, n - 1, confidence) > threshold
    # The closed form it must agree with: the smallest n with 1 - alpha^(1/n) <= t.
    closed = math.log(1 - confidence) / math.log1p(-threshold)
    assert n in (math.ceil(closed), math.ceil(closed) + 1)


def test_minimum_trials_edges() -> None:
    assert minimum_trials(0.0) is None
    assert minimum_trials(1.0) == 1
    assert exact_upper(5, 5) == 1.0


@pytest.mark.parametrize(("rate", "threshold"), [(0.01, 0.05), (0.05, 0.10), (0.02, 0.03)])
def test_planned_trials_is_where_the_expected_rate_passes(rate: float, threshold: float) -> None:
    n = planned_trials(threshold, 0.95, rate)
    assert n is not None
    # The exact bound at the (fractional) expected count, by SciPy.
    assert beta.ppf(0.95, rate * n + 1, n - rate * n) <= threshold + 1e-9
    assert beta.ppf(0.95, rate * (n - 1) + 1, (n - 1) - rate * (n - 1)) > threshold - 1e-9


def test_planned_trials_without_an_expected_rate_is_the_minimum() -> None:
    assert planned_trials(0.10, 0.95, 0.0) == 29
    assert planned_trials(0.05, 0.95, 0.05) is None
    assert planned_trials(0.05, 0.95, 0.2) is None


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: exact_upper(1, 0), InputRefused),
        (lambda: exact_upper(2, 1), InputRefused),
        (lambda: exact_upper(True, 1), InvalidArgument),
        (lambda: exact_upper(0, 1, 1.0), InputRefused),
        (lambda: exact_upper(0, 1, float("nan")), InputRefused),
        (lambda: exact_upper(0, 1, 1), InvalidArgument),
        (lambda: minimum_trials(1.5), InputRefused),
        (lambda: minimum_trials("0.1"), InvalidArgument),  # type: ignore[arg-type]
        (lambda: planned_trials(0.1, 0.95, -0.1), InputRefused),
    ],
)
def test_bad_arguments_are_refused(call: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]
