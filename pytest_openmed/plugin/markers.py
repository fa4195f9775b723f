"""The plugin's markers and their arguments: validated once, before a test runs.

PYTEST_DONT_REWRITE

``openmed_gate(kind=...)`` tags a test as a gate; ``openmed_claims(...)`` sets
the thresholds ``claim_scorer`` enforces.  Arguments are checked during
collection and setup, so a mistake is one line naming the argument (capped
like gate-file keys), an error of that test, and nothing unchecked (an
unserialisable ``kind``) ever reaches a test report or an xdist channel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_openmed._toml import cap
from pytest_openmed._validate import check_rate
from pytest_openmed.errors import InputRefused
from pytest_openmed.plugin.options import parse_resamples, parse_seed

__all__ = [
    "ClaimsMarker",
    "MarkerError",
    "claims_marker",
    "gate_marker_kind",
]


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


@dataclass(frozen=True, slots=True)
class ClaimsMarker:
    """What an ``openmed_claims`` marker asks of ``claim_scorer`` (``None``: the run default)."""

    seed: int | None = None
    resamples: int | None = None
    thresholds: Mapping[str, float | None] = field(default_factory=dict)
    classes: Mapping[str, Mapping[str, float | bool]] = field(default_factory=dict)


def claims_marker(marker: pytest.Mark | None) -> ClaimsMarker:
    from pytest_openmed.contract import CLAIMS_THRESHOLDS

    claims_keys = ("classes", *CLAIMS_THRESHOLDS, "resamples", "seed")
    """The checked arguments of an ``openmed_claims`` marker (none: no thresholds)."""
    if marker is None:
        return ClaimsMarker(thresholds=dict.fromkeys(CLAIMS_THRESHOLDS))
    if marker.args:
        raise MarkerError("openmed_claims takes keyword arguments only")
    for key in marker.kwargs:
        if key not in claims_keys:
            raise _unknown("openmed_claims", key, claims_keys)
    kwargs: dict[str, Any] = dict(marker.kwargs)
    return ClaimsMarker(
        seed=_integer(kwargs.get("seed"), parse_seed),
        resamples=_integer(kwargs.get("resamples"), parse_resamples),
        thresholds={key: _rate(kwargs.get(key), key) for key in CLAIMS_THRESHOLDS},
        classes=_classes(kwargs.get("classes")),
    )


def _integer(value: object, parse: Callable[[str], int]) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise MarkerError("openmed_claims seed and resamples must be integers")
    try:
        return parse(str(value))
    except InputRefused as error:
        raise MarkerError(f"openmed_claims: {error}") from None


def _rate(value: object, key: str) -> float | None:
    if value is None:
        return None
    return check_rate(
        value, lambda: MarkerError(f"openmed_claims {key} must be a number from 0 to 1")
    )


def _classes(value: object) -> dict[str, dict[str, float | bool]]:
    from pytest_openmed.contract import CLAIM_CLASS_PATTERN, CLAIMS_CLASS_KEYS, CLAIMS_THRESHOLDS

    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MarkerError("openmed_claims classes must map a class to its thresholds")
    classes: dict[str, dict[str, float | bool]] = {}
    for label, thresholds in value.items():
        if type(label) is not str or not CLAIM_CLASS_PATTERN.fullmatch(label):
            raise MarkerError("openmed_claims classes keys must be normalised claim classes")
        if not isinstance(thresholds, Mapping):
            raise MarkerError(
                "openmed_claims class thresholds take max_unsupported_rate and/or max_upper"
            )
        for key in thresholds:
            if key not in CLAIMS_CLASS_KEYS:
                raise _unknown(f"openmed_claims classes[{cap(label)}]", key, CLAIMS_CLASS_KEYS)
        parsed: dict[str, float | bool] = {
            key: rate
            for key in sorted(thresholds)
            if key in CLAIMS_THRESHOLDS and (rate := _rate(thresholds[key], key)) is not None
        }
        if not parsed:
            raise MarkerError(
                "openmed_claims class thresholds take max_unsupported_rate and/or max_upper"
            )
        allow_absent = thresholds.get("allow_absent", False)
        if type(allow_absent) is not bool:
            raise MarkerError("openmed_claims allow_absent must be True or False")
        if allow_absent:
            parsed["allow_absent"] = True
        classes[label] = parsed
    return classes
