"""A limit a message quotes is formatted from its constant, never written out again.

Each row names a module and a number or phrase its messages once spelled out
by hand; the module's string literals (docstrings aside) must not hold it
any more, and each constant is assigned in exactly one module.  The rendered
texts stay byte-identical: ``tests/test_troubleshooting_messages.py`` and the
engines' message tests compare them.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent

#: (module, text its messages once quoted instead of the constant).
RESTATED = [
    ("claims/messages.py", "100,000"),
    ("claims/messages.py", "200,000"),
    ("claims/messages.py", "20,000,000"),
    ("claims/messages.py", "10,000"),
    ("claims/messages.py", "512"),
    ("claims/messages.py", "64 MiB"),
    ("claims/messages.py", "256 MiB"),
    ("claims/messages.py", "2**63"),
    ("multimodal/errors.py", "at least 5"),
    ("multimodal/errors.py", "two candidate"),
    ("multimodal/errors.py", "two to eight"),
    ("multimodal/pack.py", "exactly two"),
    ("multimodal/pack.py", "the two "),
    ("multimodal/pack.py", "one to eight"),
    ("multimodal/pack.py", "more than 8"),
    ("multimodal/pack.py", "4 MiB"),
    ("multimodal/pack.py", "2000 characters"),
    ("multimodal/pack.py", "six validation"),
    ("multimodal/review.py", "255"),
    ("multimodal/review.py", "256 packets"),
    ("multimodal/review.py", "eight"),
    ("multimodal/ratings.py", "512"),
    ("multimodal/ratings.py", "eight"),
    ("multimodal/assess.py", "512"),
    ("multimodal/qualification.py", "six"),
    ("plugin/__init__.py", "default 5,"),
    ("plugin/__init__.py", "100000"),
    ("plugin/__init__.py", "default 50"),
    ("plugin/options.py", "10000"),
    ("plugin/options.py", "1024 characters"),
    ("plugin/waivers.py", "256 KiB"),
    ("plugin/gate_files.py", "1 MiB"),
    ("plugin/fixtures.py", "1 to 9"),
    ("planner/cassette.py", "64 MiB"),
    ("planner/cassette.py", "1 to 64"),
    ("planner/cassette.py", "0 to 10"),
    ("planner/cassette.py", "0 to 60"),
    ("planner/report.py", "1 MiB"),
    ("planner/served.py", "3600"),
    ("report/baseline.py", "64 MiB"),
    ("report/cli.py", "1 to 1000"),
    ("components/_base.py", "4 MiB"),
    ("components/burned_in.py", "[0, 64]"),
    ("components/burned_in.py", "0 and 512"),
    ("components/forms.py", "4096"),
    ("components/forms.py", "128 fields"),
    ("components/forms.py", "(0, 45]"),
    ("components/dicom_frames.py", "1..4096"),
    ("components/ecg_quality.py", "0..12"),
    ("components/wsi_tiles.py", "16..2048"),
    ("components/wsi_tiles.py", "1..1024"),
    ("components/wsi_tiles.py", "0..16"),
    ("components/dicom_frames.py", "0.5..16"),
    ("multimodal/pack.py", "slice must be one of: nominal"),
    ("development/sources/__init__.py", "slice must be one of: nominal"),
    ("development/sources/dicom.py", "16..512"),
    ("development/sources/dicom.py", "64..512"),
    ("development/sources/wsi.py", "3..6"),
    ("development/sources/wsi.py", "512..4096"),
    ("carriers/ecg.py", "100..2000"),
    ("report/load.py", "64 MiB"),
    ("strategies/multimodal.py", "1 to 8"),
    ("strategies/multimodal.py", "<= 16"),
    ("strategies/claims.py", "<= 500"),
    ("strategies/planner.py", "<= 16"),
    ("plugin/gate_files.py", "1-64"),
    ("multimodal/lineage.py", "1-64"),
]

#: Limits that more than one module once defined; each now has one assignment.
ONE_DEFINITION = ("MIN_CELL", "MAX_MIN_CELL", "MAX_RESAMPLES", "DEFAULT_RESAMPLES", "MAX_SEED")


def _literals(path: Path) -> list[str]:
    """The string literals of a module, docstrings left out (they may quote a limit)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


@pytest.mark.parametrize(("module", "text"), RESTATED)
def test_a_message_quotes_the_limit_through_its_constant(module: str, text: str) -> None:
    assert not [literal for literal in _literals(PACKAGE / module) if text in literal]


def test_each_shared_limit_is_assigned_in_one_module() -> None:
    assigned: Counter[str] = Counter()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                assigned.update(t.id for t in node.targets if isinstance(t, ast.Name))
    assert {name: assigned[name] for name in ONE_DEFINITION} == dict.fromkeys(ONE_DEFINITION, 1)


def test_the_engines_limits_are_the_shared_ones() -> None:
    from pytest_openmed import _validate
    from pytest_openmed.claims import limits as claims_limits
    from pytest_openmed.claims import report
    from pytest_openmed.multimodal import limits as pack_limits

    assert pack_limits.MIN_CELL is _validate.MIN_CELL
    assert pack_limits.MAX_MIN_CELL is _validate.MAX_MIN_CELL
    assert claims_limits.MAX_RESAMPLES is report.MAX_RESAMPLES is _validate.MAX_RESAMPLES
