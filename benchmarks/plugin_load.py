"""Cost of loading the plugin on a suite that uses no gate (target: under 20 ms).

Run: ``python benchmarks/plugin_load.py``.  Times a trivial one-test pytest
run in a fresh interpreter with the plugin (``-p openmed``) and without it
(``-p no:openmed``, the baseline), both with plugin autoloading disabled so
that nothing else installed skews the comparison.  Prints medians over
repeated, interleaved runs (and the best run of each, which is less
sensitive to a busy machine), their difference and ratio, and the import time of
``pytest_openmed.plugin`` on its own: wall time after ``import pytest``, and
``-X importtime``'s cumulative figure for the plugin minus pytest's own (pytest
is first imported by the plugin, so its subtree is part of the plugin's
cumulative), beside pytest's cumulative as the baseline.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 21


def run(args: list[str], cwd: Path) -> float:
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def import_time() -> float:
    code = (
        "import time; t=time.perf_counter(); import pytest_openmed.plugin; "
        "print(time.perf_counter()-t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import pytest; " + code], capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def importtime_ms() -> tuple[float, float]:
    """(plugin minus pytest, pytest) cumulative import times in ms, from ``-X importtime``.

    Each line of the trace is ``import time: self | cumulative | <indent>name``;
    a module's children come before it, one indent level deeper.
    """
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pytest_openmed.plugin"],
        capture_output=True,
        text=True,
        check=True,
    )
    cumulative: dict[str, int] = {}
    for line in out.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[1].strip().isdigit():
            continue
        name = fields[2].rstrip()
        if name.strip() in ("pytest", "pytest_openmed.plugin"):
            cumulative[name.strip()] = int(fields[1])
    plugin, pytest = cumulative["pytest_openmed.plugin"], cumulative["pytest"]
    return (plugin - pytest) / 1000, pytest / 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "test_plain.py").write_text("def test_ok():\n    pass\n")
        run(["-p", "openmed"], cwd)  # warm the file cache
        with_plugin, without = [], []
        for _ in range(ROUNDS):
            without.append(run(["-p", "no:openmed"], cwd))
            with_plugin.append(run(["-p", "openmed"], cwd))
    imports = min(import_time() for _ in range(ROUNDS))
    for label, pick in (("median", statistics.median), ("best", min)):
        base, ours = pick(without), pick(with_plugin)
        print(f"[{label} of {ROUNDS}]")
        print(f"  pytest run without plugin (baseline): {base * 1000:8.1f} ms")
        print(f"  pytest run with -p openmed:           {ours * 1000:8.1f} ms")
        print(
            f"  added by the plugin:                  {(ours - base) * 1000:8.1f} ms (target < 20 ms)"
        )
        print(f"  ratio ours / baseline:                {ours / base:8.3f}")
    print(f"import pytest_openmed.plugin alone:     {imports * 1000:8.1f} ms (best, after pytest)")
    traces = [importtime_ms() for _ in range(ROUNDS)]
    for label, pick in (("median", statistics.median), ("best", min)):
        ours = pick(t[0] for t in traces)
        base = pick(t[1] for t in traces)
        print(f"[-X importtime, {label} of {ROUNDS}]")
        print(f"  pytest cumulative (baseline):         {base:8.1f} ms")
        print(f"  pytest_openmed.plugin minus pytest:   {ours:8.1f} ms (issue 12: ~7 ms)")
        print(f"  ratio ours / baseline:                {ours / base:8.3f}")


if __name__ == "__main__":
    main()
