"""Benchmark of the unsupported-claims engine against a plain-Python resampler.

Run ``python benchmarks/claims.py``.  For each workload it builds synthetic
claims and evidence in memory, then times (1) ``score_summary_claims`` end to
end — validation, linking, four-state scoring, every bootstrap interval and
the report — and (2) a plain-Python baseline that scores the same claims and
resamples them claim by claim with ``random.Random``.  Both are measured in
the same run; the ratio is baseline / ours.  Targets (DESIGN §8): under
0.15 s for 10k claims / 1,000 resamples and under 1 s for 100k / 100.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from pytest_openmed.claims import STANDARD_CLASSES, score_summary_claims

CLASSES = sorted(STANDARD_CLASSES)
WORKLOADS = (
    ("10k claims / 20k evidence / 1,000 resamples", 10_000, 20_000, 1_000, 0.15),
    ("100k claims / 200k evidence / 100 resamples", 100_000, 200_000, 100, 1.0),
)


def synthetic_inputs(claim_count: int, evidence_count: int) -> tuple[list[Any], list[Any]]:
    """Claims citing two evidence rows each; a mixture of all four states."""
    rng = random.Random(20240601)
    claims: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    per_claim = max(1, evidence_count // claim_count)
    for index in range(claim_count):
        key = f"sha256:{index:064x}"
        cited = [f"evidence-{index * per_claim + j:07d}" for j in range(per_claim)]
        roll = rng.random()
        for evidence_id in cited:
            row: dict[str, Any] = {
                "evidence_id": evidence_id,
                "claim_key": key,
                "approved": True,
                "relation": "supports",
            }
            if roll < 0.08:
                row["relation"] = "contradicts"
            elif roll < 0.12:
                row["approved"] = False
            elif roll < 0.15:
                row["claim_key"] = f"sha256:{index + 1:064x}"
            evidence.append(row)
        claims.append(
            {
                "claim_id": f"claim-{index:07d}",
                "claim_class": CLASSES[index % len(CLASSES)],
                "claim_key": key,
                "evidence_ids": [] if roll > 0.95 else cited,
            }
        )
    return claims, evidence


def baseline(claims: list[Any], evidence: list[Any], n_resamples: int, seed: int) -> float:
    """Plain Python: score each claim, then resample claims with replacement per collection."""
    rows = {row["evidence_id"]: row for row in evidence}
    flags_by_class: dict[str, list[int]] = {}
    overall: list[int] = []
    for claim in claims:
        cited = claim["evidence_ids"]
        relations = set()
        ok = bool(cited)
        for evidence_id in cited:
            row = rows.get(evidence_id)
            if row is None or not row["approved"] or row["claim_key"] != claim["claim_key"]:
                ok = False
                break
            relations.add(row["relation"])
        unsupported = 0 if ok and relations == {"supports"} else 1
        overall.append(unsupported)
        flags_by_class.setdefault(claim["claim_class"], []).append(unsupported)
    rng = random.Random(seed)
    upper = 0.0
    for flags in (overall, *flags_by_class.values()):
        n = len(flags)
        rates = []
        for _ in range(n_resamples):
            drawn = 0
            for _ in range(n):
                drawn += flags[int(rng.random() * n)]
            rates.append(drawn / n)
        rates.sort()
        upper = max(upper, rates[int(0.975 * (n_resamples - 1))])
    return upper


def timings(repeats: int, run: Callable[[], object]) -> tuple[list[float], list[float]]:
    """Wall-clock and process CPU seconds of each run (CPU time is less disturbed
    by other processes competing for the machine's two cores)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of ours (best is kept)")
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args()
    for title, claim_count, evidence_count, n_resamples, target in WORKLOADS:
        claims, evidence = synthetic_inputs(claim_count, evidence_count)
        report = score_summary_claims(claims, evidence, n_resamples=n_resamples, seed=1)
        runs, cpu = timings(
            args.repeats,
            functools.partial(
                score_summary_claims, claims, evidence, n_resamples=n_resamples, seed=1
            ),
        )
        ours = min(runs)
        print(title)
        print(
            f"  overall rate {report.overall.unsupported_rate:.4f} "
            f"[{report.overall.interval.lower:.4f}, {report.overall.interval.upper:.4f}], "
            f"{len(report.by_claim_class)} classes"
        )
        status = "ok" if ours < target else "OVER TARGET"
        print(
            f"  ours:     {ours:8.3f} s best, {statistics.median(runs):.3f} s median "
            f"of {args.repeats}; CPU {min(cpu):.3f} s best (target < {target} s: {status})"
        )
        if not args.skip_baseline:
            (plain,), (plain_cpu,) = timings(
                1, functools.partial(baseline, claims, evidence, n_resamples, 1)
            )
            print(
                f"  baseline: {plain:8.3f} s; CPU {plain_cpu:.3f} s "
                "(plain-Python claim-by-claim resampler, one run)"
            )
            print(f"  ratio:    {plain / ours:8.1f}x faster (CPU {plain_cpu / min(cpu):.1f}x)")


if __name__ == "__main__":
    main()
