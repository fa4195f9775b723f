"""The scripts share one peak-memory child and one target report, importable both ways.

``validation/*.py`` run as ``python validation/<script>.py`` (the folder is
first on ``sys.path``) and are imported by the tests as ``validation.<script>``;
both must reach the same ``validation/_report.py``.  The child that measures a
run's peak memory lives once, in ``pytest_openmed.development.peak_memory``;
no script carries a copy of it or of the report.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import validation._report

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("burned_in", "dicom_frames", "ecg", "forms", "wsi_tiles")
#: The report's names: defined in validation/_report.py only.
REPORT_NAMES = {"Report", "Target", "Line"}


def _sources() -> list[Path]:
    return sorted([*(ROOT / "validation").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")])


@pytest.mark.parametrize("script", SCRIPTS)
def test_imported_as_the_package_a_script_prints_through_the_one_report(script: str) -> None:
    module = importlib.import_module(f"validation.{script}")
    assert module.Report is validation._report.Report


def test_run_from_its_folder_a_script_prints_through_the_one_report() -> None:
    names = ", ".join(SCRIPTS)
    code = (
        "import sys; sys.path.insert(0, 'validation'); import _report; "
        f"import {names}; "
        f"assert all(m.Report is _report.Report for m in ({names},))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_no_script_defines_its_own_report_or_child() -> None:
    copies = []
    for path in _sources():
        if path.name == "_report.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            names = (
                [node.name]
                if isinstance(node, ast.ClassDef)
                else [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            )
            copies += [f"{path.name}:{name}" for name in names if name in REPORT_NAMES | {"_CHILD"}]
        docstring = ast.get_docstring(tree, clean=False)
        code = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        if any("VmHWM" in text for text in code if text != docstring):
            copies.append(f"{path.name}: reads VmHWM itself")
    assert copies == []
