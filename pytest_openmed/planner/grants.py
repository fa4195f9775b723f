"""HMAC-signed capability grants: who may call which tool, where, how.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Authority is a signed manifest, not a list the harness happens to hold: the
issuer seals the exact ``tool@version``/resource/action/policy tuples with an
expiry, and the verifier re-derives the seal before it looks at coverage.  A
tampered, expired, not-yet-valid or wrong-key grant permits nothing.  Clocks
are injectable so expiry is tested without sleeping.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pytest_openmed._canonical import hmac_digest, hmac_matches, require_key
from pytest_openmed._validate import bounded
from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.planner.calls import GrantConstraint

__all__ = [
    "GRANT_DOMAIN",
    "MAX_GRANT_CONSTRAINTS",
    "MAX_GRANT_TTL_SECONDS",
    "CapabilityGrant",
    "Clock",
    "GrantDecision",
    "GrantIssuer",
    "GrantVerifier",
]

#: HMAC domain of grant seals; a MAC made for any other purpose never verifies here.
GRANT_DOMAIN = "pytest-openmed/planner/capability-grant/v1"
MAX_GRANT_CONSTRAINTS = 64
MAX_GRANT_TTL_SECONDS = 7 * 24 * 3600
_MAX_FIELD_CHARS = 512

Clock = Callable[[], float]


class GrantDecision(enum.Enum):
    """The verifier's answer for one request against one grant."""

    PERMITTED = "permitted"
    NOT_COVERED = "not_covered"
    BAD_SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    MALFORMED = "malformed"


@dataclass(frozen=True, slots=True)
class CapabilityGrant:
    """A sealed manifest of granted scopes valid in ``[issued_at, expires_at)``."""

    constraints: tuple[GrantConstraint, ...]
    issued_at: int
    expires_at: int
    signature: str

    def manifest(self) -> dict[str, Any]:
        """The signed content (everything but the signature)."""
        return _manifest(self.constraints, self.issued_at, self.expires_at)

    def __repr__(self) -> str:
        return f"CapabilityGrant({len(self.constraints)} constraints, <values hidden>)"


def _manifest(
    constraints: tuple[GrantConstraint, ...], issued_at: int, expires_at: int
) -> dict[str, Any]:
    return {
        "constraints": [list(item) for item in constraints],
        "issued_at": issued_at,
        "expires_at": expires_at,
    }


def _well_formed(grant: object) -> bool:
    """Structure only; checked with ``type`` so no method of a stranger runs."""
    if type(grant) is not CapabilityGrant:
        return False
    if type(grant.issued_at) is not int or type(grant.expires_at) is not int:
        return False
    if type(grant.signature) is not str or type(grant.constraints) is not tuple:
        return False
    if len(grant.constraints) > MAX_GRANT_CONSTRAINTS:
        return False
    for item in grant.constraints:
        if type(item) is not GrantConstraint:
            return False
        if not all(type(part) is str and len(part) <= _MAX_FIELD_CHARS for part in item):
            return False
    return True


class GrantIssuer:
    """Seals grants with a key; the key never leaves this object."""

    __slots__ = ("_clock", "_key")

    def __init__(self, key: bytes, *, clock: Clock = time.time) -> None:
        self._key = require_key(key)
        self._clock = clock

    def issue(self, constraints: Iterable[GrantConstraint], *, ttl_seconds: int) -> CapabilityGrant:
        """A grant for ``constraints`` valid from now for ``ttl_seconds``."""
        if type(ttl_seconds) is not int or not 0 < ttl_seconds <= MAX_GRANT_TTL_SECONDS:
            raise InputRefused("grant lifetime must be a positive int of at most seven days")
        items = tuple(bounded(constraints, MAX_GRANT_CONSTRAINTS, "too many grant constraints"))
        for item in items:
            if type(item) is not GrantConstraint or not all(
                type(part) is str and 0 < len(part) <= _MAX_FIELD_CHARS for part in item
            ):
                raise InvalidArgument("grant constraints must be GrantConstraint of non-empty str")
        issued_at = int(self._clock())
        expires_at = issued_at + ttl_seconds
        signature = hmac_digest(self._key, GRANT_DOMAIN, _manifest(items, issued_at, expires_at))
        return CapabilityGrant(items, issued_at, expires_at, signature)

    def __repr__(self) -> str:
        return "GrantIssuer(<key hidden>)"


class GrantVerifier:
    """Checks seal, validity window and exact coverage, in that order."""

    __slots__ = ("_clock", "_key")

    def __init__(self, key: bytes, *, clock: Clock = time.time) -> None:
        self._key = require_key(key)
        self._clock = clock

    def authorize(self, grant: object, request: GrantConstraint) -> GrantDecision:
        """Whether ``grant`` permits exactly ``request`` now."""
        if not _well_formed(grant) or type(request) is not GrantConstraint:
            return GrantDecision.MALFORMED
        assert isinstance(grant, CapabilityGrant)
        if not all(type(part) is str for part in request):
            return GrantDecision.MALFORMED
        if not hmac_matches(self._key, GRANT_DOMAIN, grant.manifest(), grant.signature):
            return GrantDecision.BAD_SIGNATURE
        now = self._clock()
        if now < grant.issued_at:
            return GrantDecision.NOT_YET_VALID
        if now >= grant.expires_at:
            return GrantDecision.EXPIRED
        if tuple(request) in {tuple(item) for item in grant.constraints}:
            return GrantDecision.PERMITTED
        return GrantDecision.NOT_COVERED

    def __repr__(self) -> str:
        return "GrantVerifier(<key hidden>)"
