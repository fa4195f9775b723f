"""Inline SVG charts of the HTML report: forest plots, interval bars and trends.

PYTEST_DONT_REWRITE

Static SVG text, so a chart renders without JavaScript, fonts or network.
Every chart carries a ``<title>`` and a ``<desc>`` and is drawn beside a table
holding the same numbers; colour is never the only signal (markers differ in
shape, failing rows are labelled in text, threshold lines are dashed and named).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ForestRow", "TrendPoint", "forest_plot", "interval_bar", "trend_chart"]

_WIDTH = 640
_LABEL = 170
_RIGHT = 30
_PLOT = _WIDTH - _LABEL - _RIGHT


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _x(value: float) -> float:
    return round(_LABEL + max(0.0, min(1.0, value)) * _PLOT, 2)


@dataclass(frozen=True, slots=True)
class ForestRow:
    """One verdict of a claims gate: its rate, interval, thresholds and baseline."""

    label: str
    rate: float
    lower: float
    upper: float
    max_rate: float | None
    max_upper: float | None
    baseline: tuple[float, float, float] | None
    failed: bool
    waived: bool = False


def _axis(top: float, bottom: float) -> list[str]:
    parts = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = _x(tick)
        parts.append(
            f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" class="grid"/>'
            f'<text x="{x}" y="{bottom + 14}" text-anchor="middle" class="tick">{tick:g}</text>'
        )
    return parts


def forest_plot(title: str, rows: Sequence[ForestRow]) -> str:
    """Unsupported rate (circle) with its bootstrap interval per verdict.

    The baseline's interval (square, grey) is drawn under a row when given;
    ``max_unsupported_rate`` is a dashed line, ``max_upper`` a dotted one.
    """
    row_height = 40
    top = 10
    bottom = top + row_height * len(rows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {_WIDTH} {bottom + 50}" width="{_WIDTH}" height="{bottom + 50}">',
        f"<title>{_e(title)}</title>",
        "<desc>Unsupported rate with its bootstrap interval per verdict; threshold lines "
        "and the baseline interval where given. The table beside it holds the numbers.</desc>",
        *_axis(top, bottom),
    ]
    for index, row in enumerate(rows):
        y = top + index * row_height + 14
        mark = " (fails)" if row.failed else " (waived)" if row.waived else ""
        css = "fail" if row.failed else "ok"
        parts.append(
            f'<text x="4" y="{y + 4}" class="label {css}">{_e(row.label)}{_e(mark)}</text>'
            f'<line x1="{_x(row.lower)}" y1="{y}" x2="{_x(row.upper)}" y2="{y}" '
            f'class="ci {css}"/>'
            f'<circle cx="{_x(row.rate)}" cy="{y}" r="5" class="point {css}"/>'
        )
        if row.max_rate is not None:
            x = _x(row.max_rate)
            parts.append(
                f'<line x1="{x}" y1="{y - 12}" x2="{x}" y2="{y + 12}" class="limit-rate"/>'
                f'<text x="{x + 3}" y="{y - 5}" class="note">max rate</text>'
            )
        if row.max_upper is not None:
            x = _x(row.max_upper)
            parts.append(
                f'<line x1="{x}" y1="{y - 12}" x2="{x}" y2="{y + 12}" class="limit-upper"/>'
                f'<text x="{x + 3}" y="{y + 11}" class="note">max upper</text>'
            )
        if row.baseline is not None:
            b_lower, b_rate, b_upper = row.baseline
            yb = y + 14
            parts.append(
                f'<line x1="{_x(b_lower)}" y1="{yb}" x2="{_x(b_upper)}" y2="{yb}" '
                f'class="baseline"/><rect x="{_x(b_rate) - 4}" y="{yb - 4}" width="8" '
                f'height="8" class="baseline-point"/>'
            )
    parts.append(
        f'<text x="{_LABEL}" y="{bottom + 34}" class="note">● rate and interval   '
        "■ baseline interval   ┆ dashed: max rate   ⋮ dotted: max upper</text></svg>"
    )
    return "".join(parts)


def interval_bar(rate: float, lower: float, upper: float) -> str:
    """A small 0–1 bar: the interval as a line, the rate as a dot (the cell has the text)."""
    width, pad = 120, 4

    def x(value: float) -> float:
        return round(pad + max(0.0, min(1.0, value)) * (width - 2 * pad), 2)

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bar" aria-hidden="true" '
        f'viewBox="0 0 {width} 14" width="{width}" height="14">'
        f'<line x1="{pad}" y1="7" x2="{width - pad}" y2="7" class="grid"/>'
        f'<line x1="{x(lower)}" y1="7" x2="{x(upper)}" y2="7" class="ci ok"/>'
        f'<circle cx="{x(rate)}" cy="7" r="3" class="point ok"/></svg>'
    )


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One stored run's value of a metric (``None``: not recorded or suppressed)."""

    run: str
    value: float | None
    lower: float | None = None
    upper: float | None = None
    #: Words drawn beside a failing point (``"regressed"``, ``"failed"``); empty when fine.
    flag: str = ""


def trend_chart(title: str, points: Sequence[TrendPoint], *, scale_max: float) -> str:
    """Values over stored runs, oldest left; intervals as whiskers, gaps where absent."""
    height, top, left, right = 150, 12, 50, 20
    bottom = height - 30
    span = max(scale_max, 1e-9)
    count = max(len(points), 1)
    step = (_WIDTH - left - right) / max(count - 1, 1)

    def y(value: float) -> float:
        return round(bottom - max(0.0, min(value, span)) / span * (bottom - top), 2)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}">',
        f"<title>{_e(title)}</title>",
        "<desc>Metric over stored runs, oldest first; the table beside it holds the "
        "numbers.</desc>",
        f'<line x1="{left}" y1="{bottom}" x2="{_WIDTH - right}" y2="{bottom}" class="grid"/>',
        f'<text x="{left - 6}" y="{bottom + 4}" text-anchor="end" class="tick">0</text>',
        f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" class="tick">{scale_max:g}</text>',
        f'<line x1="{left}" y1="{top}" x2="{_WIDTH - right}" y2="{top}" class="grid"/>',
    ]
    path: list[str] = []
    for index, point in enumerate(points):
        x = round(left + index * step, 2)
        parts.append(
            f'<text x="{x}" y="{bottom + 16}" text-anchor="middle" class="tick">{index + 1}</text>'
        )
        if point.value is None:
            parts.append(
                f'<text x="{x}" y="{bottom - 4}" text-anchor="middle" class="note">–</text>'
            )
            continue
        if point.lower is not None and point.upper is not None:
            parts.append(
                f'<line x1="{x}" y1="{y(point.lower)}" x2="{x}" y2="{y(point.upper)}" '
                'class="ci ok"/>'
            )
        css = "fail" if point.flag else "ok"
        parts.append(f'<circle cx="{x}" cy="{y(point.value)}" r="4" class="point {css}"/>')
        if point.flag:
            parts.append(
                f'<text x="{x}" y="{y(point.value) - 8}" text-anchor="end" class="label fail">'
                f"{_e(point.flag)} ▲</text>"
            )
        path.append(f"{x},{y(point.value)}")
    if len(path) > 1:
        parts.insert(8, f'<polyline points="{" ".join(path)}" class="trend"/>')
    parts.append("</svg>")
    return "".join(parts)
