"""Helpers for the plugin's pytester tests: a small claims project, its gates and the report schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_openmed.schemas import load_schema

CANARY = "ZQXCANARY"
#: The ``notes`` claims gate of :func:`write_claims_project`: one overall threshold, which passes.
NOTES_GATE = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.2\n"
)
#: ``NOTES_GATE`` with a ``medication`` class threshold, which fails (2 of its 10 unsupported).
NOTES_MEDICATION_GATE = NOTES_GATE + "[claims.classes.medication]\nmax_unsupported_rate = 0.1\n"
#: Runs a test serially and under two xdist workers.
WORKERS = pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])


def esc(text: str) -> str:
    """Escape ``[`` and ``]`` for ``fnmatch_lines`` (gate names contain brackets)."""
    return "".join(f"[{char}]" if char in "[]" else char for char in text)


def claim(index: int, klass: str, evidence: list[str]) -> dict[str, Any]:
    return {
        "claim_id": f"{CANARY}-claim-{index}",
        "claim_class": klass,
        "claim_key": {"fact": f"{CANARY}-key-{index}"},
        "evidence_ids": evidence,
    }


def evidence(index: int, relation: str = "supports") -> dict[str, Any]:
    return {
        "evidence_id": f"{CANARY}-ev-{index}",
        "claim_key": {"fact": f"{CANARY}-key-{index}"},
        "approved": True,
        "relation": relation,
    }


def write_claims_project(root: Path, gate_toml: str) -> None:
    """20 claims: diagnosis all supported; medication 2 of 10 unsupported (one uncited, one contradicted)."""
    claims = [claim(i, "diagnosis", [f"{CANARY}-ev-{i}"]) for i in range(10)]
    claims += [claim(i, "medication", [f"{CANARY}-ev-{i}"]) for i in range(10, 18)]
    claims += [claim(18, "medication", []), claim(19, "medication", [f"{CANARY}-ev-19"])]
    rows = [evidence(i) for i in range(18)] + [evidence(19, "contradicts")]
    (root / "claims.json").write_text(json.dumps(claims))
    (root / "evidence.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    (root / "gates.openmed.toml").write_text(gate_toml)


def validate_report(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    jsonschema.Draft202012Validator(load_schema("gate-report")).validate(document)
    return document


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` less what differs between two runs of the same gates (``run.timing``)."""
    from pytest_openmed.plugin.recorder import VOLATILE_RUN_KEYS

    run = {key: value for key, value in report["run"].items() if key not in VOLATILE_RUN_KEYS}
    return {**report, "run": run}


def ordinary_test(root: Path) -> None:
    """``test_other.py`` in ``root``: one ordinary passing test beside the gates."""
    (root / "test_other.py").write_text("def test_other():\n    pass\n")


def misnamed_project(root: Path, name: str = "gates.toml") -> None:
    """The claims project with its ``notes`` gate in ``name``, not a gate file; one ordinary test."""
    write_claims_project(root, NOTES_GATE)
    (root / "gates.openmed.toml").rename(root / name)
    ordinary_test(root)


def project_outside_testpaths(root: Path) -> None:
    """The claims project at ``root``, its ordinary test in ``tests/``: give it ``testpaths = tests``."""
    write_claims_project(root, NOTES_GATE)
    (root / "tests").mkdir()
    ordinary_test(root / "tests")
