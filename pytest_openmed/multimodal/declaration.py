"""The ``[[pack]]`` gate as declared: its typed inputs, and the one constructor that checks them.

A ``[[pack]]`` gate-file table builds a :class:`GateDeclaration` through
:func:`declare`, which checks every field once and asks its
:class:`~pytest_openmed.contract.Source` to phrase a refusal; the evaluator
reads the typed values.  Light on purpose: the plugin imports it when it
collects a gate file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from pytest_openmed._validate import check_int, check_text
from pytest_openmed.contract import (
    NAME_PATTERN,
    Expected,
    Rule,
    Source,
    declaration_repr,
    rule_decision,
)

from .limits import MAX_CANDIDATES, MAX_MIN_CELL, MIN_CELL

#: The keys of a ``[[pack]]`` table (its ``name`` is the gate file's).
FILE_REQUIRED = ("pack", "mappings", "reviews")
FILE_OPTIONAL = ("adjudications", "min_cell", "candidate", "candidates")

PATHS = Expected(
    "must be an array of path strings relative to the gate file", "{key} must be a list of paths"
)
MIN_CELL_RANGE = Expected(
    f"must be an integer from {MIN_CELL} to {MAX_MIN_CELL}",
    f"min_cell must be a whole number from {MIN_CELL} to {MAX_MIN_CELL}",
)
ONE_CANDIDATE_KEY = Expected(
    "or 'candidates' is required (exactly one of the two)",
    "a pack gate names its candidate or candidates (exactly one of the two)",
)
CANDIDATE = Expected(
    "must be the evaluator-side name of one pack candidate",
    "candidate must be the evaluator-side name of one pack candidate",
)
CANDIDATES = Expected(
    "must be an array of one or two distinct evaluator-side candidate names",
    "candidates must be one or two distinct evaluator-side candidate names",
)


@dataclass(frozen=True, slots=True)
class GateDeclaration:
    """A checked pack gate: the stored documents to read and the candidates to judge.

    ``min_cell`` of ``None`` takes the run's; each candidate is one gate item.
    """

    pack: Path
    mappings: tuple[Path, ...]
    reviews: tuple[Path, ...]
    candidates: tuple[str, ...]
    adjudications: tuple[Path, ...] = ()
    min_cell: int | None = None

    def __repr__(self) -> str:
        return declaration_repr(self)

    @property
    def items(self) -> tuple[str, ...]:
        return self.candidates


def declare(fields: Mapping[str, object], source: Source) -> GateDeclaration:
    """The declaration ``fields`` make, each checked once; ``source`` phrases every refusal."""
    source.check_keys(fields, FILE_REQUIRED, FILE_OPTIONAL)
    min_cell = fields.get("min_cell")
    return GateDeclaration(
        pack=source.path("pack", fields["pack"]),
        mappings=_paths(fields, "mappings", source),
        reviews=_paths(fields, "reviews", source),
        adjudications=_paths(fields, "adjudications", source),
        min_cell=None
        if min_cell is None
        else check_int(
            min_cell, MIN_CELL, MAX_MIN_CELL, lambda: source.refuse("min_cell", MIN_CELL_RANGE)
        ),
        candidates=_candidates(fields, source),
    )


def _paths(fields: Mapping[str, object], key: str, source: Source) -> tuple[Path, ...]:
    value = fields.get(key, [])
    if not isinstance(value, list | tuple):
        raise source.refuse(key, PATHS)
    return tuple(source.path(key, item) for item in value)


def _candidates(fields: Mapping[str, object], source: Source) -> tuple[str, ...]:
    """``candidate = "a"`` or ``candidates = ["a", "b"]``: one gate item per candidate."""
    if ("candidate" in fields) == ("candidates" in fields):
        raise source.refuse("candidate", ONE_CANDIDATE_KEY)
    if "candidate" in fields:
        return (
            check_text(
                fields["candidate"], NAME_PATTERN, lambda: source.refuse("candidate", CANDIDATE)
            ),
        )
    names = fields["candidates"]
    if (
        not isinstance(names, list | tuple)
        or not 1 <= len(names) <= MAX_CANDIDATES
        or not all(type(n) is str and NAME_PATTERN.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
    ):
        raise source.refuse("candidates", CANDIDATES)
    return tuple(names)


#: The failure line of each decision reason a pack verdict names
#: (``contract.RULE_TEXTS`` finds it; stored reports are rendered with it too).
RULE_TEXTS: Mapping[str, Rule] = MappingProxyType(
    {
        "safety": rule_decision("decision blocked: a privacy or provenance rating failed"),
        "quality_utility": rule_decision("decision blocked: a quality or utility failure"),
        "disagreement": rule_decision(
            "decision hold: a quality/utility disagreement without adjudication"
        ),
        "all_abstained": rule_decision("decision hold: the candidate abstained on every unit"),
    }
)
