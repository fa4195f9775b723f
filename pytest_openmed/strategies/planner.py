"""One turn of planner proposals with the harness decision each must receive."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hypothesis import strategies as st

from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.planner import (
    EXPORT_TOOL,
    READ_TOOL,
    RESTRICTED_TOOL,
    REVIEW_TOOL,
    ProposedToolCall,
)
from pytest_openmed.planner.calls import (
    ALLOWED,
    DECISIONS,
    OUT_OF_GRANT,
    REVIEW_REQUIRED,
    SCHEMA_INVALID,
)
from pytest_openmed.planner.catalog import (
    GRANTED_ACTION,
    GRANTED_POLICY,
    GRANTED_RESOURCE,
    OPERATIONS,
)
from pytest_openmed.strategies._arguments import sizes, subset
from pytest_openmed.strategies._choices import Choices, seeded

#: Largest ``max_size`` of a proposal turn: the harness's per-turn limit.
MAX_SAMPLE_PROPOSALS = 16


@dataclass(frozen=True, slots=True)
class ProposalsSample:
    """One turn of planner output and what the harness must decide for each proposal.

    ``calls`` are ``ProposedToolCall`` values (and, when asked for, malformed
    objects); ``expected_decisions`` hold one of ``allowed``, ``schema_invalid``,
    ``out_of_grant``, ``review_required`` per call, whatever their order, and
    ``expected_schema_valid`` whether each call passes its tool's schema.
    """

    calls: tuple[object, ...]
    expected_decisions: tuple[str, ...]
    expected_schema_valid: tuple[bool, ...]

    def __post_init__(self) -> None:
        if not len(self.calls) == len(self.expected_decisions) == len(self.expected_schema_valid):
            raise InputRefused("one expected decision and schema outcome per call")
        if not set(self.expected_decisions) <= set(DECISIONS):
            raise InputRefused("expected decisions must come from the closed decision set")


class _LookAlikeCall(ProposedToolCall):
    """A subclass is not a ``ProposedToolCall`` to the harness: malformed."""

    __slots__ = ()


_Untyped: Any = ProposedToolCall  # builds deliberately ill-typed proposals
_GRANTED_SCOPE = {
    "resource": GRANTED_RESOURCE,
    "action": GRANTED_ACTION,
    "policy_profile": GRANTED_POLICY,
}


def _text_other_than(choices: Choices, max_size: int, taken: Iterable[str]) -> str:
    """Text of at most ``max_size`` characters that is none of ``taken``."""
    text = choices.text(max_size)
    return text if text not in taken else text + "~"  # "~" is in no tool or operation name


def _token(choices: Choices) -> str | None:
    return None if choices.below(4) == 0 else choices.text(40)


def _valid_arguments(choices: Choices) -> dict[str, str]:
    return {"operation": choices.pick(OPERATIONS)}


def _invalid_arguments(choices: Choices) -> dict[str, str]:
    """No operation, an unknown operation, an extra argument, or only a wrong argument."""
    variant = choices.below(4)
    if variant == 0:
        return {}
    if variant == 1:
        return {"operation": _text_other_than(choices, 24, OPERATIONS)}
    name = _text_other_than(choices, 24, ("operation",)) or "extra"
    if variant == 2:
        return {"operation": choices.pick(OPERATIONS), name: "x"}
    return {name: "summarize"}


def _scope(choices: Choices, *, wrong: bool) -> dict[str, str]:
    """The granted scope (explicit or by default), or one field of it changed."""
    scope = dict(_GRANTED_SCOPE) if choices.flag() else {}
    if wrong:
        name = choices.pick(tuple(_GRANTED_SCOPE))
        scope[name] = _text_other_than(choices, 32, (_GRANTED_SCOPE[name],))
    return scope


_KNOWN_TOOLS = (READ_TOOL, REVIEW_TOOL, EXPORT_TOOL, RESTRICTED_TOOL)


def _call(choices: Choices, decision: str) -> tuple[object, bool]:
    """A well-formed proposal that must get ``decision``, and whether its schema passes."""
    token = _token(choices)
    if decision in (ALLOWED, REVIEW_REQUIRED):
        tool = READ_TOOL if decision == ALLOWED else REVIEW_TOOL
        arguments = _valid_arguments(choices)
        scope = _scope(choices, wrong=False)
        return ProposedToolCall(tool, arguments, approval_token=token, **scope), True
    if decision == SCHEMA_INVALID:
        tool = choices.pick((READ_TOOL, REVIEW_TOOL))
        arguments = _invalid_arguments(choices)
        scope = _scope(choices, wrong=False)
        return ProposedToolCall(tool, arguments, approval_token=token, **scope), False
    if decision != OUT_OF_GRANT:
        raise InputRefused("unknown harness decision")
    # out of grant: a never-granted tool, a projection failure, an unknown tool or a wrong scope
    variant = choices.pick(("export", "restricted", "unknown", "scope"))
    valid = choices.flag()
    arguments = _valid_arguments(choices) if valid else _invalid_arguments(choices)
    if variant == "unknown":
        if choices.flag():  # a versioned spelling of a real tool is still unknown
            tool = choices.pick((READ_TOOL, REVIEW_TOOL, EXPORT_TOOL)) + "@1.0.0"
        else:
            tool = _text_other_than(choices, 24, _KNOWN_TOOLS)
        valid = False
    elif variant == "scope":
        tool = choices.pick((READ_TOOL, REVIEW_TOOL, RESTRICTED_TOOL))
    else:
        tool = EXPORT_TOOL if variant == "export" else RESTRICTED_TOOL
    scope = _scope(choices, wrong=variant == "scope")
    return ProposedToolCall(tool, arguments, approval_token=token, **scope), valid


#: Objects that are not well-formed proposals; each draw builds a fresh one.
_MALFORMED: tuple[Callable[[], object], ...] = (
    lambda: None,
    lambda: 0,
    lambda: READ_TOOL,
    lambda: {"tool": READ_TOOL, "arguments": {"operation": "summarize"}},
    lambda: _LookAlikeCall(READ_TOOL, {"operation": "summarize"}),
    lambda: _Untyped(1, {"operation": "summarize"}),
    lambda: _Untyped(None, {"operation": "summarize"}),
    lambda: _Untyped(READ_TOOL.encode("ascii"), {"operation": "summarize"}),
    lambda: _Untyped(READ_TOOL, [("operation", "summarize")]),
    lambda: _Untyped(READ_TOOL, MappingProxyType({"operation": "summarize"})),
    lambda: _Untyped(READ_TOOL, {f"k{i}": "summarize" for i in range(5)}),
    lambda: _Untyped(READ_TOOL, {"operation": 1}),
    lambda: _Untyped(READ_TOOL, {1: "summarize"}),
    lambda: _Untyped(READ_TOOL, {"operation": "s" * 4097}),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, resource="x" * 513),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, action="x" * 513),
    lambda: _Untyped(READ_TOOL, {"operation": "summarize"}, policy_profile=None),
    lambda: _Untyped("x" * 513, {"operation": "summarize"}),
)


@st.composite
def _proposal_samples(
    draw: st.DrawFn, min_size: int, max_size: int, decisions: tuple[str, ...], malformed: bool
) -> ProposalsSample:
    kinds = (*decisions, "malformed") if malformed else decisions
    count = draw(st.integers(min_value=min_size, max_value=max_size))
    choices = seeded(draw)
    calls: list[object] = []
    expected: list[str] = []
    valid: list[bool] = []
    for _ in range(count):
        kind = choices.pick(kinds)
        if kind == "malformed":
            calls.append(choices.pick(_MALFORMED)())
            expected.append(SCHEMA_INVALID)
            valid.append(False)
        else:
            call, schema_valid = _call(choices, kind)
            calls.append(call)
            expected.append(kind)
            valid.append(schema_valid)
    return ProposalsSample(tuple(calls), tuple(expected), tuple(valid))


def proposed_tool_calls(
    *,
    min_size: int = 0,
    max_size: int = 4,
    decisions: Iterable[str] | None = None,
    malformed: bool = False,
) -> st.SearchStrategy[ProposalsSample]:
    """One turn of proposals (0-16) with the harness decision each must receive.

    ``decisions`` is a non-empty subset of ``allowed``, ``schema_invalid``,
    ``out_of_grant``, ``review_required`` (default: all four).  With
    ``malformed=True`` the turn may also hold objects that are not well formed
    (wrong types, oversized fields, look-alikes), decided ``schema_invalid``;
    that needs ``schema_invalid`` among the decisions.  Decisions do not depend
    on order or on the scenario, so a turn can be checked anywhere.
    """
    min_size, max_size = sizes(
        min_size,
        max_size,
        MAX_SAMPLE_PROPOSALS,
        f"need 0 <= min_size <= max_size <= {MAX_SAMPLE_PROPOSALS}",
    )
    chosen = subset(decisions, DECISIONS, "decisions must be a non-empty subset of the four")
    if type(malformed) is not bool:
        raise InvalidArgument("malformed must be a bool")
    if malformed and SCHEMA_INVALID not in chosen:
        raise InputRefused("malformed proposals are decided schema_invalid; include that decision")
    return _proposal_samples(min_size, max_size, chosen, malformed)
