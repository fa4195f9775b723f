"""Hypothesis strategies for downstream property tests of the three engines.

Import this package only from test code that uses Hypothesis: it imports
``hypothesis`` at module level, and the plugin never imports it.  Every
strategy decides the outcome first (a claim's state, a proposal's decision)
and then builds inputs that must reach it, so each example carries the result
the engine has to produce: ground truth by construction, not a second copy of
the engine's logic.

* :func:`claims_and_evidence` → :class:`ClaimsSample` (claims, evidence and the
  expected state and class of every claim);
* :func:`proposed_tool_calls` → :class:`ProposalsSample` (one turn of planner
  proposals and the harness decision each must get);
* :func:`small_packs` → :class:`~pytest_openmed.multimodal.ValidationPack` over
  tiny real assets (PNG, TIFF, native DICOM, JSON waveform).

Generated values are wholly synthetic, so sample reprs show them: a falsifying
example must be readable.  Ids are opaque counters, never identifiers.  Each
strategy draws its sizes first and builds the value in one pass from one
drawn block of bytes, so an example costs a few milliseconds
(``benchmarks/strategies.py``).
"""

from __future__ import annotations

from pytest_openmed.errors import missing_extra_text

try:  # the strategies extra: say which extra to install, not only the module missing
    import hypothesis  # noqa: F401
except ModuleNotFoundError as error:
    text = missing_extra_text("pytest_openmed.strategies", error)
    if text is None:
        raise
    raise ModuleNotFoundError(text, name=error.name) from None

from pytest_openmed.strategies.claims import (
    DEFAULT_CLAIM_CLASSES,
    MAX_SAMPLE_CLAIMS,
    ClaimsSample,
    claims_and_evidence,
)
from pytest_openmed.strategies.multimodal import MAX_SAMPLE_CASES, PACK_MEDIA, small_packs
from pytest_openmed.strategies.planner import (
    MAX_SAMPLE_PROPOSALS,
    ProposalsSample,
    proposed_tool_calls,
)

__all__ = [
    "DEFAULT_CLAIM_CLASSES",
    "MAX_SAMPLE_CASES",
    "MAX_SAMPLE_CLAIMS",
    "MAX_SAMPLE_PROPOSALS",
    "PACK_MEDIA",
    "ClaimsSample",
    "ProposalsSample",
    "claims_and_evidence",
    "proposed_tool_calls",
    "small_packs",
]
