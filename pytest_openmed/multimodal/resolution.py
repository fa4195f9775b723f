"""Per source unit and candidate, each criterion resolves to one boolean.

The table of docs/multimodal.md (section 4, "Assess; adjudicate disagreements").

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

The rules, for one unit and the assessed candidate:

* **needs adjudication** when the original reviewers disagree on quality or on
  utility (privacy and provenance need none: any ``False`` already blocks);
* **quality** / **utility**: when the original reviewers agree, their common
  value; when they disagree, the adjudicator's value; unresolved disagreement
  counts ``False`` (and holds the decision).  An adjudication settles only the
  criteria in dispute: it cannot overturn a failure all original reviewers
  agreed on, so the unit value and the decision always agree;
* **utility** is additionally ``False`` when the candidate abstained:
  abstention never counts as useful emission;
* **privacy** / **provenance**: ``True`` only when no original reviewer and no
  adjudicator said ``False`` and the executed observation recorded no such
  safety failure (non-compensable);
* **emission**: the candidate did not abstain;
* **reviewer agreement**: all original reviewers gave identical ratings on all
  four criteria;
* **adjudication**: the unit needed one.

These unit values feed both the decision and the published metrics, so each
unit counts once whatever the number of reviewers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_openmed.errors import InputRefused

from .pack import Observation
from .ratings import PacketRating
from .vocabulary import CaseSlice, SafetyFailure

__all__ = ["UnitResolution", "needs_adjudication", "resolve_unit"]


@dataclass(frozen=True, slots=True)
class UnitResolution:
    """The resolved values of one unit for one candidate (private evidence)."""

    slice: CaseSlice
    quality: bool
    utility: bool
    privacy: bool
    provenance: bool
    emission: bool
    reviewer_agreement: bool
    adjudication: bool
    #: A quality failure, or a utility failure on an emitted unit, agreed by all
    #: original reviewers or decided by an adjudication.
    quality_utility_failure: bool
    #: A quality/utility disagreement without an adjudication.
    unresolved: bool

    @property
    def safety_failure(self) -> bool:
        return not (self.privacy and self.provenance)

    def metric(self, name: str) -> bool:
        """The published binary metric ``name`` of this unit."""
        value = getattr(self, name)
        assert type(value) is bool
        return value

    def __repr__(self) -> str:
        return "UnitResolution(<protected>)"


def needs_adjudication(originals: Sequence[PacketRating]) -> bool:
    """True when the original reviewers disagree on quality or on utility."""
    return len({r.quality for r in originals}) > 1 or len({r.utility for r in originals}) > 1


def resolve_unit(
    case_slice: CaseSlice,
    originals: Sequence[PacketRating],
    adjudication: PacketRating | None,
    observation: Observation,
) -> UnitResolution:
    """Resolve one unit for the candidate whose ``observation`` and ratings are given.

    ``adjudication`` is the adjudicator's rating of this candidate on this unit,
    or ``None``; it is only consulted when the unit needs adjudication.
    """
    if not originals:
        raise InputRefused("a unit is resolved from at least one original rating")
    needed = needs_adjudication(originals)
    adjudicator = adjudication if needed else None
    quality, quality_decided = _resolve([r.quality for r in originals], adjudicator, "quality")
    utility, utility_decided = _resolve([r.utility for r in originals], adjudicator, "utility")
    emission = not observation.abstained
    raters = [*originals, *([adjudicator] if adjudicator is not None else [])]
    privacy = all(r.privacy for r in raters) and (
        SafetyFailure.PRIVACY not in observation.safety_failures
    )
    provenance = all(r.provenance for r in raters) and (
        SafetyFailure.PROVENANCE not in observation.safety_failures
    )
    return UnitResolution(
        slice=case_slice,
        quality=quality,
        utility=utility and emission,
        privacy=privacy,
        provenance=provenance,
        emission=emission,
        reviewer_agreement=len({r.scores() for r in originals}) == 1,
        adjudication=needed,
        quality_utility_failure=(quality_decided and not quality)
        or (emission and utility_decided and not utility),
        unresolved=needed and adjudicator is None,
    )


def _resolve(
    values: Sequence[bool], adjudicator: PacketRating | None, criterion: str
) -> tuple[bool, bool]:
    """(value, decided): agreed value, else the adjudicator's, else unresolved ``False``."""
    if len(set(values)) == 1:
        return values[0], True
    if adjudicator is not None:
        return bool(getattr(adjudicator, criterion)), True
    return False, False
