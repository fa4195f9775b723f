"""Time to build all six development packs (target: under 3 s on this 2-core machine).

Run: ``python benchmarks/development_packs.py``.  The baseline, measured in the
same run, is generating the six sources alone (no component runs, no pack):
the ratio shows what executing both configurations and binding the pack adds.
"""

from __future__ import annotations

import time

from pytest_openmed.development import development_pack, development_source
from pytest_openmed.multimodal import ValidationTask

ROUNDS = 3


def best(action: object) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    development_pack("forms")  # import everything once
    baseline = best(lambda: [development_source(task) for task in ValidationTask])
    ours = best(lambda: [development_pack(task) for task in ValidationTask])
    print(f"generate six sources (baseline): {baseline:6.3f} s (best of {ROUNDS})")
    print(f"build six development packs:     {ours:6.3f} s (target < 3 s)")
    print(f"ratio packs / sources:           {ours / baseline:6.2f}")
    for task in ValidationTask:
        print(f"  {task.value:14} {best(lambda task=task: development_pack(task)):6.3f} s")


if __name__ == "__main__":
    main()
