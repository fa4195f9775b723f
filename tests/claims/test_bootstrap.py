"""The binomial identity behind the bootstrap, and the interval rules."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from pytest_openmed.claims import bootstrap
from pytest_openmed.claims.bootstrap import bootstrap_interval, collection_rng, resampled_counts


def binomial_pmf(n: int, k: int, j: int) -> Fraction:
    p = Fraction(k, n)
    return math.comb(n, j) * p**j * (1 - p) ** (n - j)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_claim_level_resampling_counts_are_exactly_binomial(n: int) -> None:
    """Enumerate every resample of n claims with replacement: the count of
    unsupported claims has exactly the Binomial(n, k/n) distribution."""
    for k in range(n + 1):
        flags = [1] * k + [0] * (n - k)
        tally = Counter(
            sum(flags[i] for i in picks) for picks in itertools.product(range(n), repeat=n)
        )
        total = n**n
        for j in range(n + 1):
            assert Fraction(tally[j], total) == binomial_pmf(n, k, j)


def explicit_resampled_counts(n: int, k: int, resamples: int, seed: int) -> np.ndarray:
    """Claim-level bootstrap done the slow way: draw n claim indices per resample."""
    flags = np.array([1] * k + [0] * (n - k))
    picks = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    counts: np.ndarray = flags[picks].sum(axis=1)
    return counts


def homogeneity_p(first: np.ndarray, second: np.ndarray, n: int) -> float:
    """Chi-square test that two samples of counts in 0..n share one distribution."""
    table = np.array([np.bincount(first, minlength=n + 1), np.bincount(second, minlength=n + 1)])
    table = table[:, table.sum(axis=0) >= 10]  # drop sparse tail cells
    return float(stats.chi2_contingency(table)[1])


@pytest.mark.parametrize(("n", "k"), [(5, 2), (12, 1), (30, 17), (80, 8)])
def test_direct_binomial_draws_match_explicit_claim_resampling_as_distributions(
    n: int, k: int
) -> None:
    resamples = 20_000
    ours = resampled_counts(n, k, resamples, collection_rng(3, "lab"))
    explicit = explicit_resampled_counts(n, k, resamples, seed=4)
    assert homogeneity_p(ours, explicit, n) > 1e-3
    # Both also fit the exact binomial law (goodness of fit on well-filled cells).
    for sample in (ours, explicit):
        observed = np.bincount(sample, minlength=n + 1)
        expected = stats.binom.pmf(np.arange(n + 1), n, k / n) * resamples
        keep = expected >= 10
        obs, exp = observed[keep], expected[keep]
        if not keep.all():  # pool the sparse tail into one cell
            obs = np.append(obs, observed[~keep].sum())
            exp = np.append(exp, expected[~keep].sum())
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3


def test_the_distribution_test_detects_a_wrong_probability() -> None:
    """The comparison above has power: a slightly wrong binomial is caught."""
    n, k, resamples = 30, 17, 20_000
    wrong = np.random.default_rng(5).binomial(n, k / n + 0.04, size=resamples)
    explicit = explicit_resampled_counts(n, k, resamples, seed=4)
    assert homogeneity_p(wrong, explicit, n) < 1e-6


def test_intervals_agree_with_explicit_claim_resampling() -> None:
    n, k, resamples, alpha = 200, 37, 20_000, 0.05
    ours = bootstrap_interval(n, k, n_resamples=resamples, alpha=alpha, seed=9, collection=None)
    explicit = explicit_resampled_counts(n, k, resamples, seed=10) / n
    lower, upper = np.quantile(explicit, (alpha / 2, 1 - alpha / 2))
    assert ours.lower == pytest.approx(lower, abs=0.006)
    assert ours.upper == pytest.approx(upper, abs=0.006)
    assert ours.point == k / n


@pytest.mark.parametrize(("n", "k"), [(0, 0), (1, 0), (1, 1)])
def test_fewer_than_two_claims_give_a_degenerate_zero_width_interval(n: int, k: int) -> None:
    interval = bootstrap_interval(n, k, n_resamples=100, alpha=0.05, seed=0, collection=None)
    assert interval.degenerate
    assert interval.lower == interval.upper == interval.point == (k / n if n else 0.0)


@pytest.mark.parametrize(("n", "k"), [(2, 0), (2, 2), (50, 0), (50, 50)])
def test_a_single_outcome_gives_zero_width_but_is_not_degenerate(n: int, k: int) -> None:
    interval = bootstrap_interval(n, k, n_resamples=100, alpha=0.05, seed=0, collection="lab")
    assert not interval.degenerate
    assert interval.lower == interval.upper == interval.point == k / n


def test_two_claims_with_mixed_outcomes_get_a_real_interval() -> None:
    interval = bootstrap_interval(2, 1, n_resamples=1000, alpha=0.05, seed=0, collection=None)
    assert not interval.degenerate
    assert (interval.lower, interval.point, interval.upper) == (0.0, 0.5, 1.0)


def test_the_percentile_interval_is_clamped_to_contain_the_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def shifted(n: int, k: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
        return np.full(resamples, k + 2)

    monkeypatch.setattr(bootstrap, "resampled_counts", shifted)
    interval = bootstrap_interval(10, 3, n_resamples=50, alpha=0.05, seed=0, collection=None)
    assert interval.lower == interval.point == 0.3
    assert interval.upper == 0.5

    monkeypatch.setattr(bootstrap, "resampled_counts", lambda n, k, r, rng: np.full(r, k - 2))
    interval = bootstrap_interval(10, 3, n_resamples=50, alpha=0.05, seed=0, collection=None)
    assert interval.upper == interval.point == 0.3
    assert interval.lower == 0.1


def test_a_smaller_alpha_widens_the_interval() -> None:
    wide = bootstrap_interval(400, 90, n_resamples=4000, alpha=0.01, seed=2, collection=None)
    narrow = bootstrap_interval(400, 90, n_resamples=4000, alpha=0.5, seed=2, collection=None)
    assert wide.lower < narrow.lower <= narrow.point <= narrow.upper < wide.upper


def test_streams_are_deterministic_and_separate_per_collection() -> None:
    def head(seed: int, collection: str | None) -> list[int]:
        return [int(x) for x in collection_rng(seed, collection).integers(0, 2**32, size=4)]

    assert head(1, None) == head(1, None)
    assert head(1, "lab") == head(1, "lab")
    assert len({tuple(head(1, c)) for c in (None, "lab", "vital")}) == 3
    assert head(1, "lab") != head(2, "lab")


def test_draw_cost_does_not_grow_with_claim_count() -> None:
    """The bootstrap draws one count per resample whatever n is (no per-claim draws)."""
    for n in (10, 10_000_000):
        counts = resampled_counts(n, n // 3, 7, collection_rng(0, None))
        assert counts.shape == (7,)
