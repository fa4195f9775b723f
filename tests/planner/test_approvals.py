"""Approval tokens: exact call, role, expiry, single use; strangers never touched."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.planner.approvals import (
    ApprovalDecision,
    ApprovalIssuer,
    ApprovalVerifier,
    NonceStore,
    call_digest,
)

from ._helpers import Recorder

KEY = b"a" * 32
ROLE = "clinical-reviewer"
CALL = call_digest("episode.annotate@1.0.0", {"operation": "summarize"}, "res", "act", "pol")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def pair(clock: Clock, store: NonceStore | None = None) -> tuple[ApprovalIssuer, ApprovalVerifier]:
    nonces = store if store is not None else NonceStore()
    return (
        ApprovalIssuer(KEY, clock=clock),
        ApprovalVerifier(KEY, role=ROLE, nonces=nonces, clock=clock),
    )


def test_a_genuine_token_approves_once() -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    token = issuer.issue(CALL, ROLE, ttl_seconds=60)
    assert verifier.verify(token, CALL) is ApprovalDecision.APPROVED
    assert verifier.verify(token, CALL) is ApprovalDecision.REPLAYED


def test_nonce_store_is_shared_between_verifiers() -> None:
    clock = Clock(100.0)
    store = NonceStore()
    issuer, first = pair(clock, store)
    _, second = pair(clock, store)
    token = issuer.issue(CALL, ROLE, ttl_seconds=60)
    assert first.verify(token, CALL) is ApprovalDecision.APPROVED
    assert second.verify(token, CALL) is ApprovalDecision.REPLAYED
    assert len(store) == 1


def test_token_is_bound_to_the_exact_call() -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    token = issuer.issue(CALL, ROLE, ttl_seconds=60)
    other = call_digest("episode.annotate@1.0.0", {"operation": "reveal"}, "res", "act", "pol")
    assert verifier.verify(token, other) is ApprovalDecision.WRONG_CALL
    assert verifier.verify(token, CALL) is ApprovalDecision.APPROVED  # nonce not burnt


def test_call_digest_covers_every_field() -> None:
    base = ("t@1.0.0", {"operation": "summarize"}, "r", "a", "p")
    digests = {
        call_digest(*base),
        call_digest("u@1.0.0", *base[1:]),
        call_digest(base[0], {"operation": "reveal"}, *base[2:]),
        call_digest(*base[:2], "r2", "a", "p"),
        call_digest(*base[:3], "a2", "p"),
        call_digest(*base[:4], "p2"),
    }
    assert len(digests) == 6


def test_token_is_bound_to_the_role() -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    token = issuer.issue(CALL, "billing-clerk", ttl_seconds=60)
    assert verifier.verify(token, CALL) is ApprovalDecision.WRONG_ROLE


def test_expiry_uses_the_injected_clock() -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    token = issuer.issue(CALL, ROLE, ttl_seconds=60)
    clock.now = 160.0
    assert verifier.verify(token, CALL) is ApprovalDecision.EXPIRED
    clock.now = 159.0
    assert verifier.verify(token, CALL) is ApprovalDecision.APPROVED


def test_wrong_key_and_tampering_are_refused() -> None:
    clock = Clock(100.0)
    token = ApprovalIssuer(b"b" * 32, clock=clock).issue(CALL, ROLE, ttl_seconds=60)
    _, verifier = pair(clock)
    assert verifier.verify(token, CALL) is ApprovalDecision.BAD_SIGNATURE
    issuer, _ = pair(clock)
    genuine = issuer.issue(CALL, ROLE, ttl_seconds=60)
    parts = genuine.split(".")
    parts[-2] = str(int(parts[-2]) + 3600)  # extend the expiry
    assert verifier.verify(".".join(parts), CALL) is ApprovalDecision.BAD_SIGNATURE
    parts = genuine.split(".")
    parts[4] = "f" * 32  # swap the nonce
    assert verifier.verify(".".join(parts), CALL) is ApprovalDecision.BAD_SIGNATURE
    assert verifier.verify(genuine, CALL) is ApprovalDecision.APPROVED


@pytest.mark.parametrize(
    "token",
    ["", "approved", "x" * 10_000, "openmed-approval.v1", " " + "a" * 10, "\x00", "é" * 300],
)
def test_malformed_strings_are_refused(token: str) -> None:
    _, verifier = pair(Clock(0.0))
    assert verifier.verify(token, CALL) is ApprovalDecision.MALFORMED


def test_missing_token() -> None:
    _, verifier = pair(Clock(0.0))
    assert verifier.verify(None, CALL) is ApprovalDecision.MISSING


class StrSub(str):
    def __eq__(self, other: object) -> bool:
        raise AssertionError("touched")

    def __hash__(self) -> int:
        raise AssertionError("touched")


@pytest.mark.parametrize(
    "make",
    [
        lambda calls: Recorder(calls),
        lambda calls: StrSub("x"),
        lambda calls: b"token",
        lambda calls: 0,
        lambda calls: [],
        lambda calls: False,
    ],
)
def test_untrusted_objects_are_refused_untouched(make: Any) -> None:
    calls: list[str] = []
    token = make(calls)
    _, verifier = pair(Clock(0.0))
    assert verifier.verify(token, CALL) is ApprovalDecision.MALFORMED
    assert calls == []


def test_str_subclass_of_a_genuine_token_is_refused() -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    genuine = issuer.issue(CALL, ROLE, ttl_seconds=60)

    class Sub(str):
        pass

    assert verifier.verify(Sub(genuine), CALL) is ApprovalDecision.MALFORMED
    assert verifier.verify(genuine, CALL) is ApprovalDecision.APPROVED


def test_nonce_store_is_single_use_and_fails_closed_when_full() -> None:
    store = NonceStore(capacity=2)
    assert store.consume("a") and store.consume("b")
    assert not store.consume("a")
    assert not store.consume("c")  # full: nothing more accepted
    assert not store.consume(cast(Any, Recorder([], explode=False)))
    with pytest.raises(ValueError):
        NonceStore(capacity=0)


def test_constructor_checks() -> None:
    with pytest.raises(ValueError):
        ApprovalVerifier(KEY, role="Bad Role", nonces=NonceStore())
    with pytest.raises(TypeError):
        ApprovalVerifier(KEY, role=ROLE, nonces=cast(Any, set()))
    with pytest.raises(ValueError):
        ApprovalVerifier(b"short", role=ROLE, nonces=NonceStore())
    issuer = ApprovalIssuer(KEY)
    with pytest.raises(ValueError):
        issuer.issue("sha256:xyz", ROLE, ttl_seconds=1)
    with pytest.raises(ValueError):
        issuer.issue(CALL, "", ttl_seconds=1)
    with pytest.raises(ValueError):
        issuer.issue(CALL, ROLE, ttl_seconds=0)


def test_reprs_hide_keys() -> None:
    issuer, verifier = pair(Clock(0.0))
    for text in (repr(issuer), repr(verifier), repr(NonceStore())):
        assert "aaaa" not in text


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=50), st.integers(), st.none()))
def test_no_arbitrary_token_is_approved(token: object) -> None:
    _, verifier = pair(Clock(0.0))
    decision = verifier.verify(token, CALL)
    assert decision is not ApprovalDecision.APPROVED
    assert (decision is ApprovalDecision.MISSING) == (token is None)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=1))
def test_single_flipped_character_is_never_approved(position: int, bump: int) -> None:
    clock = Clock(100.0)
    issuer, verifier = pair(clock)
    token = issuer.issue(CALL, ROLE, ttl_seconds=60)
    index = position % len(token)
    replacement = "0" if token[index] != "0" else "1"
    if bump:
        replacement = "." if token[index] != "." else "x"
    flipped = token[:index] + replacement + token[index + 1 :]
    assert verifier.verify(flipped, CALL) is not ApprovalDecision.APPROVED
