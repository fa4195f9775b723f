"""Capability grants: seal, window and exact coverage."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.planner.calls import GrantConstraint
from pytest_openmed.planner.grants import (
    CapabilityGrant,
    GrantDecision,
    GrantIssuer,
    GrantVerifier,
)

KEY = b"g" * 32
OTHER_KEY = b"h" * 32
SCOPE = GrantConstraint("episode.read@1.0.0", "res-1", "summarize", "minimum")
REVIEW = GrantConstraint("episode.annotate@1.0.0", "res-1", "summarize", "minimum")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def issue(clock: Clock, ttl: int = 100) -> CapabilityGrant:
    return GrantIssuer(KEY, clock=clock).issue([SCOPE, REVIEW], ttl_seconds=ttl)


def test_exact_scope_is_permitted_within_the_window() -> None:
    clock = Clock(1000.0)
    grant = issue(clock)
    verifier = GrantVerifier(KEY, clock=clock)
    assert verifier.authorize(grant, SCOPE) is GrantDecision.PERMITTED
    assert verifier.authorize(grant, REVIEW) is GrantDecision.PERMITTED
    clock.now = 1099.9
    assert verifier.authorize(grant, SCOPE) is GrantDecision.PERMITTED


@pytest.mark.parametrize(
    "request_",
    [
        SCOPE._replace(tool="episode.read"),
        SCOPE._replace(tool="episode.read@1.0.1"),
        SCOPE._replace(tool="episode.export@1.0.0"),
        SCOPE._replace(resource="res-2"),
        SCOPE._replace(resource="RES-1"),
        SCOPE._replace(action="export"),
        SCOPE._replace(policy_profile="minimum "),
    ],
)
def test_anything_but_the_exact_scope_is_not_covered(request_: GrantConstraint) -> None:
    clock = Clock(1000.0)
    assert GrantVerifier(KEY, clock=clock).authorize(issue(clock), request_) is (
        GrantDecision.NOT_COVERED
    )


def test_expiry_uses_the_injected_clock() -> None:
    clock = Clock(1000.0)
    grant = issue(clock, ttl=100)
    verifier = GrantVerifier(KEY, clock=clock)
    clock.now = 1100.0
    assert verifier.authorize(grant, SCOPE) is GrantDecision.EXPIRED
    clock.now = 999.0
    assert verifier.authorize(grant, SCOPE) is GrantDecision.NOT_YET_VALID


def test_wrong_key_is_refused() -> None:
    clock = Clock(1000.0)
    grant = issue(clock)
    assert GrantVerifier(OTHER_KEY, clock=clock).authorize(grant, SCOPE) is (
        GrantDecision.BAD_SIGNATURE
    )


@pytest.mark.parametrize(
    "change",
    [
        {"expires_at": 10**9},
        {"issued_at": 0},
        {"constraints": (SCOPE,)},
        {"constraints": (SCOPE, REVIEW, SCOPE._replace(tool="episode.export@1.0.0"))},
        {"constraints": (REVIEW, SCOPE)},
        {"signature": "sha256:" + "0" * 64},
        {"signature": "not a digest"},
    ],
)
def test_tampered_grants_are_refused(change: dict[str, Any]) -> None:
    clock = Clock(1000.0)
    tampered = dataclasses.replace(issue(clock), **change)
    assert GrantVerifier(KEY, clock=clock).authorize(tampered, SCOPE) is (
        GrantDecision.BAD_SIGNATURE
    )


def test_signature_from_another_domain_does_not_verify() -> None:
    from pytest_openmed._canonical import hmac_digest

    clock = Clock(1000.0)
    grant = issue(clock)
    forged = dataclasses.replace(grant, signature=hmac_digest(KEY, "other", grant.manifest()))
    assert GrantVerifier(KEY, clock=clock).authorize(forged, SCOPE) is GrantDecision.BAD_SIGNATURE


@pytest.mark.parametrize(
    "grant",
    [
        None,
        "grant",
        {"constraints": []},
        CapabilityGrant((cast(Any, ("a", "b", "c", "d")),), 0, 1, "x"),
        CapabilityGrant(cast(Any, [SCOPE]), 0, 1, "x"),
        CapabilityGrant((SCOPE,), cast(Any, 1.0), 2, "x"),
        CapabilityGrant((SCOPE,), 0, 2, cast(Any, None)),
        CapabilityGrant((GrantConstraint(cast(Any, 1), "b", "c", "d"),), 0, 2, "x"),
    ],
)
def test_malformed_grants_are_refused_without_touching_them(grant: object) -> None:
    assert GrantVerifier(KEY).authorize(grant, SCOPE) is GrantDecision.MALFORMED


def test_malformed_request_is_refused() -> None:
    clock = Clock(1000.0)
    grant = issue(clock)
    verifier = GrantVerifier(KEY, clock=clock)
    assert verifier.authorize(grant, cast(Any, tuple(SCOPE))) is GrantDecision.MALFORMED
    bad = GrantConstraint(cast(Any, None), "res-1", "summarize", "minimum")
    assert verifier.authorize(grant, bad) is GrantDecision.MALFORMED


@pytest.mark.parametrize("key", [b"short", "k" * 32, bytearray(32)])
def test_keys_are_checked(key: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        GrantIssuer(cast(Any, key))
    with pytest.raises((TypeError, ValueError)):
        GrantVerifier(cast(Any, key))


@pytest.mark.parametrize("ttl", [0, -1, 7 * 24 * 3600 + 1, 1.5, True])
def test_issuer_refuses_bad_lifetimes(ttl: object) -> None:
    with pytest.raises(ValueError, match="grant lifetime"):
        GrantIssuer(KEY).issue([SCOPE], ttl_seconds=cast(Any, ttl))


def test_issuer_refuses_bad_constraints_and_too_many() -> None:
    issuer = GrantIssuer(KEY)
    with pytest.raises(TypeError):
        issuer.issue([cast(Any, ("a", "b", "c", "d"))], ttl_seconds=1)
    with pytest.raises(TypeError):
        issuer.issue([SCOPE._replace(resource="")], ttl_seconds=1)
    with pytest.raises(ValueError, match="too many"):
        issuer.issue(iter([SCOPE] * 65), ttl_seconds=1)


def test_reprs_hide_keys_and_scopes() -> None:
    clock = Clock(1000.0)
    grant = issue(clock)
    for text in (repr(grant), repr(GrantIssuer(KEY)), repr(GrantVerifier(KEY)), repr(SCOPE)):
        assert "res-1" not in text and "episode" not in text and "ggg" not in text


_part = st.text(min_size=1, max_size=20)


@settings(max_examples=100, deadline=None)
@given(
    granted=st.lists(st.tuples(_part, _part, _part, _part), min_size=1, max_size=5),
    asked=st.tuples(_part, _part, _part, _part),
)
def test_coverage_is_exact_membership(
    granted: list[tuple[str, str, str, str]], asked: tuple[str, str, str, str]
) -> None:
    clock = Clock(5.0)
    constraints = [GrantConstraint(*item) for item in granted]
    grant = GrantIssuer(KEY, clock=clock).issue(constraints, ttl_seconds=10)
    decision = GrantVerifier(KEY, clock=clock).authorize(grant, GrantConstraint(*asked))
    expected = GrantDecision.PERMITTED if asked in granted else GrantDecision.NOT_COVERED
    assert decision is expected
