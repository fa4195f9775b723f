"""Timing and the result table shared by the component benchmarks.

Each figure is the median of ``--repeat`` runs after one warm-up.  A row sets
one component run (configuration A or B) beside a baseline that only decodes
the same asset; the ratio is component / baseline.  The verdict compares the
slowest component run with the per-source target of issue 5.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

__all__ = ["TARGET_MS", "Row", "arguments", "median_ms", "report", "time_configs"]

#: Per-source target for one component run (issue 5).
TARGET_MS = 200.0


def arguments(doc: str | None) -> argparse.Namespace:
    """``--repeat`` and ``--seed``, described by the first line of the script's docstring."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` in milliseconds, over ``repeat`` runs after a warm-up."""
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000.0 * statistics.median(times)


@dataclass(frozen=True, slots=True)
class Row:
    """One component run beside the baseline that only decodes the same asset."""

    component: str
    source: str
    config: str
    ms: float
    baseline: str
    baseline_ms: float


def time_configs(
    component: ModuleType,
    source: str,
    asset: bytes,
    *,
    baseline: str,
    baseline_ms: float,
    repeat: int,
) -> list[Row]:
    """Rows for ``component.run(asset, CONFIG_A)`` and ``component.run(asset, CONFIG_B)``."""
    name = component.__name__.rsplit(".", 1)[-1]
    rows = []
    for label in ("A", "B"):
        config = getattr(component, f"CONFIG_{label}")
        ms = median_ms(functools.partial(component.run, asset, config), repeat)
        rows.append(Row(name, source, label, ms, baseline, baseline_ms))
    return rows


def report(rows: Sequence[Row], target_ms: float = TARGET_MS) -> int:
    """Print the table and the verdict; the exit status is 0 when the slowest run meets the target."""
    component = max(len("component"), *(len(row.component) for row in rows))
    source = max(len("source"), *(len(row.source) for row in rows))
    baseline = max(len("baseline"), *(len(row.baseline) for row in rows))
    print(
        f"{'component':<{component}} {'source':<{source}} cfg {'ms':>8}  "
        f"{'baseline':<{baseline}} {'ms':>8}  ratio"
    )
    for row in rows:
        print(
            f"{row.component:<{component}} {row.source:<{source}} {row.config:>3} {row.ms:8.1f}  "
            f"{row.baseline:<{baseline}} {row.baseline_ms:8.1f}  {row.ms / row.baseline_ms:5.1f}x"
        )
    worst = max(row.ms for row in rows)
    verdict = "met" if worst < target_ms else "MISSED"
    print(f"slowest component run: {worst:.1f} ms (target < {target_ms:.0f} ms: {verdict})")
    return 0 if worst < target_ms else 1
