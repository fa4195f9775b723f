"""Audit findings: caller code that raises, and nested report records that skip validation.

Each test failed before its fix.  A raising property, mapping or iterator is
input like any other: it must end in a fixed ``ValueError``/``TypeError`` that
carries none of the caller's exception text.
"""

from __future__ import annotations

import secrets
import traceback
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any, NoReturn

import pytest

from pytest_openmed.claims import (
    BootstrapInterval,
    ClaimClassMetrics,
    UnsupportedClaimsReport,
    messages,
    score_summary_claims,
)

from ._support import Counting, assert_fixed, claim, evidence

CANARY = f"canaryaudit{secrets.token_hex(6)}"


def _raise(kind: type[Exception]) -> NoReturn:
    raise kind(CANARY)


class RaisingProperty:
    """A typed record one of whose fields raises when read."""

    def __init__(self, fields: dict[str, Any], raising: str, kind: type[Exception]) -> None:
        self._fields, self._raising, self._kind = fields, raising, kind

    def __getattr__(self, name: str) -> Any:
        if name == self._raising:
            _raise(self._kind)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None


class RaisingMapping(Mapping[str, Any]):
    def __init__(self, fields: dict[str, Any], kind: type[Exception]) -> None:
        self._fields, self._kind = fields, kind

    def __getitem__(self, name: str) -> Any:
        _raise(self._kind)

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


