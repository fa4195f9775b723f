"""Generated development sources, control packs and simulated reviews (test material).

Nothing here is diagnostic or independent validation: the sources are
synthetic with known ground truth, the packs have one unit each, and reviews
built with :func:`simulate_review` are development simulations.
"""

from __future__ import annotations

from pytest_openmed.development.packs import development_pack, development_source
from pytest_openmed.development.simulated_review import (
    ALL_TRUE,
    Rating,
    simulate_adjudication,
    simulate_review,
    simulated_reviewer,
)

__all__ = [
    "ALL_TRUE",
    "Rating",
    "development_pack",
    "development_source",
    "simulate_adjudication",
    "simulate_review",
    "simulated_reviewer",
]
