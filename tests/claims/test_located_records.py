"""A refused claim or evidence record is named by its position (and, in a gate, its line or
index) and its field, never by its values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_openmed.claims import messages, score_summary_claims
from pytest_openmed.claims._gate import evaluate_gate
from pytest_openmed.contract import GateSettings, GateSpec
from pytest_openmed.plugin.gate_files import parse_gate_file

from ._helpers import claim, evidence

CANARY = "QQRECORDCANARY"


def test_a_record_is_named_by_its_position() -> None:
    claims = [claim("c1", ["e1"]), {"claim_class": "lab", "claim_key": CANARY, "evidence_ids": []}]
    with pytest.raises(ValueError) as caught:
        score_summary_claims(claims, [evidence("e1")])
    assert str(caught.value) == "claims record 1: " + messages.CLAIM_ID_MISSING
    bad = evidence(f"{CANARY}-e2", relation=f"{CANARY}-maybe")
    with pytest.raises(ValueError) as refused:
        score_summary_claims([], [evidence("e1"), bad])
    assert str(refused.value) == "evidence record 1: " + messages.RELATION_TYPE
    assert CANARY not in str(refused.value) + repr(refused.value)


def _gate(tmp_path: Path, claims_text: str, evidence_text: str) -> GateSpec:
    (tmp_path / "claims.jsonl").write_text(claims_text)
    (tmp_path / "evidence.json").write_text(evidence_text)
    gate = tmp_path / "g.openmed.toml"
    gate.write_text(
        '[[claims]]\nname = "notes"\nclaims = "claims.jsonl"\nevidence = "evidence.json"\n'
        "max_upper = 1.0\n"
    )
    (spec,) = parse_gate_file(gate)
    return spec


def test_a_gate_names_the_json_lines_line_and_the_array_index(tmp_path: Path) -> None:
    lines = json.dumps(claim("c1", [])) + "\n\n" + json.dumps({"claim_id": "c2"}) + "\n"
    spec = _gate(tmp_path, lines, "[]")
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings())
    assert str(caught.value) == "claims input, line 3: " + messages.CLAIM_CLASS_MISSING
    rows = [evidence("e1"), evidence("e2", relation=f"{CANARY}")]
    spec = _gate(tmp_path, json.dumps(claim("c1", [])) + "\n", json.dumps(rows))
    with pytest.raises(ValueError) as refused:
        evaluate_gate(spec, GateSettings())
    assert str(refused.value) == "evidence input, index 1: " + messages.RELATION_TYPE


def test_an_evidence_file_that_is_one_object_says_which_record(tmp_path: Path) -> None:
    spec = _gate(tmp_path, "[]", json.dumps({"rows": [evidence("e1")]}))
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings())
    assert str(caught.value) == "evidence input, line 1: " + messages.EVIDENCE_ID_MISSING