class RaisingClass:
    """An object whose ``__class__`` raises, so even ``isinstance`` on it fails."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        _raise(RuntimeError)


def raising_iterator(items: list[Any], kind: type[Exception]) -> Iterator[Any]:
    yield from items
    _raise(kind)


class RaisingIterable:
    def __iter__(self) -> Iterator[Any]:
        _raise(RuntimeError)


KINDS = [RuntimeError, ValueError, TypeError, KeyError, AttributeError]


def cases() -> list[Callable[[], object]]:
    good_claim, good_row = claim("c", ["e"]), evidence("e")
    out: list[Callable[[], object]] = []
    for kind in KINDS:
        # From a property, AttributeError means "no such field", as getattr has it.
        if kind is not AttributeError:
            for field in ("claim_id", "claim_class", "claim_key", "evidence_ids"):
                record = RaisingProperty(good_claim, field, kind)
                out.append(partial(score_summary_claims, [record], [good_row]))
            for field in ("evidence_id", "approved", "relation", "supports", "claim_key"):
                row = RaisingProperty(good_row, field, kind)
                out.append(partial(score_summary_claims, [good_claim], [row]))
        cited = {**good_claim, "evidence_ids": raising_iterator(["e"], kind)}
        out += [
            partial(score_summary_claims, [RaisingMapping(good_claim, kind)], []),
            partial(score_summary_claims, [], [RaisingMapping(good_row, kind)]),
            partial(score_summary_claims, raising_iterator([good_claim], kind), []),
            partial(score_summary_claims, [], raising_iterator([good_row], kind)),
            partial(score_summary_claims, [cited], [good_row]),
        ]
    out += [
        partial(score_summary_claims, [RaisingClass()], []),
        partial(score_summary_claims, [], [RaisingClass()]),
        partial(score_summary_claims, RaisingIterable(), []),
        partial(score_summary_claims, [], RaisingIterable()),
        partial(score_summary_claims, [{**good_claim, "evidence_ids": RaisingIterable()}], []),
    ]
    return out


@pytest.mark.parametrize("index", range(len(cases())))
def test_caller_code_that_raises_ends_in_a_fixed_message_without_its_text(index: int) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        cases()[index]()
    assert_fixed(caught.value)
    shown = (
        str(caught.value) + repr(caught.value) + "".join(traceback.format_exception(caught.value))
    )
    assert CANARY not in shown


def test_a_guarded_iterator_is_still_consumed_at_most_limit_plus_one() -> None:
    rows = Counting(evidence(f"e{index}") for index in range(300_000))
    with pytest.raises(ValueError) as caught:
        score_summary_claims([], rows, n_resamples=1)
    assert str(caught.value) == messages.TOO_MANY_EVIDENCE
    assert rows.consumed == 200_001


def test_an_iterator_that_raises_is_reported_as_such() -> None:
    with pytest.raises(TypeError) as caught:
        score_summary_claims(raising_iterator([], RuntimeError), [])
    assert str(caught.value) == messages.ITERATION_FAILED
    with pytest.raises(TypeError) as caught:
        score_summary_claims([RaisingProperty(claim(), "claim_key", RuntimeError)], [])
    assert str(caught.value) == messages.RECORD_UNREADABLE


# --- nested report records -------------------------------------------------------------------


class UncheckedInterval(BootstrapInterval):
    """A subclass that skips validation: typed input the report must not trust."""

    __slots__ = ()

    def __post_init__(self) -> None:
        pass


class UncheckedMetrics(ClaimClassMetrics):
    __slots__ = ()

    def __post_init__(self) -> None:
        pass


def _interval(**changes: Any) -> BootstrapInterval:
    fields: dict[str, Any] = {
        "lower": 0.0,
        "upper": 1.0,
        "point": 0.5,
        "n_resamples": 10,
        "alpha": 0.05,
        "degenerate": False,
    }
    return UncheckedInterval(**{**fields, **changes})


def _metrics(interval: BootstrapInterval, **changes: Any) -> ClaimClassMetrics:
    fields: dict[str, Any] = {
        "claim_count": 2,
        "counts": {"supported": 1, "contradicted": 0, "unresolved": 1, "uncited": 0},
        "unsupported_count": 1,
        "unsupported_rate": 0.5,
        "interval": interval,
    }
    return UncheckedMetrics(**{**fields, **changes})


def _report(metrics: ClaimClassMetrics) -> UnsupportedClaimsReport:
    digest = score_summary_claims([], []).evidence_digest
    return UnsupportedClaimsReport(
        overall=metrics,
        by_claim_class={"lab": metrics},
        evidence_digest=digest,
        evidence_count=0,
        seed=0,
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda: _report(_metrics(_interval(lower=-3.0, upper=7.0))),
        lambda: _report(_metrics(_interval(alpha=5.0))),
        lambda: _report(_metrics(_interval(degenerate="no"))),
        lambda: _report(_metrics(_interval(), claim_count=-2)),
        lambda: _report(_metrics(_interval(), unsupported_rate=0.75)),
        lambda: _report(_metrics(_interval(), counts={"supported": 1})),
        lambda: ClaimClassMetrics(
            claim_count=2,
            counts={"supported": 1, "contradicted": 0, "unresolved": 1, "uncited": 0},
            unsupported_count=1,
            unsupported_rate=0.5,
            interval=_interval(lower=-3.0),
        ),
    ],
)
def test_nested_records_that_skipped_validation_are_revalidated(
    build: Callable[[], object],
) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        build()
    assert_fixed(caught.value)


def test_valid_nested_subclass_records_are_stored_as_checked_immutable_values() -> None:
    report = _report(_metrics(_interval()))
    for metrics in (report.overall, *report.by_claim_class.values()):
        assert type(metrics) is ClaimClassMetrics
        assert type(metrics.interval) is BootstrapInterval
        with pytest.raises(TypeError):
            metrics.counts["supported"] = 99  # type: ignore[index]
    assert UnsupportedClaimsReport.from_json(report.to_json()) == report


# --- configuration and report numbers that run caller code ------------------------------------


class RaisingIndex:
    def __index__(self) -> int:
        _raise(ValueError)


class RaisingFloat(float):
    def __float__(self) -> float:
        _raise(RuntimeError)


class RaisingInt(int):
    def __float__(self) -> float:
        _raise(RuntimeError)


@pytest.mark.parametrize(
    "build",
    [
        partial(score_summary_claims, [], [], n_resamples=RaisingIndex()),  # type: ignore[arg-type]
        partial(score_summary_claims, [], [], seed=RaisingIndex()),  # type: ignore[arg-type]
        partial(score_summary_claims, [], [], alpha=RaisingFloat(0.05)),
        partial(score_summary_claims, [], [], alpha=RaisingInt(0)),
        lambda: _report(_metrics(_interval(lower=RaisingFloat(0.0)))),
        lambda: BootstrapInterval(
            lower=RaisingFloat(0.0),
            upper=1.0,
            point=0.5,
            n_resamples=10,
            alpha=0.05,
            degenerate=False,
        ),
    ],
)
def test_numbers_whose_conversion_raises_end_in_a_fixed_message(
    build: Callable[[], object],
) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        build()
    assert_fixed(caught.value)
    assert CANARY not in "".join(traceback.format_exception(caught.value))


# --- a list that grows while it is read ------------------------------------------------------


def test_a_claims_list_that_grows_while_read_is_scored_as_given() -> None:
    """The limit and draw budget are checked on the list as handed over; records a
    property appends during scoring are not read (no way past the limits)."""
    claims: list[Any] = []

    class Growing:
        claim_class = "lab"
        evidence_ids = ()

        def __init__(self, index: int) -> None:
            self.claim_id = index

        @property
        def claim_key(self) -> str:
            claims.append(Growing(len(claims)))
            return "k"

    claims.extend(Growing(index) for index in range(3))
    report = score_summary_claims(claims, [], n_resamples=5)
    assert report.overall.claim_count == 3


# --- claim keys changed after their check ----------------------------------------------------


def test_a_claim_key_changed_by_caller_code_after_its_check_is_not_read_again() -> None:
    """The seed: the evaluator fingerprints a claim key immediately.  A citation
    iterator that then changes the key cannot smuggle unchecked values in."""
    key: list[Any] = ["a"]

    def citations() -> Iterator[str]:
        key.append(b"not json")
        yield "e"

    rows = [evidence("e", claim_key=["a"])]
    report = score_summary_claims([claim("c", citations(), claim_key=key)], rows)
    assert report.overall.counts["supported"] == 1


def test_a_link_key_changed_by_caller_code_after_its_check_is_not_read_again() -> None:
    link: list[Any] = ["a"]

    class Changing:
        claim_id, claim_class, evidence_ids = "c", "lab", ("e",)

        @property
        def claim_key(self) -> list[str]:
            link.append(float("nan"))
            return ["a"]

    report = score_summary_claims([Changing()], [evidence("e", claim_key=link)])
    assert report.overall.counts["supported"] == 1
