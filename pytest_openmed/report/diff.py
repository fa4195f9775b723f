"""What changed between two gate reports, verdict by verdict.

Verdicts are matched by node id and part (as baselines match them).  A claims
verdict regressed by the same rule as ``--openmed-baseline``
(:meth:`pytest_openmed.report.baseline.Baseline.compare`), so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Change", "diff_reports"]

_COMPARED = ("outcome", "status", "reason")


@dataclass(frozen=True, slots=True)
class Change:
    """One verdict that appeared, disappeared, changed or regressed."""

    kind: str  # "added", "removed", "changed" or "regressed"
    gate: str
    detail: str

    def line(self) -> str:
        return f"{self.kind:9} {self.gate}" + (f": {self.detail}" if self.detail else "")


def _key(entry: Mapping[str, Any]) -> tuple[str, str | None]:
    return str(entry["nodeid"]), entry.get("part")


def _name(key: tuple[str, str | None]) -> str:
    return key[0] + (f" [{key[1]}]" if key[1] else "")


def _regression(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    from pytest_openmed.contract import GateResult, GateStatus
    from pytest_openmed.report.baseline import Baseline, _interval

    if new.get("kind") != "claims" or new.get("status") is None:
        return None
    previous = _interval(old.get("metrics") or {})
    if previous is None:
        return None
    baseline = Baseline({_key(new): previous})
    metrics = {
        name: value
        for name, value in (new.get("metrics") or {}).items()
        if not name.startswith("baseline_") and name != "rate_increase"
    }
    result = GateResult("claims", GateStatus.PASSED, "ok", metrics)
    judged = baseline.compare(_key(new)[0], _key(new)[1], result)
    if judged.passed:
        return None
    return (
        f"interval lower {judged.metrics['lower']:.4f} > earlier upper "
        f"{judged.metrics['baseline_upper']:.4f} (rate increase "
        f"{judged.metrics['rate_increase']:.4f})"
    )


def diff_reports(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Changes from ``old`` to ``new``, in ``new``'s order, then removed verdicts."""
    before = {_key(entry): entry for entry in old.get("gates", [])}
    changes: list[Change] = []
    seen: set[tuple[str, str | None]] = set()
    for entry in new.get("gates", []):
        key = _key(entry)
        seen.add(key)
        previous = before.get(key)
        if previous is None:
            changes.append(Change("added", _name(key), f"{entry['outcome']} ({entry['status']})"))
            continue
        moved = [
            f"{field} {previous.get(field)} -> {entry.get(field)}"
            for field in _COMPARED
            if previous.get(field) != entry.get(field)
        ]
        if moved:
            changes.append(Change("changed", _name(key), ", ".join(moved)))
        regression = _regression(previous, entry)
        if regression is not None:
            changes.append(Change("regressed", _name(key), regression))
    for key in before:
        if key not in seen:
            changes.append(Change("removed", _name(key), ""))
    return changes
