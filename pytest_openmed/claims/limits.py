"""The documented limits of the claims engine, defined once.

The checks (:mod:`.records`, :mod:`.report`, :mod:`._gate`) and the fixed
messages that quote a limit (:mod:`.messages`) both read them from here.
"""

from __future__ import annotations

from pytest_openmed._validate import MAX_RESAMPLES

__all__ = [
    "MAX_CITATIONS",
    "MAX_CLAIMS",
    "MAX_DRAWS",
    "MAX_EVIDENCE",
    "MAX_INPUT_BYTES",
    "MAX_KEY_DEPTH",
    "MAX_KEY_NODES",
    "MAX_REPORT_CHARS",
    "MAX_RESAMPLES",
]

#: Claims, evidence rows and citations of one claim, per evaluation.
MAX_CLAIMS = 100_000
MAX_EVIDENCE = 200_000
MAX_CITATIONS = 512
#: Containers nested in one claim key, and the nodes of one key.
MAX_KEY_DEPTH = 32
MAX_KEY_NODES = 10_000
#: Claim draws of one evaluation: 2 x claims x resamples (overall plus per-class intervals).
MAX_DRAWS = 20_000_000
#: Characters of one stored claims report.
MAX_REPORT_CHARS = 64 * 1024 * 1024
#: Largest claims or evidence file a gate reads.
MAX_INPUT_BYTES = 256 * 1024 * 1024
