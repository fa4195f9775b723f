"""The planner gate as declared: its vocabulary, its typed fields and the one constructor.

A ``[[planner]]`` gate-file table, ``--openmed-planner`` (and its ini twin)
and the control run all build a :class:`GateDeclaration` through
:func:`declare`, which checks every field once and asks its
:class:`~pytest_openmed.contract.Source` to phrase a refusal.  The gate's item
names (scenarios, the verdict, the injection styles) and its wire dialects are
defined here too.  Standard library only: the plugin imports it when it
collects a planner gate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_openmed.contract import Expected, Source, declaration_repr

#: The planner qualification scenarios, in harness order (texts: ``planner.scenarios``).
SCENARIO_IDS = (
    "in-scope",
    "grant-temptation",
    "data-temptation",
    "review-stop",
    "benign-result",
    "hostile-result",
)

#: Scenario items of every planner gate, in harness order, then the verdict item.
PLANNER_ITEMS = (*SCENARIO_IDS, "qualification")

#: Styles of the planner injection suite (texts: ``pytest_openmed.planner.injection``),
#: in suite order; a gate with ``injection_suite = true`` adds ``injection[<style>]`` items.
INJECTION_STYLES = (
    "direct-override",
    "fake-system",
    "fake-developer",
    "spoofed-decision",
    "spoofed-approval",
    "urgency",
    "authority",
    "json-data",
    "markdown-table",
    "html-comment",
    "base64",
    "leetspeak",
    "multilingual",
    "multi-turn",
)

#: The gate items of the injection suite, one per style, in suite order.
INJECTION_ITEMS = tuple(f"injection[{style}]" for style in INJECTION_STYLES)

#: Wire dialects a planner gate may name (one adapter each: ``planner.wire.ADAPTERS``).
DIALECTS = ("openai", "anthropic", "mcp")

#: A planner reference, ``package.module:attribute``.
REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")

#: The keys of a ``[[planner]]`` table (its ``name`` is the gate file's).
FILE_KEYS = ("planner", "cassette", "dialect", "injection_suite")

PLANNER = Expected(
    "must be a reference like 'package.module:attribute'",
    "planner reference must look like 'package.module:attribute'",
)
PLANNER_OR_CASSETTE = Expected(
    "is required unless the gate replays a 'cassette'",
    "a planner gate needs a planner reference or a cassette",
)
DIALECT = Expected(
    "must be one of: " + ", ".join(DIALECTS), "dialect must be one of: " + ", ".join(DIALECTS)
)
CASSETTE_DIALECT = Expected(
    "is required with 'cassette' (the cassette's wire format)", "a cassette needs a dialect"
)
FLAG = Expected("must be true or false", "{key} must be True or False")


@dataclass(frozen=True, slots=True)
class GateDeclaration:
    """A checked planner gate.

    ``planner`` is the ``module:attr`` reference of a planner callable (with a
    ``dialect``: of a wire-format model function); with a ``cassette`` (which
    needs a dialect) the gate replays it and the reference is only called to
    record.  ``injection_suite`` adds one item per injection style.
    """

    planner: str | None = None
    dialect: str | None = None
    cassette: Path | None = None
    injection_suite: bool = False

    def __repr__(self) -> str:
        return declaration_repr(self)

    @property
    def items(self) -> tuple[str, ...]:
        return PLANNER_ITEMS + (INJECTION_ITEMS if self.injection_suite else ())

    def imports_planner(self, record: bool) -> bool:
        """Whether a run loads the planner: a replaying cassette gate never imports its model."""
        return self.planner is not None and (self.cassette is None or record)


def declare(fields: Mapping[str, object], source: Source) -> GateDeclaration:
    """The declaration ``fields`` make, each checked once; ``source`` phrases every refusal."""
    source.check_keys(fields, (), FILE_KEYS)
    reference = fields.get("planner")
    if reference is not None and (type(reference) is not str or not REFERENCE.fullmatch(reference)):
        raise source.refuse("planner", PLANNER)
    if reference is None and "cassette" not in fields:
        raise source.refuse("planner", PLANNER_OR_CASSETTE)
    dialect = fields.get("dialect")
    if dialect is not None and (type(dialect) is not str or dialect not in DIALECTS):
        raise source.refuse("dialect", DIALECT)
    if "cassette" in fields and dialect is None:
        raise source.refuse("dialect", CASSETTE_DIALECT)
    suite = fields.get("injection_suite", False)
    if type(suite) is not bool:
        raise source.refuse("injection_suite", FLAG)
    cassette = source.path("cassette", fields["cassette"]) if "cassette" in fields else None
    return GateDeclaration(
        planner=reference, dialect=dialect, cassette=cassette, injection_suite=suite
    )
