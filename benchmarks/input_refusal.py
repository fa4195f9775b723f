"""Peak memory and time of refusing oversized gate inputs, against reading the bytes.

Run ``python benchmarks/input_refusal.py``.  It writes, in a temporary
directory, 64 MiB files of about a million small records: a claims file as a
JSON array and as JSON Lines, and a pack review document (one JSON object with
a million ratings).  Each refusal runs in a fresh subprocess, whose peak
resident set size (``ru_maxrss``) and wall time are reported beside a plain
baseline measured in the same run: a subprocess that only reads the same file's
bytes.  Targets (issue 10 §6): refused within seconds and under ~300 MiB RSS
(before streaming: 1.6 GiB and 29 s).  The exit status is 0 when every refusal
meets both.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MIB = 300.0
TARGET_S = 5.0
SIZE = 64 * 1024 * 1024

_MEASURE = """
import resource, sys, time
start = time.perf_counter()
{action}
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{peak:.1f}} {{elapsed:.3f}}")
"""

_BASELINE = "open(sys.argv[1], 'rb').read()"
_CLAIMS = """
from pathlib import Path
from pytest_openmed.claims._gate import load_records
from pytest_openmed.claims.records import MAX_CLAIMS
try:
    load_records(Path(sys.argv[1]), limit=MAX_CLAIMS)
except ValueError:
    pass
else:
    raise SystemExit("not refused")
"""
_PACK = """
from pathlib import Path
from pytest_openmed.multimodal.errors import LimitExceeded
from pytest_openmed.multimodal._gate import MAX_EVIDENCE_DOCUMENT_BYTES, _read_json
try:
    _read_json(Path(sys.argv[1]), MAX_EVIDENCE_DOCUMENT_BYTES - 1)
except LimitExceeded:
    pass
else:
    raise SystemExit("not refused")
"""


def _record(index: int) -> bytes:
    return json.dumps({"claim_id": f"c{index:07d}", "evidence_ids": [], "n": index}).encode()


def _write_files(directory: Path) -> dict[str, Path]:
    """Files of about 64 MiB, written record by record (this process stays small:
    a child's ``ru_maxrss`` starts from its parent's size at fork)."""
    files = {
        "claims JSON Lines": directory / "claims.jsonl",
        "claims JSON array": directory / "claims.json",
        "pack review document": directory / "review.json",
    }
    heads = (b"", b"[", b'{"ratings": [')
    tails = (b"\n", b"]", b"]}")
    separators = (b"\n", b",", b",")
    handles = [path.open("wb") for path in files.values()]
    for handle, head in zip(handles, heads, strict=True):
        handle.write(head)
    total = index = 0
    while total < SIZE - 256:
        record = _record(index)
        for handle, separator in zip(handles, separators, strict=True):
            handle.write((separator if index else b"") + record)
        total += len(record) + 1
        index += 1
    for handle, tail in zip(handles, tails, strict=True):
        handle.write(tail)
        handle.close()
    print(f"{index:,} records per file, {total / 2**20:.0f} MiB")
    return files


def _measure(action: str, path: Path) -> tuple[float, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE.format(action=action), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    peak, _ = done.stdout.split()
    return float(peak), wall


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        files = _write_files(Path(tmp))
        print(f"{'input':<22} {'peak MiB':>9} {'s':>7}  {'read-only MiB':>13} {'s':>7}  ratio")
        worst_mib = worst_s = 0.0
        for label, path in files.items():
            action = _PACK if label.startswith("pack") else _CLAIMS
            mib, seconds = _measure(action, path)
            base_mib, base_s = _measure(_BASELINE, path)
            worst_mib, worst_s = max(worst_mib, mib), max(worst_s, seconds)
            print(
                f"{label:<22} {mib:9.1f} {seconds:7.2f}  {base_mib:13.1f} {base_s:7.2f}  "
                f"{mib / base_mib:5.2f}x"
            )
    met = worst_mib < TARGET_MIB and worst_s < TARGET_S
    print(
        f"worst refusal: {worst_mib:.1f} MiB, {worst_s:.2f} s (target < {TARGET_MIB:.0f} MiB, "
        f"< {TARGET_S:.0f} s: {'met' if met else 'MISSED'})"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
