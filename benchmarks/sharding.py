"""Wall time of a sharded control run and the merge's own time and memory.

Run: ``python benchmarks/sharding.py [--shards 4] [--merge-shards 100]
[--verdicts 1000] [-k EXPR]``.

1. The development control run (``--openmed-controls``), serially, then as
   ``--shards`` concurrent ``--openmed-shard I/N`` processes plus
   ``openmed-report merge`` — each a fresh ``python -m pytest`` process, as CI
   jobs would be.  Prints both wall times, and checks that the merged report
   equals the serial one except ``run``.  Concurrent shards only help with
   free cores: the figure printed beside it is this machine's CPU count.
2. ``openmed-report merge`` of ``--merge-shards`` synthetic shard reports of
   ``--verdicts`` verdicts each (claims verdicts in the report's shape, no
   data), in a child process: its wall time and peak resident memory.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _reports import synthetic_report

_ENVIRON = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_", "CI_"))},
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
}
_PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "openmed", "-p", "no:cacheprovider"]
_MERGE = [sys.executable, "-m", "pytest_openmed.report.cli", "merge"]


def _control_run(root: Path, shards: int, keyword: str | None) -> None:
    selection = ["--openmed-controls", *(["-k", keyword] if keyword else [])]
    start = time.perf_counter()
    subprocess.run(
        [*_PYTEST, *selection, "--openmed-report=serial.json"],
        cwd=root,
        env=_ENVIRON,
        capture_output=True,
        check=False,
    )
    serial = time.perf_counter() - start
    start = time.perf_counter()
    running = [
        subprocess.Popen(
            [*_PYTEST, *selection, f"--openmed-shard={i}/{shards}", f"--openmed-report=s{i}.json"],
            cwd=root,
            env=_ENVIRON,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(1, shards + 1)
    ]
    for process in running:
        process.wait()
    shard_files = [f"s{i}.json" for i in range(1, shards + 1)]
    merge_start = time.perf_counter()
    done = subprocess.run(
        [*_MERGE, *shard_files, "-o", "merged.json"],
        cwd=root,
        env=_ENVIRON,
        capture_output=True,
        check=False,
    )
    end = time.perf_counter()
    merged = json.loads((root / "merged.json").read_text())
    whole = json.loads((root / "serial.json").read_text())
    same = {k: v for k, v in merged.items() if k != "run"} == {
        k: v for k, v in whole.items() if k != "run"
    }
    print(f"control run, serial:                      {serial:7.2f} s")
    print(
        f"control run, {shards} concurrent shards + merge:  {end - start:7.2f} s "
        f"(merge {end - merge_start:.2f} s, exit {done.returncode}; {os.cpu_count()} CPUs)"
    )
    print(f"merged report equals the serial one except run: {same}")


def _shard_report(index: int, count: int, verdicts: int, gates: list[str]) -> dict[str, Any]:
    """Shard ``index`` of ``count``: every ``count``-th gate, three verdicts a gate."""
    mine = gates[index - 1 :: count]
    entries, positions = [], {}
    for number, gate in enumerate(mine):
        position = (number * count + index - 1) * 3
        for offset, item in enumerate(("overall", "class[lab]", "class[medication]")):
            nodeid = f"{gate}::{item}"
            rate = (position % 10) / 20
            entries.append(
                {
                    "nodeid": nodeid,
                    "part": None,
                    "kind": "claims",
                    "status": "passed",
                    "expected": "passed",
                    "reason": "ok",
                    "metrics": {
                        "claim_count": 40,
                        "unsupported_count": int(rate * 40),
                        "unsupported_rate": rate,
                        "lower": rate / 2,
                        "upper": min(1.0, rate + 0.1),
                        "max_unsupported_rate": 0.6,
                        "max_upper": None,
                    },
                    "outcome": "passed",
                }
            )
            positions[nodeid] = {"position": position + offset, "gate": gate}
    every = "".join(f"{gate}\n" for gate in sorted(gates))
    shard = {
        "index": index,
        "count": count,
        "balanced_by": None,
        "gates": sorted(mine),
        "collected": {
            "gates": len(gates),
            "digest": "sha256:" + hashlib.sha256(every.encode()).hexdigest(),
        },
        "gate_selection": None,
        "gate_files": {"gates.openmed.toml": "sha256:" + "0" * 64},
        "inputs": {},
        "positions": positions,
    }
    timing = {
        "started": "2026-12-01T15:30:00.000000Z",
        "duration": 1.0,
        "gates": dict.fromkeys(mine, 0.01),
    }
    return synthetic_report(entries, partial_selection=True, timing=timing, shard=shard)


def _merge_child(files: list[str]) -> None:
    """Run in a child: merge, then print wall time and this process's peak memory."""
    import resource

    from pytest_openmed.report.cli import main

    start, cpu = time.perf_counter(), time.process_time()
    code = main(["merge", *files, "-o", str(Path(files[0]).parent / "merged.json")])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"exit": code, "seconds": seconds, "cpu": cpu, "peak_mib": peak_kib / 1024}))


def _merge_benchmark(root: Path, shards: int, verdicts: int) -> None:
    gates = [
        f"gates.openmed.toml::claims(g{number:06d})" for number in range(shards * verdicts // 3)
    ]
    files = []
    for index in range(1, shards + 1):
        path = root / f"shard-{index:03d}.json"
        path.write_text(json.dumps(_shard_report(index, shards, verdicts, gates)))
        files.append(str(path))
    done = subprocess.run(
        [sys.executable, __file__, "--merge-child", *files],
        env=_ENVIRON,
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    total = sum(len(json.loads(Path(f).read_text())["gates"]) for f in files)
    print(
        f"merge of {shards} shard reports ({total} verdicts): {figures['seconds']:.2f} s "
        f"({figures['cpu']:.2f} s CPU), peak {figures['peak_mib']:.0f} MiB (process), "
        f"exit {figures['exit']}"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--merge-child":
        _merge_child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--merge-shards", type=int, default=100)
    parser.add_argument("--verdicts", type=int, default=1000, help="verdicts per shard report")
    parser.add_argument("-k", dest="keyword", default=None, help="a -k over the control gates")
    parser.add_argument("--skip-controls", action="store_true")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        if not arguments.skip_controls:
            _control_run(root, arguments.shards, arguments.keyword)
        _merge_benchmark(root, arguments.merge_shards, arguments.verdicts)


if __name__ == "__main__":
    main()
