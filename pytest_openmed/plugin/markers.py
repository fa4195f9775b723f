"""The plugin's markers and their arguments: validated once, before a test runs.

``openmed_gate(kind=...)`` tags a test as a gate; ``openmed_claims(...)`` sets
the thresholds ``claim_scorer`` enforces.  Arguments are checked during
collection and setup, so a mistake is one line naming the argument (capped
like gate-file keys), an error of that test, and nothing unchecked (an
unserialisable ``kind``) ever reaches a test report or an xdist channel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_openmed._toml import cap
from pytest_openmed.errors import InputRefused

if TYPE_CHECKING:
    from pytest_openmed.claims.declaration import GateDeclaration as ClaimsDeclaration
    from pytest_openmed.contract import Expected
    from pytest_openmed.planner.declaration import GateDeclaration as PlannerDeclaration


class MarkerError(InputRefused):
    """A marker was given arguments it does not take; the one-line message lists what it takes."""


def _unknown(marker: str, key: object, allowed: tuple[str, ...]) -> MarkerError:
    shown = cap(key) if type(key) is str else "(not a string)"
    return MarkerError(f"{marker}: unknown argument '{shown}'; it takes: {', '.join(allowed)}")


def gate_marker_kind(marker: pytest.Mark) -> str:
    from pytest_openmed.contract import GATE_KINDS  # at first use: the plugin loads cheaply

    """The ``kind`` of an ``openmed_gate`` marker (default ``custom``), or :class:`MarkerError`."""
    if marker.args:
        raise MarkerError("openmed_gate takes keyword arguments only: kind=...")
    for key in marker.kwargs:
        if key != "kind":
            raise _unknown("openmed_gate", key, ("kind",))
    kind = marker.kwargs.get("kind", "custom")
    if type(kind) is not str or kind not in GATE_KINDS:
        raise MarkerError(
            "openmed_gate takes one keyword argument, kind, one of: " + ", ".join(GATE_KINDS)
        )
    return kind


class _MarkerSource:
    """An ``openmed_claims`` marker as the source of a claims declaration: refusals name it."""

    def __init__(self, name: str = "openmed_claims", nested: str | None = None) -> None:
        self._name = name
        self._nested = nested

    def refuse(self, key: str, expected: Expected) -> MarkerError:
        return MarkerError(f"{self._name} {expected.said_plainly(key)}")

    def whole(self, message: str) -> MarkerError:
        return MarkerError(f"{self._name}: {message}")

    def check_keys(
        self, fields: Mapping[str, object], required: Sequence[str], optional: Sequence[str]
    ) -> None:
        allowed = (*required, *optional)
        for key in fields:
            if key not in allowed:
                raise _unknown(self._nested or self._name, key, allowed)

    def within(self, key: str, label: str) -> _MarkerSource:
        return _MarkerSource(self._name, f"{self._name} {key}[{cap(label)}]")

    def path(self, key: str, value: object) -> Path:  # pragma: no cover - markers name no file
        raise self.whole("takes no paths")


#: The arguments of an ``openmed_planner`` marker (docs/markers.md).
PLANNER_MARKER_KEYS = ("trials", "max_critical_rate", "confidence")


def planner_marker(marker: pytest.Mark | None) -> PlannerDeclaration | None:
    """The checked trials of an ``openmed_planner`` marker (none: one trial, as before).

    Checked like a gate file's trial keys (the planner declaration's rules), so
    thresholds the trials cannot meet are refused before the planner is called.
    """
    if marker is None:
        return None
    if marker.args:
        raise MarkerError("openmed_planner takes keyword arguments only")
    from pytest_openmed.planner.declaration import declare

    source = _MarkerSource("openmed_planner")
    source.check_keys(marker.kwargs, (), PLANNER_MARKER_KEYS)
    # The fixture is handed the planner itself: the reference only satisfies the declaration.
    return declare({"planner": "openmed_planner:marker", **marker.kwargs}, source)


def claims_marker(marker: pytest.Mark | None) -> ClaimsDeclaration:
    """The checked declaration of an ``openmed_claims`` marker (none: no thresholds)."""
    from pytest_openmed.claims.declaration import MARKER, GateDeclaration, declare

    if marker is None:
        return GateDeclaration()
    if marker.args:
        raise MarkerError("openmed_claims takes keyword arguments only")
    return declare(marker.kwargs, _MarkerSource(), MARKER)
