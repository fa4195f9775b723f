"""Blinding: balanced, reviewer-specific candidate aliases and the sealed mapping.

For each reviewer the units are ordered by an HMAC of the evaluator key, the
reviewer identity and the unit's source digest; the first half shows the
pack's first candidate as alias ``A``, the rest show it as ``B`` (for an odd
count, a keyed parity bit decides who gets the extra unit).  Each candidate is
therefore ``A`` in ⌊n/2⌋ or ⌈n/2⌉ units, and the assignment differs between
reviewers without being predictable to anyone who lacks the key.

The mapping from aliases back to candidate digests is evaluator-only.  It is
sealed with an HMAC over the pack digest, the reviewer's qualification digest,
identity and the alias table, and carries a key check value so that a wrong key
is told apart from an altered mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_openmed._canonical import Signer, hmac_digest, hmac_matches, is_digest

from ._checked import build_checked
from ._structure import array, document, envelope, fields, malformed, materialise
from .errors import ForgedMapping, InvalidInput, UnknownAlias, WrongKey
from .limits import MAX_UNITS
from .vocabulary import ALIASES

__all__ = [
    "ALIAS_DOMAIN",
    "KEY_CHECK_DOMAIN",
    "MAPPING_SCHEMA",
    "PARITY_DOMAIN",
    "SEAL_DOMAIN",
    "SealedMapping",
    "assign_aliases",
    "seal_mapping",
    "verify_mapping",
]

ALIAS_DOMAIN = "openmed.multimodal.alias-order.v1"
PARITY_DOMAIN = "openmed.multimodal.alias-parity.v1"
SEAL_DOMAIN = "openmed.multimodal.mapping-seal.v1"
KEY_CHECK_DOMAIN = "openmed.multimodal.key-check.v1"
#: The type of the stored (evaluator-only) mapping document.
MAPPING_SCHEMA = "openmed.multimodal.sealed_mapping"
_KEY_CHECK_VALUE = "openmed.multimodal.evaluator-key"

AliasRow = tuple[str, str]


def assign_aliases(
    key: bytes,
    identity_digest: str,
    unit_digests: Sequence[str],
    candidate_digests: tuple[str, str],
) -> tuple[AliasRow, ...]:
    """Per unit, the candidate digests shown as ``A`` and as ``B`` to this reviewer."""
    count = len(unit_digests)
    signer = Signer(key)
    order = sorted(
        range(count),
        # The keyed MAC of the reviewer's identity and the unit orders the units.
        key=lambda unit: signer.digest(ALIAS_DOMAIN, [identity_digest, unit_digests[unit]]),
    )
    parity = int(signer.digest(PARITY_DOMAIN, identity_digest)[-1], 16) & 1
    first_as_a = count // 2 + (count % 2) * parity
    first, second = candidate_digests
    table: list[AliasRow] = [(first, second)] * count
    for position, unit in enumerate(order):
        table[unit] = (first, second) if position < first_as_a else (second, first)
    return tuple(table)


@dataclass(frozen=True, slots=True)
class SealedMapping:
    """Evaluator-only alias table of one prepared review, authenticated by the key."""

    pack_digest: str
    reviewer_digest: str
    identity_digest: str
    aliases: tuple[AliasRow, ...]
    key_check: str
    seal: str

    def __post_init__(self) -> None:
        for name in ("pack_digest", "reviewer_digest", "identity_digest", "key_check", "seal"):
            if not is_digest(getattr(self, name)):
                raise InvalidInput(f"mapping field {name} must be a 'sha256:' digest")
        rows = materialise(self.aliases, MAX_UNITS, f"a mapping holds more than {MAX_UNITS} units")
        checked: list[AliasRow] = []
        for row in rows:
            if isinstance(row, str | bytes | Mapping):
                raise InvalidInput("each mapping row holds the candidate digests for A and B")
            pair = tuple(row)
            if len(pair) != 2 or not all(is_digest(d) for d in pair) or pair[0] == pair[1]:
                raise InvalidInput("each mapping row holds two different candidate digests")
            checked.append((pair[0], pair[1]))
        if not checked:
            raise InvalidInput("a mapping covers at least one unit")
        object.__setattr__(self, "aliases", tuple(checked))

    def sealed_content(self) -> dict[str, Any]:
        """What the seal authenticates."""
        return _sealed_content(
            self.pack_digest, self.reviewer_digest, self.identity_digest, self.aliases
        )

    def candidate_for(self, unit: int, alias: str) -> str:
        """The candidate digest behind ``alias`` in ``unit``."""
        if alias not in ALIASES:
            raise UnknownAlias()
        return self.aliases[unit][ALIASES.index(alias)]

    def alias_for(self, unit: int, candidate_digest: str) -> str:
        """The alias under which this reviewer sees the candidate in ``unit``."""
        return ALIASES[self.aliases[unit].index(candidate_digest)]

    def to_dict(self) -> dict[str, Any]:
        """The evaluator-only stored form of a prepared review; never send it to a reviewer."""
        return {
            **envelope(MAPPING_SCHEMA),
            "pack_digest": self.pack_digest,
            "reviewer_digest": self.reviewer_digest,
            "identity_digest": self.identity_digest,
            "aliases": [dict(zip(ALIASES, row, strict=True)) for row in self.aliases],
            "key_check": self.key_check,
            "seal": self.seal,
        }

    @classmethod
    def from_dict(cls, data: object) -> SealedMapping:
        """Rebuild a stored mapping (its seal is verified when evidence is assessed)."""
        stored = document(
            data,
            MAPPING_SCHEMA,
            {"pack_digest", "reviewer_digest", "identity_digest", "aliases", "key_check", "seal"},
        )
        with malformed():
            rows = tuple(
                (row["A"], row["B"])
                for row in (fields(r, set(ALIASES)) for r in array(stored["aliases"], MAX_UNITS))
            )
            mapping = cls(
                pack_digest=stored["pack_digest"],
                reviewer_digest=stored["reviewer_digest"],
                identity_digest=stored["identity_digest"],
                aliases=rows,
                key_check=stored["key_check"],
                seal=stored["seal"],
            )
        return mapping

    def __repr__(self) -> str:
        return f"SealedMapping(units={len(self.aliases)})"


def seal_mapping(
    key: bytes,
    pack_digest: str,
    reviewer_digest: str,
    identity_digest: str,
    aliases: tuple[AliasRow, ...],
) -> SealedMapping:
    """Build and seal the mapping of one prepared review.

    The digests are a checked pack's and reviewer's, and ``aliases`` the table
    :func:`assign_aliases` built from them, so they are not checked again.
    """
    content = _sealed_content(pack_digest, reviewer_digest, identity_digest, aliases)
    return build_checked(
        SealedMapping,
        pack_digest=pack_digest,
        reviewer_digest=reviewer_digest,
        identity_digest=identity_digest,
        aliases=tuple(aliases),
        key_check=hmac_digest(key, KEY_CHECK_DOMAIN, _KEY_CHECK_VALUE),
        seal=hmac_digest(key, SEAL_DOMAIN, content),
    )


def _sealed_content(
    pack_digest: str, reviewer_digest: str, identity_digest: str, aliases: Sequence[AliasRow]
) -> dict[str, Any]:
    """What the seal authenticates: the one definition, used to seal and to verify."""
    return {
        "pack": pack_digest,
        "reviewer": reviewer_digest,
        "identity": identity_digest,
        "aliases": [list(row) for row in aliases],
    }


def verify_mapping(key: bytes, mapping: SealedMapping) -> None:
    """Refuse a mapping made with another key or altered since it was sealed."""
    if not hmac_matches(key, KEY_CHECK_DOMAIN, _KEY_CHECK_VALUE, mapping.key_check):
        raise WrongKey()
    if not hmac_matches(key, SEAL_DOMAIN, mapping.sealed_content(), mapping.seal):
        raise ForgedMapping()
