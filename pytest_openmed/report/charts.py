"""Inline SVG charts of the HTML report: forest plots, interval bars and trends.

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
_RIGHT = 30
#: Label column of a forest plot: at least this wide, at most :data:`_LABEL_MAX`.
_LABEL_MIN = 120
_LABEL_MAX = 260
#: Average advance of a 12 px label character (DejaVu Sans / system UI), for reserving space.
_CHAR = 7.2


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


#: The range an axis top is chosen in: a report may hold any finite float (its schema's
#: bound), and beyond these a power of ten underflows to 0 or the margin overflows.
_SMALLEST_TOP = 1e-12
_LARGEST_TOP = 1e300


def _nice_top(value: float) -> float:
    """The smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 1 (times a power of ten) at or above ``value``."""
    import math

    if value <= 0:
        return 0.05
    value = min(max(value, _SMALLEST_TOP), _LARGEST_TOP)  # any finite number a report holds
    scale: float = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if step * scale >= value - 1e-12:
            return round(step * scale, 12)
    return 10 * scale  # pragma: no cover - the loop always ends at 10


class _Axis:
    """A 0..top axis over [left, left + width] px; ``top`` fits the data and thresholds.

    When ``top`` is below 1 the axis is zoomed: the chart draws a break mark at
    its right end so the reader never mistakes it for the whole 0–1 range.
    """

    def __init__(self, values: Sequence[float], left: float, width: float) -> None:
        self.top = min(1.0, _nice_top(min(max([0.0, *values]), 1.0) * 1.1))
        self.left = left
        self.width = width

    def x(self, value: float) -> float:
        return round(self.left + max(0.0, min(self.top, value)) / self.top * self.width, 2)

    def ticks(self) -> list[float]:
        return [round(self.top * i / 4, 6) for i in range(5)]


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


def _label_width(rows: Sequence[ForestRow]) -> tuple[float, int]:
    """Label column width and the characters a label may show before it is cut with "…"."""
    longest = max((len(row.label + _mark(row)) for row in rows), default=0)
    width = max(_LABEL_MIN, min(_LABEL_MAX, longest * _CHAR + 8))
    return width, int((width - 8) / _CHAR)


def _mark(row: ForestRow) -> str:
    return " (fails)" if row.failed else " (waived)" if row.waived else ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def forest_plot(title: str, rows: Sequence[ForestRow]) -> str:
    """Unsupported rate (circle) with its bootstrap interval per verdict.

    The axis runs from 0 to just above the largest value or threshold drawn
    (with a break mark when that is below 1).  The baseline's interval (square,
    grey) is drawn under a row when given; ``max_unsupported_rate`` is a
    dashed line, ``max_upper`` a dotted one, named once in the legend.
    Labels get their own column, cut with "…" when longer (the table beside
    the chart holds them in full).
    """
    label, chars = _label_width(rows)
    values: list[float] = []
    for row in rows:
        values += [row.upper, row.rate]
        values += [v for v in (row.max_rate, row.max_upper) if v is not None]
        if row.baseline is not None:
            values.append(row.baseline[2])
    axis = _Axis(values, label, _WIDTH - label - _RIGHT)
    row_height = 40
    top = 24
    bottom = top + row_height * len(rows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {_WIDTH} {bottom + 50}" width="{_WIDTH}" height="{bottom + 50}">',
        f"<title>{_e(title)}</title>",
        "<desc>Unsupported rate with its bootstrap interval per verdict; threshold lines "
        "and the baseline interval where given. The table beside it holds the numbers.</desc>",
    ]
    for tick in axis.ticks():
        x = axis.x(tick)
        parts.append(
            f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" class="grid"/>'
            f'<text x="{x}" y="{bottom + 14}" text-anchor="middle" class="tick">{tick:g}</text>'
        )
    if axis.top < 1.0:
        x = axis.left + axis.width
        parts.append(
            f'<path d="M{x - 4},{bottom + 4} l4,-8 M{x + 1},{bottom + 4} l4,-8" class="break"/>'
            f'<text x="{x}" y="{top - 8}" text-anchor="end" class="note">axis zoomed to '
            f"0–{axis.top:g} (of 0–1)</text>"
        )
    for index, row in enumerate(rows):
        y = top + index * row_height + 14
        mark = _mark(row)
        css = "fail" if row.failed else "ok"
        parts.append(
            f'<text x="4" y="{y + 4}" class="label {css}">{_e(_cut(row.label + mark, chars))}'
            f"<title>{_e(row.label + mark)}</title></text>"
            f'<line x1="{axis.x(row.lower)}" y1="{y}" x2="{axis.x(row.upper)}" y2="{y}" '
            f'class="ci {css}"/>'
            f'<circle cx="{axis.x(row.rate)}" cy="{y}" r="5" class="point {css}"/>'
        )
        if row.max_rate is not None:
            x = axis.x(row.max_rate)
            parts.append(
                f'<line x1="{x}" y1="{y - 12}" x2="{x}" y2="{y + 12}" class="limit-rate"/>'
            )
        if row.max_upper is not None:
            x = axis.x(row.max_upper)
            parts.append(
                f'<line x1="{x}" y1="{y - 12}" x2="{x}" y2="{y + 12}" class="limit-upper"/>'
            )
        if row.baseline is not None:
            b_lower, b_rate, b_upper = row.baseline
            yb = y + 14
            parts.append(
                f'<line x1="{axis.x(b_lower)}" y1="{yb}" x2="{axis.x(b_upper)}" y2="{yb}" '
                f'class="baseline"/><rect x="{axis.x(b_rate) - 4}" y="{yb - 4}" width="8" '
                f'height="8" class="baseline-point"/>'
            )
    parts.append(
        f'<text x="4" y="{bottom + 34}" class="note">● rate and interval   '
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


def trend_chart(
    title: str,
    points: Sequence[TrendPoint],
    *,
    limit: float | None = None,
    current: int | None = None,
    integer: bool = False,
) -> str:
    """Values over stored runs, oldest left; intervals as whiskers, gaps where absent.

    The axis fits the data and ``limit`` (the gate's threshold, a dashed line);
    the point of the report on the page (``current``) is ringed and named.
    Flags are written inside the plot, never past its edge.
    """
    height, top, left, right = 170, 26, 50, 24
    bottom = height - 30
    values = [v for p in points for v in (p.value, p.upper) if v is not None]
    if limit is not None:
        values.append(limit)
    peak = min(max([0.0, *values]), _LARGEST_TOP)
    span = max(1.0, float(int(peak * 1.1) + 1)) if integer else _nice_top(peak * 1.1)
    count = max(len(points), 1)
    step = (_WIDTH - left - right) / max(count - 1, 1)

    def y(value: float) -> float:
        return round(bottom - max(0.0, min(value, span)) / span * (bottom - top), 2)

    top_text = str(int(span)) if integer else f"{span:g}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}">',
        f"<title>{_e(title)}</title>",
        "<desc>Metric over stored runs, oldest first, with the gate's threshold where it has "
        "one; the table beside it holds the numbers.</desc>",
        f'<line x1="{left}" y1="{bottom}" x2="{_WIDTH - right}" y2="{bottom}" class="grid"/>',
        f'<text x="{left - 6}" y="{bottom + 4}" text-anchor="end" class="tick">0</text>',
        f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" class="tick">{top_text}</text>',
        f'<line x1="{left}" y1="{top}" x2="{_WIDTH - right}" y2="{top}" class="grid"/>',
    ]
    if limit is not None:
        parts.append(
            f'<line x1="{left}" y1="{y(limit)}" x2="{_WIDTH - right}" y2="{y(limit)}" '
            f'class="limit-rate"/><text x="{_WIDTH - right}" y="{y(limit) - 4}" '
            f'text-anchor="end" class="note">threshold {_e(f"{limit:g}")}</text>'
        )
    path: list[str] = []
    for index, point in enumerate(points):
        x = round(left + index * step, 2)
        anchor = "start" if x < _WIDTH / 2 else "end"
        parts.append(
            f'<text x="{x}" y="{bottom + 16}" text-anchor="middle" class="tick">{index + 1}</text>'
        )
        if index == current:
            parts.append(
                f'<text x="{x}" y="{top - 10}" text-anchor="{anchor}" class="label">'
                "▼ this report</text>"
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
        ring = " current" if index == current else ""
        parts.append(
            f'<circle cx="{x}" cy="{y(point.value)}" r="{6 if ring else 4}" '
            f'class="point {css}{ring}"/>'
        )
        if point.flag:
            offset = 6 if anchor == "start" else -6
            parts.append(
                f'<text x="{x + offset}" y="{max(top + 10, y(point.value) - 8)}" '
                f'text-anchor="{anchor}" class="label fail">{_e(point.flag)} ▲</text>'
            )
        path.append(f"{x},{y(point.value)}")
    if len(path) > 1:
        parts.insert(8, f'<polyline points="{" ".join(path)}" class="trend"/>')
    parts.append("</svg>")
    return "".join(parts)
