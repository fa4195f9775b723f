"""pytest-openmed: offline clinical-AI evaluations as pytest release gates.

PYTEST_DONT_REWRITE

Everything this package produces is non-diagnostic evaluation evidence.
Importing it is cheap: engines (``pytest_openmed.claims``,
``pytest_openmed.planner``, ``pytest_openmed.multimodal``) load on demand.
"""

from __future__ import annotations

from pytest_openmed.gates import GateResult, GateStatus

__all__ = ["GateResult", "GateStatus", "__version__"]

__version__ = "0.1.0"
