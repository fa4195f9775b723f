"""Wilson 95% intervals against the closed formula."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed._wilson import Z_95, wilson_interval


def closed_form(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


def test_z_is_the_975_normal_quantile() -> None:
    from statistics import NormalDist

    assert Z_95 == pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 37, 256])
def test_matches_the_closed_formula_at_0_1_n_minus_1_and_n(n: int) -> None:
    for k in sorted({0, 1, n - 1, n}):
        lower, upper = closed_form(k, n)
        interval = wilson_interval(k, n)
        assert interval.lower == pytest.approx(max(0.0, lower), abs=1e-12)
        assert interval.upper == pytest.approx(min(1.0, upper), abs=1e-12)


def test_known_values() -> None:
    # Reference values for k=0 of n=10 and k=5 of n=10 (Wilson score, z=1.96).
    assert wilson_interval(0, 10).upper == pytest.approx(0.27753, abs=1e-5)
    half = wilson_interval(5, 10)
    assert half.lower == pytest.approx(0.23659, abs=1e-5)
    assert half.upper == pytest.approx(0.76341, abs=1e-5)


def test_bounds_are_exact_at_the_extremes() -> None:
    assert wilson_interval(0, 7).lower == 0.0
    assert wilson_interval(7, 7).upper == 1.0


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(1, 10_000))
def test_interval_contains_the_rate_and_is_symmetric(data: st.DataObject, n: int) -> None:
    k = data.draw(st.integers(0, n))
    interval = wilson_interval(k, n)
    assert 0.0 <= interval.lower <= k / n <= interval.upper <= 1.0
    mirror = wilson_interval(n - k, n)
    assert interval.lower == pytest.approx(1 - mirror.upper, abs=1e-12)


@pytest.mark.parametrize(("k", "n"), [(0, 0), (-1, 5), (6, 5)])
def test_invalid_counts_are_refused(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)


def test_counts_must_be_integers() -> None:
    with pytest.raises(TypeError):
        wilson_interval(1.0, 5)  # type: ignore[arg-type]
