"""Claim-level percentile bootstrap of an unsupported rate, at O(resamples) cost.

Resampling n claims with replacement, k of them unsupported, draws each claim
independently and uniformly, so the number of unsupported claims in a
resample is exactly Binomial(n, k/n).  Drawing that count directly is the
same bootstrap without touching the claims, so its cost does not grow with
the number of claims.  Every collection (overall, each class) has its own
random stream derived from the seed and the collection's name, so one class's
interval does not change when other classes come or go.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import numpy.typing as npt

from pytest_openmed.claims.report import BootstrapInterval

__all__ = ["bootstrap_interval", "collection_rng", "resampled_counts"]


def collection_rng(seed: int, collection: str | None) -> np.random.Generator:
    """The random stream of one collection: ``None`` for overall, else a class name."""
    if collection is None:
        spawn_key: tuple[int, ...] = (0,)
    else:
        digest = hashlib.sha256(collection.encode("ascii")).digest()
        spawn_key = (1, *struct.unpack(">4I", digest[:16]))
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=spawn_key))


def resampled_counts(
    claim_count: int, unsupported_count: int, n_resamples: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Unsupported counts of ``n_resamples`` claim-level resamples of size ``claim_count``."""
    return rng.binomial(claim_count, unsupported_count / claim_count, size=n_resamples)


def bootstrap_interval(
    claim_count: int,
    unsupported_count: int,
    *,
    n_resamples: int,
    alpha: float,
    seed: int,
    collection: str | None,
) -> BootstrapInterval:
    """Percentile interval of the unsupported rate, clamped to contain the point estimate.

    Fewer than two claims give a degenerate, zero-width interval (an empty
    collection has rate 0.0); a collection whose claims all share one outcome
    has a zero-width interval without drawing anything.
    """
    point = unsupported_count / claim_count if claim_count else 0.0
    if claim_count < 2 or unsupported_count in (0, claim_count):
        return BootstrapInterval(
            lower=point,
            upper=point,
            point=point,
            n_resamples=n_resamples,
            alpha=alpha,
            degenerate=claim_count < 2,
        )
    counts = resampled_counts(
        claim_count, unsupported_count, n_resamples, collection_rng(seed, collection)
    )
    low, high = np.quantile(counts, (alpha / 2.0, 1.0 - alpha / 2.0))
    return BootstrapInterval(
        lower=min(float(low) / claim_count, point),
        upper=max(float(high) / claim_count, point),
        point=point,
        n_resamples=n_resamples,
        alpha=alpha,
        degenerate=False,
    )
