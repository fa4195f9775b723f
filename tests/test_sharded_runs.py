"""N = 1, 2, 4 shard processes, merged, give the single-machine report and verdict.

Over the development controls, with the project's own sharded CI script
``.ci/controls-sharded`` (a reduced set: the claims control, the eleven
planner controls and two of the six packs; the four slowest packs would make
this test take minutes without covering anything the others do not) and over
``examples/downstream`` run with the shard and merge commands of its GitHub
workflow, which is also the workflow ``docs/ci.md`` shows.  Every shard is a
separate ``python -m pytest`` process, and ``-n 2`` inside the shards changes
nothing.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "downstream"
WORKFLOW = EXAMPLE / ".github" / "workflows" / "gates.yml"
#: The reduced control set (see the module docstring); ``CONTROLS[3:]`` is its ``-k``.
CONTROLS = ("-p", "openmed", "--openmed-controls", "-k", "not ecg and not wsi and not dicom")


def _environ() -> dict[str, str]:
    environ = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTEST_", "GITHUB_", "HYPOTHESIS_", "CI_", "BUILDKITE"))
    }
    environ.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", EXAMPLE_EVALUATOR_KEY="key-" + "5e" * 24)
    return environ


def _run(root: Path, command: list[str]) -> int:
    done = subprocess.run(
        command, cwd=root, env=_environ(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return done.returncode


def _folded(text: str, starts: str) -> list[str]:
    """The words of the folded (``>-``) ``run:`` block of the workflow starting with ``starts``."""
    for block in re.findall(r"- run: >-\n((?:\s{10}\S.*\n)+)", text):
        folded = " ".join(line.strip() for line in block.splitlines())
        words = shlex.split(folded.replace("${{ matrix.shard }}", "{I}"))
        if " ".join(words).startswith(starts):
            return words
    raise AssertionError(f"no run block starting with {starts!r}")


def _pytest(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]


def _merge(root: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    shards = sorted(glob.glob(str(root / "shard-*.json")))
    out = root / "merged.json"
    command = [sys.executable, "-m", "pytest_openmed.report.cli", "merge", *shards, "-o", str(out)]
    code = _run(root, [*command, *extra])
    document: dict[str, Any] = json.loads(out.read_text())
    return code, document


def _without_run(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "run"}


def _sharded(root: Path, count: int, base: list[str], *extra: str) -> tuple[int, dict[str, Any]]:
    for old in root.glob("shard-*.json"):
        old.unlink()
    for index in range(1, count + 1):
        _run(
            root,
            [
                *base,
                f"--openmed-shard={index}/{count}",
                f"--openmed-report=shard-{index}.json",
                *extra,
            ],
        )
    return _merge(root)


@pytest.fixture(scope="module")
def controls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, dict[str, Any]]:
    root = tmp_path_factory.mktemp("controls")
    code = _run(root, _pytest(*CONTROLS, "--openmed-report=serial.json"))
    return root, code, json.loads((root / "serial.json").read_text())


def _controls_sharded(root: Path, count: int, *extra: str) -> tuple[int, dict[str, Any]]:
    """The control run's own sharded CI script: N concurrent shards, then the merge."""
    out = root / f"sharded-{count}{'-xdist' if extra else ''}"
    out.mkdir()
    script = ROOT / ".ci" / "controls-sharded"
    done = subprocess.run(
        ["bash", str(script), str(count), str(out), *CONTROLS[3:], *extra],
        cwd=root,
        env=_environ(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    document: dict[str, Any] = json.loads((out / "merged.json").read_text())
    return done.returncode, document


@pytest.mark.parametrize("count", [1, 2, 4])
def test_sharded_controls_merge_into_the_serial_run(
    controls: tuple[Path, int, dict[str, Any]], count: int
) -> None:
    root, serial_code, serial = controls
    code, merged = _controls_sharded(root, count)
    assert code == serial_code == 0
    assert _without_run(merged) == _without_run(serial)
    assert merged["run"]["partial_selection"] is serial["run"]["partial_selection"] is True  # -k
    assert len(merged["run"]["shards"]) == count
    assert merged["summary"]["gates"] > 40


def test_xdist_inside_control_shards_changes_nothing(
    controls: tuple[Path, int, dict[str, Any]],
) -> None:
    root, _, serial = controls
    code, merged = _controls_sharded(root, 2, "-p", "xdist", "-n", "2")
    assert code == 0
    assert _without_run(merged) == _without_run(serial)


@pytest.fixture(scope="module")
def downstream(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("downstream") / "project"
    shutil.copytree(
        EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache")
    )
    words = _folded(WORKFLOW.read_text(), "python -m pytest")
    assert words[:3] == ["python", "-m", "pytest"]
    base = [
        word for word in words[3:] if not word.startswith(("--openmed-shard", "--openmed-report"))
    ]
    assert "--openmed-shard={I}/4" in words
    assert "--openmed-report=shard-{I}.json" in words
    _run(root, _pytest(*base, "--openmed-report=serial.json"))
    return root, _pytest(*base)


@pytest.mark.parametrize("count", [1, 2, 4])
def test_the_documented_workflow_gives_the_single_machine_verdict(
    downstream: tuple[Path, list[str]], count: int
) -> None:
    root, base = downstream
    serial = json.loads((root / "serial.json").read_text())
    code, merged = _sharded(root, count, base)
    assert code == serial["run"]["exit_status"] == 1  # the example's overeager planner fails
    assert _without_run(merged) == _without_run(serial)
    for key in ("partial_selection", "deselected", "seed", "resamples", "environment"):
        assert merged["run"][key] == serial["run"][key], key


def test_the_workflow_merge_step_writes_every_output(downstream: tuple[Path, list[str]]) -> None:
    root, base = downstream
    words = _folded(WORKFLOW.read_text(), "openmed-report merge")
    assert words[:4] == ["openmed-report", "merge", "shard-*.json", "-o"]
    _sharded(root, 2, base)
    shards = sorted(str(path) for path in root.glob("shard-*.json"))
    command = [sys.executable, "-m", "pytest_openmed.report.cli", "merge", *shards, *words[3:]]
    assert _run(root, command) == 1
    for name in ("gates.json", "gates.html", "gates.md", "gates.sarif"):
        assert (root / name).stat().st_size > 0, name


def test_xdist_inside_downstream_shards_changes_nothing(
    downstream: tuple[Path, list[str]],
) -> None:
    root, base = downstream
    serial = json.loads((root / "serial.json").read_text())
    _, merged = _sharded(root, 2, base, "-p", "xdist", "-n", "2")
    assert _without_run(merged) == _without_run(serial)


def test_the_docs_show_the_example_workflow() -> None:
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert WORKFLOW.read_text(encoding="utf-8") in page
