"""Helpers for the plugin's pytester tests: a small claims project and the report schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from pytest_openmed.schemas import load_schema

CANARY = "ZQXCANARY"


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
