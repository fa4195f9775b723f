"""Generated development sources, control packs and simulated reviews (test material).

Nothing here is diagnostic or independent validation: the sources are
synthetic with known ground truth, the packs have one unit each, and reviews
built with :func:`simulate_review` are development simulations.  Names load
on first use (PEP 562) so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_HOMES = {
    "development_pack": "packs",
    "development_source": "packs",
    "ALL_TRUE": "simulated_review",
    "Rating": "simulated_review",
    "simulate_adjudication": "simulated_review",
    "simulate_review": "simulated_review",
    "simulated_reviewer": "simulated_review",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pytest_openmed.development' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"pytest_openmed.development.{home}"), name)
