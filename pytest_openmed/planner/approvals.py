"""Human-review approval tokens: bound to one call, one role, one use.

A write that needs review may proceed only with a token a reviewer issued for
*that exact call* (its canonical digest), in *that role*, not yet expired and
never presented before.  The token is a plain ``str`` of a fixed shape; the
verifier refuses anything else with ``type`` and ``is`` checks alone, so an
untrusted object's ``__eq__``, ``__hash__`` or ``__repr__`` never runs.  The
nonce is consumed only after every other check passed, so forgeries cannot
burn a legitimate reviewer's nonces.
"""

from __future__ import annotations

import enum
import hmac
import re
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from pytest_openmed._canonical import (
    digest_json,
    hmac_digest,
    hmac_matches,
    is_digest,
    require_key,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "APPROVAL_DOMAIN",
    "MAX_APPROVAL_TTL_SECONDS",
    "MAX_TOKEN_CHARS",
    "ApprovalDecision",
    "ApprovalIssuer",
    "ApprovalVerifier",
    "NonceStore",
    "call_digest",
]

#: HMAC domain of approval tokens; distinct from every other use of a key.
APPROVAL_DOMAIN = "pytest-openmed/planner/approval/v1"
MAX_TOKEN_CHARS = 256
MAX_APPROVAL_TTL_SECONDS = 24 * 3600
_PREFIX = "openmed-approval.v1"
_ROLE = re.compile(r"[a-z][a-z0-9-]{0,31}")
_TOKEN = re.compile(
    r"openmed-approval\.v1"
    r"\.(?P<call>[0-9a-f]{64})"
    r"\.(?P<role>[a-z][a-z0-9-]{0,31})"
    r"\.(?P<nonce>[0-9a-f]{32})"
    r"\.(?P<expires>[0-9]{1,12})"
    r"\.(?P<mac>[0-9a-f]{64})"
)

Clock = Callable[[], float]


class ApprovalDecision(enum.Enum):
    """The verifier's answer for one presented token."""

    APPROVED = "approved"
    MISSING = "missing"
    MALFORMED = "malformed"
    BAD_SIGNATURE = "bad_signature"
    WRONG_CALL = "wrong_call"
    WRONG_ROLE = "wrong_role"
    EXPIRED = "expired"
    REPLAYED = "replayed"


def call_digest(
    tool_reference: str,
    arguments: Mapping[str, str],
    resource: str,
    action: str,
    policy_profile: str,
) -> str:
    """The canonical digest of one exact call, the thing an approval is bound to."""
    return digest_json(
        {
            "tool": tool_reference,
            "arguments": dict(arguments),
            "resource": resource,
            "action": action,
            "policy_profile": policy_profile,
        }
    )


def _payload(call_hex: str, role: str, nonce: str, expires_at: int) -> dict[str, Any]:
    return {"call": call_hex, "role": role, "nonce": nonce, "expires_at": expires_at}


class NonceStore:
    """Single-use nonces; full means fail closed (nothing more is accepted)."""

    __slots__ = ("_capacity", "_seen")

    def __init__(self, *, capacity: int = 100_000) -> None:
        if type(capacity) is not int or capacity < 1:
            raise InputRefused("nonce store capacity must be a positive int")
        self._capacity = capacity
        self._seen: set[str] = set()

    def consume(self, nonce: str) -> bool:
        """Record ``nonce``; ``False`` if it was seen before or the store is full."""
        if type(nonce) is not str or nonce in self._seen or len(self._seen) >= self._capacity:
            return False
        self._seen.add(nonce)
        return True

    def __len__(self) -> int:
        return len(self._seen)

    def __repr__(self) -> str:
        return f"NonceStore({len(self._seen)} used)"


class ApprovalIssuer:
    """A reviewer's signing side (tests and real review tooling; never the planner)."""

    __slots__ = ("_clock", "_key")

    def __init__(self, key: bytes, *, clock: Clock = time.time) -> None:
        self._key = require_key(key)
        self._clock = clock

    def issue(self, digest: str, role: str, *, ttl_seconds: int) -> str:
        """A token approving the call with ``digest`` for ``role``."""
        if not is_digest(digest):
            raise InputRefused("call digest must be a 'sha256:' digest")
        if type(role) is not str or not _ROLE.fullmatch(role):
            raise InputRefused("reviewer role must be a short lowercase label")
        if type(ttl_seconds) is not int or not 0 < ttl_seconds <= MAX_APPROVAL_TTL_SECONDS:
            raise InputRefused("approval lifetime must be a positive int of at most one day")
        call_hex = digest.removeprefix("sha256:")
        nonce = secrets.token_hex(16)
        expires_at = int(self._clock()) + ttl_seconds
        mac = hmac_digest(self._key, APPROVAL_DOMAIN, _payload(call_hex, role, nonce, expires_at))
        return ".".join(
            (_PREFIX, call_hex, role, nonce, str(expires_at), mac.removeprefix("sha256:"))
        )

    def __repr__(self) -> str:
        return "ApprovalIssuer(<key hidden>)"


class ApprovalVerifier:
    """Verifies tokens for one reviewer role against one nonce store."""

    __slots__ = ("_clock", "_key", "_nonces", "_role")

    def __init__(
        self, key: bytes, *, role: str, nonces: NonceStore, clock: Clock = time.time
    ) -> None:
        if type(role) is not str or not _ROLE.fullmatch(role):
            raise InputRefused("reviewer role must be a short lowercase label")
        if type(nonces) is not NonceStore:
            raise InvalidArgument("nonces must be a NonceStore")
        self._key = require_key(key)
        self._role = role
        self._nonces = nonces
        self._clock = clock

    def verify(self, token: object, digest: str) -> ApprovalDecision:
        """Whether ``token`` approves exactly the call with ``digest``, now, once."""
        if token is None:
            return ApprovalDecision.MISSING
        if type(token) is not str or len(token) > MAX_TOKEN_CHARS:
            return ApprovalDecision.MALFORMED
        match = _TOKEN.fullmatch(token)
        if match is None:
            return ApprovalDecision.MALFORMED
        call_hex, role, nonce = match["call"], match["role"], match["nonce"]
        expires_at = int(match["expires"])
        payload = _payload(call_hex, role, nonce, expires_at)
        if not hmac_matches(self._key, APPROVAL_DOMAIN, payload, "sha256:" + match["mac"]):
            return ApprovalDecision.BAD_SIGNATURE
        if not is_digest(digest) or not hmac.compare_digest("sha256:" + call_hex, digest):
            return ApprovalDecision.WRONG_CALL
        if role != self._role:
            return ApprovalDecision.WRONG_ROLE
        if self._clock() >= expires_at:
            return ApprovalDecision.EXPIRED
        if not self._nonces.consume(nonce):
            return ApprovalDecision.REPLAYED
        return ApprovalDecision.APPROVED

    def __repr__(self) -> str:
        return "ApprovalVerifier(<key hidden>)"
