"""How the burned_in tests judge one rendering: missed, and whether the run said so.

A miss is silent when the string is covered below ``MISS_FRACTION`` with
neither a ``privacy`` failure nor an abstention (issue 27's target is none).
"""

from __future__ import annotations

from pytest_openmed.components.burned_in import BurnedInConfig, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import MISS_FRACTION, identifier_coverage

__all__ = ["missed_and_reported"]


def missed_and_reported(source: GeneratedSource, config: BurnedInConfig) -> tuple[bool, bool]:
    """Whether the string was missed, and whether the run reported it."""
    output = run(source.asset, config)
    (covered,) = identifier_coverage(source.truth, output.output["regions"])
    reported = "privacy" in output.safety_failures or output.abstained
    return covered < MISS_FRACTION, reported
