"""The decision for one candidate, in the precedence of docs/multimodal.md (section 4).

1. **blocked** (``safety``) — any unit whose privacy or provenance resolved
   ``False``: a ``False`` from any original reviewer or adjudicator, or a
   safety failure recorded by the executed observation.  Non-compensable: no
   majority or adjudication overrides it.
2. **blocked** (``quality_utility``) — a quality failure on any unit, or a
   utility failure on any unit where the candidate emitted, agreed by all
   original reviewers or decided by an adjudication.
3. **hold** (``disagreement``) — any quality/utility disagreement between
   original reviewers without a valid adjudication.
4. **hold** (``all_abstained``) — the candidate abstained on every unit.
5. **rubric_satisfied** (``ok``) otherwise.

No decision authorises clinical use or automatic deployment.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_openmed.errors import InputRefused

from .resolution import UnitResolution
from .vocabulary import Decision, DecisionReason

__all__ = ["decide"]


def decide(units: Sequence[UnitResolution]) -> tuple[Decision, DecisionReason]:
    """Apply the precedence to the resolved units of one candidate."""
    if not units:
        raise InputRefused("a decision needs at least one resolved unit")
    if any(unit.safety_failure for unit in units):
        return Decision.BLOCKED, DecisionReason.SAFETY
    if any(unit.quality_utility_failure for unit in units):
        return Decision.BLOCKED, DecisionReason.QUALITY_UTILITY
    if any(unit.unresolved for unit in units):
        return Decision.HOLD, DecisionReason.DISAGREEMENT
    if not any(unit.emission for unit in units):
        return Decision.HOLD, DecisionReason.ALL_ABSTAINED
    return Decision.RUBRIC_SATISFIED, DecisionReason.OK
