"""The Wilson score interval, re-exported from the shared core (:mod:`pytest_openmed._wilson`).

PYTEST_DONT_REWRITE

The rule lives in one place; the multimodal engine and the planner's
injection suite both import it from the core, and this module keeps the
engine's historical import path working.
"""

from __future__ import annotations

from pytest_openmed._wilson import Z_95, WilsonInterval, wilson_interval

__all__ = ["Z_95", "WilsonInterval", "wilson_interval"]
