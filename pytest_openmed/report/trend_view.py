"""What the trends draw from a stored run: a few numbers per verdict, not the whole report.

A page with 50 stored runs of 1,000 verdicts drew its trends from 50 whole
reports, read and validated again on every run.  The trends need three
numbers and a flag per verdict: :func:`view_of` takes them from a report
once, when the run is stored, and the history keeps them in its index
(docs/history.md), so a page reads only what it shows.  Every number is
checked again when read back (:func:`view_from_json`); nothing but numbers,
closed flags and stored names ever reaches the page from a view.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_openmed.report.baseline import regressed
from pytest_openmed.report.rules import is_failing, item_label

__all__ = [
    "FLAGS",
    "Point",
    "StoredRun",
    "index_of",
    "row_of",
    "series_key",
    "view_of",
    "views_from_index",
]

#: Flags a trend point may carry: none, the verdict failed, or it regressed against a baseline.
FLAGS = ("", "failed", "regressed")
#: The metric of each gate kind a trend draws.
METRIC_OF_KIND = {
    "claims": "claims_rate",
    "planner": "planner_critical",
    "pack": "pack_emission",
}
_STARTED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")

#: (value, lower, upper, flag); ``value`` ``None``: not recorded or suppressed.
Point = tuple[float | None, float | None, float | None, str]


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One stored run as the trends see it: its name, UTC start and a point per verdict."""

    name: str
    started: str | None
    points: Mapping[str, Point]


def series_key(entry: Mapping[str, Any]) -> str | None:
    """The trend a verdict belongs to (``None``: it has none): its node id and part."""
    kind = entry.get("kind")
    if kind not in METRIC_OF_KIND:
        return None
    if kind == "planner" and item_label(entry) != "qualification":
        return None
    return f"{entry['nodeid']}\x1f{entry.get('part') or ''}"


def _float(metrics: Mapping[str, Any], name: str) -> float | None:
    return _number(metrics.get(name))


def _flag(entry: Mapping[str, Any]) -> str:
    if regressed(entry):
        return "regressed"
    return "failed" if is_failing(entry) else ""


def point_of(entry: Mapping[str, Any]) -> Point:
    """The point a verdict adds to its trend (see :data:`METRIC_OF_KIND`)."""
    metrics = entry.get("metrics")
    if not isinstance(metrics, Mapping):
        return None, None, None, ""
    flag = _flag(entry)
    kind = entry.get("kind")
    if kind == "claims":
        return (
            _float(metrics, "unsupported_rate"),
            _float(metrics, "lower"),
            _float(metrics, "upper"),
            flag,
        )
    if kind == "planner":
        from pytest_openmed.planner.report import CRITICAL_COUNTS

        values = [metrics.get(name) for name in sorted(CRITICAL_COUNTS)]
        if not all(type(v) is int for v in values):
            return None, None, None, flag
        return float(sum(v for v in values if isinstance(v, int))), None, None, flag
    public = entry.get("public_report")
    overall = public.get("overall") if isinstance(public, Mapping) else None
    if not isinstance(overall, Mapping) or overall.get("suppressed", True):
        return None, None, None, flag
    block = overall.get("metrics")
    emission = block.get("emission") if isinstance(block, Mapping) else None
    if not isinstance(emission, Mapping):
        return None, None, None, flag
    interval = emission.get("interval")
    interval = interval if isinstance(interval, Mapping) else {}
    return _float(emission, "rate"), _float(interval, "lower"), _float(interval, "upper"), flag


def view_of(name: str, report: Mapping[str, Any]) -> StoredRun:
    """The trend points of a whole report (stored under ``name``)."""
    run = report.get("run")
    timing = run.get("timing") if isinstance(run, Mapping) else None
    started = timing.get("started") if isinstance(timing, Mapping) else None
    points: dict[str, Point] = {}
    for entry in report.get("gates", []):
        if not isinstance(entry, Mapping):
            continue
        key = series_key(entry)
        if key is not None:
            points[key] = point_of(entry)
    return StoredRun(
        name, started if type(started) is str and _STARTED.fullmatch(started) else None, points
    )


def _number(value: object) -> float | None:
    """A finite number as a float; anything else (a 400-digit integer too) is ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and not -(2**53) <= value <= 2**53:
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


def index_of(views: list[StoredRun]) -> dict[str, Any]:
    """The history index's body: every series key once, then each run's points in key order."""
    keys = sorted({key for view in views for key in view.points})
    return {"keys": keys, "runs": [row_of(view, keys) for view in views]}


def row_of(view: StoredRun, keys: list[str]) -> dict[str, Any]:
    """One run of the index: its name, UTC start and points in ``keys`` order (null: none)."""
    return {
        "name": view.name,
        "started": view.started,
        "points": [
            list(point) if (point := view.points.get(key)) is not None else None for key in keys
        ],
    }


def views_from_index(document: Mapping[str, Any]) -> list[StoredRun]:
    """The views of an index body (:func:`index_of`); malformed runs are left out."""
    keys, runs = document.get("keys"), document.get("runs")
    if not isinstance(keys, list) or not all(type(key) is str for key in keys):
        return []
    if not isinstance(runs, list):
        return []
    views = []
    for run in runs:
        view = _view_from_index(keys, run)
        if view is not None:
            views.append(view)
    return views


def _view_from_index(keys: list[str], run: object) -> StoredRun | None:
    if not isinstance(run, Mapping):
        return None
    name, started, raw = run.get("name"), run.get("started"), run.get("points")
    if type(name) is not str or not isinstance(raw, list) or len(raw) != len(keys):
        return None
    if not (started is None or (type(started) is str and _STARTED.fullmatch(started))):
        return None
    points: dict[str, Point] = {}
    big = _BIG
    for key, value in zip(keys, raw, strict=True):
        if value is None:
            continue
        if type(value) is not list or len(value) != 4 or value[3] not in FLAGS:
            return None
        rate, lower, upper, flag = value
        # The common case inline (a finite float, as stored); anything else checked in full.
        points[key] = (
            rate if type(rate) is float and -big <= rate <= big else _number(rate),
            lower if type(lower) is float and -big <= lower <= big else _number(lower),
            upper if type(upper) is float and -big <= upper <= big else _number(upper),
            flag,
        )
    return StoredRun(name, started, points)


_BIG = 1e300
