"""Benchmark of the public Hypothesis strategies against plain ``st.binary()`` draws.

Run ``python benchmarks/strategies.py``.  Each strategy is drawn through
``@given`` exactly as a property test draws it (generate phase only, no
database, no deadline), with a test body that does nothing; the figure is the
wall time of the whole run divided by the number of examples Hypothesis
produced.  The baseline, ``st.binary()`` drawn the same way, is measured in
the same run and gives the ratio.  Each figure is the best of ``--repeats``
alternating runs.  Target (issue 12): at most 5 ms an example for every public
strategy at its default sizes, so the ``too_slow`` health check never trips
under load; the exit status is 0 when it holds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from pytest_openmed.strategies import claims_and_evidence, proposed_tool_calls, small_packs

#: Milliseconds an example that every public strategy must stay under (issue 12).
TARGET_MS = 5.0


def _runner(strategy: st.SearchStrategy[object], examples: int) -> Callable[[], int]:
    """A callable that draws ``examples`` values through ``@given`` and returns how many it drew."""
    drawn = [0]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
    )
    @given(strategy)
    def run(_value: object) -> None:
        drawn[0] += 1

    def timed() -> int:
        drawn[0] = 0
        run()
        return drawn[0]

    return timed


def _ms_per_example(runner: Callable[[], int]) -> float:
    start = time.perf_counter()
    count = runner()
    return 1000.0 * (time.perf_counter() - start) / max(count, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    cases: dict[str, st.SearchStrategy[object]] = {
        "st.binary() (baseline)": st.binary(),
        "claims_and_evidence()": claims_and_evidence(),
        "proposed_tool_calls()": proposed_tool_calls(),
        "proposed_tool_calls(malformed=True)": proposed_tool_calls(malformed=True),
        "small_packs()": small_packs(),
    }
    runners = {name: _runner(strategy, options.examples) for name, strategy in cases.items()}
    for runner in runners.values():  # warm-up: imports, strategy caches
        runner()
    best = dict.fromkeys(runners, float("inf"))
    for _ in range(options.repeats):  # alternate, so load hits every row alike
        for name, runner in runners.items():
            best[name] = min(best[name], _ms_per_example(runner))
    baseline = best["st.binary() (baseline)"]
    width = max(len(name) for name in best)
    print(f"{'strategy':<{width}} {'ms/example':>10}  ratio")
    for name, ms in best.items():
        print(f"{name:<{width}} {ms:10.3f}  {ms / baseline:5.1f}x")
    worst = max(ms for name, ms in best.items() if name != "st.binary() (baseline)")
    verdict = "holds" if worst <= TARGET_MS else "MISSED"
    print(f"slowest strategy: {worst:.2f} ms an example (target <= {TARGET_MS:.0f} ms: {verdict})")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
