"""Waivers: a release owner's bounded, referenced acceptance of a failing gate.

A waiver file (TOML) lists ``[[waiver]]`` tables, each naming one gate node
id, an expiry date and an opaque justification reference (a ticket id, never
free text that could carry patient data).  A waived gate that fails is
reported as xfail "waived until <date>"; it is never skipped.  An expired
waiver, or one naming no collected gate, fails the run.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_openmed._jsonread import read_limited
from pytest_openmed._toml import TomlError, parse_toml
from pytest_openmed.errors import InputRefused

_REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}")
_MAX_WAIVER_FILE_BYTES = 256 * 1024
_TOO_LARGE = f"the waiver file exceeds {_MAX_WAIVER_FILE_BYTES // 1024} KiB"
_MAX_WAIVERS = 1000


class WaiverError(InputRefused):
    """The waiver file is malformed, or a waiver has expired: fix the waiver or remove it."""


@dataclass(frozen=True, slots=True)
class Waiver:
    """Acceptance of one gate's failure until ``expires`` (inclusive)."""

    gate: str
    expires: datetime.date
    reference: str

    def to_dict(self, *, applied: bool) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "expires": self.expires.isoformat(),
            "reference": self.reference,
            "applied": applied,
        }


def load_waivers(path: Path, *, today: datetime.date) -> tuple[Waiver, ...]:
    """Read and validate a waiver file; expired waivers are an error, not ignored."""
    raw = read_limited(
        path,
        _MAX_WAIVER_FILE_BYTES,
        too_large=lambda: WaiverError(_TOO_LARGE),
        unreadable=lambda: WaiverError("the waiver file could not be read"),
    )
    try:
        document = parse_toml(raw)
    except TomlError as error:
        raise WaiverError(f"the waiver file {error}") from None
    if set(document) - {"waiver"}:
        raise WaiverError("the waiver file may only contain [[waiver]] tables")
    tables = document.get("waiver", [])
    if not isinstance(tables, list) or len(tables) > _MAX_WAIVERS:
        raise WaiverError(f"'waiver' must be an array of at most {_MAX_WAIVERS} tables")
    waivers: list[Waiver] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, start=1):
        waiver = _parse(table, number)
        if waiver.gate in seen:
            raise WaiverError(f"waiver #{number}: a gate may be waived only once")
        if waiver.expires < today:
            raise WaiverError(
                f"waiver #{number} expired on {waiver.expires.isoformat()}: "
                "renew it with a new reference or fix the gate"
            )
        seen.add(waiver.gate)
        waivers.append(waiver)
    return tuple(waivers)


def _parse(table: object, number: int) -> Waiver:
    where = f"waiver #{number}"
    if not isinstance(table, dict) or set(table) != {"gate", "expires", "reference"}:
        raise WaiverError(f"{where}: expected exactly the keys gate, expires and reference")
    gate, expires, reference = table["gate"], table["expires"], table["reference"]
    if type(gate) is not str or not gate or len(gate) > 1024 or "\n" in gate:
        raise WaiverError(f"{where}: 'gate' must be a gate node id as shown by pytest")
    if type(expires) is not datetime.date:
        raise WaiverError(f"{where}: 'expires' must be a TOML date such as 2026-12-31")
    if type(reference) is not str or not _REFERENCE.fullmatch(reference):
        raise WaiverError(
            f"{where}: 'reference' must be an opaque ticket id (letters, digits, '_.:-'), "
            "not free text"
        )
    return Waiver(gate=gate, expires=expires, reference=reference)


def unmatched_waivers(waivers: Iterable[Waiver], nodeids: Iterable[str]) -> list[int]:
    """1-based numbers of waivers that name no collected gate."""
    known = set(nodeids)
    return [number for number, waiver in enumerate(waivers, start=1) if waiver.gate not in known]
