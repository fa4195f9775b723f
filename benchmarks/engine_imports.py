"""Cost of importing one engine leaf module, against ``import json`` in the same run.

Run: ``python benchmarks/engine_imports.py [--repeat N]``.  Each import runs
in a fresh interpreter with ``-X importtime``; the cost of an import is the
cumulative time Python reports for its top-level module (the sum of every
module it pulled in), so interpreter start-up is not counted.  The baseline
is ``import json`` — a small stdlib package — timed the same way in the same
run, interleaved with the leaf imports so that a busy machine slows both.
Prints the best and the median of ``--repeat`` runs, the ratio of each
median to the baseline's, and how many ``pytest_openmed`` modules each
import loaded.  A leaf import should load its own engine's few modules, not
every sibling engine's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

BASELINE = "json"

#: Leaf modules a user or another engine imports on its own.
LEAVES = (
    "pytest_openmed.multimodal.vocabulary",
    "pytest_openmed.multimodal.errors",
    "pytest_openmed.multimodal.limits",
    "pytest_openmed.claims.records",
    "pytest_openmed.planner.scenarios",
    "pytest_openmed.planner.catalog",
    "pytest_openmed.components.ecg_quality",
    "pytest_openmed.multimodal",
    "pytest_openmed.claims",
    "pytest_openmed.planner",
    "pytest_openmed.components",
)


def measure(module: str) -> tuple[float, int]:
    """Cumulative import time of ``module`` in microseconds and the package modules it loaded."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPROFILEIMPORTTIME"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    total = 0.0
    loaded = 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[1].strip().isdigit():
            continue
        name = fields[2].rstrip()
        if name.strip().startswith("pytest_openmed"):
            loaded += 1
        if name == f" {module}":  # top level: no indentation beyond one space
            total = float(fields[1])
    return total, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    repeat = parser.parse_args().repeat
    names = (BASELINE, *LEAVES)
    times: dict[str, list[float]] = {name: [] for name in names}
    counts: dict[str, int] = {}
    for _ in range(repeat):
        for name in names:
            micros, loaded = measure(name)
            times[name].append(micros)
            counts[name] = loaded
    base = statistics.median(times[BASELINE])
    width = max(len(name) for name in names)
    print(f"{'import':<{width}} {'best ms':>8} {'median ms':>10} {'ratio':>7} {'modules':>8}")
    for name in names:
        best, median = min(times[name]) / 1000, statistics.median(times[name]) / 1000
        print(
            f"{name:<{width}} {best:8.2f} {median:10.2f} "
            f"{statistics.median(times[name]) / base:6.1f}x {counts[name]:8d}"
        )
    print(f"(baseline: import {BASELINE}, median of {repeat} runs; ratio = median / baseline)")


if __name__ == "__main__":
    main()
