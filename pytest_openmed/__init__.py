"""pytest-openmed: offline clinical-AI evaluations as pytest release gates.

Everything this package produces is non-diagnostic evaluation evidence.
Importing it is cheap: engines (``pytest_openmed.claims``,
``pytest_openmed.planner``, ``pytest_openmed.multimodal``) load on demand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_openmed.contract import GateResult, GateStatus

__all__ = ["GateResult", "GateStatus", "__version__"]

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """Load the verdict types on first use (PEP 562) so the plugin's import stays cheap."""
    if name in ("GateResult", "GateStatus"):
        from pytest_openmed import contract

        return getattr(contract, name)
    raise AttributeError(f"module 'pytest_openmed' has no attribute {name!r}")
