"""Claims gates inside ordinary tests: ``claim_scorer`` enforces the marker's thresholds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"


def load_claims() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((DATA / "claims.json").read_text("utf-8"))
    return records


def load_evidence() -> list[dict[str, Any]]:
    lines = (DATA / "evidence.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.openmed_claims(
    max_unsupported_rate=0.10,
    max_upper=0.25,
    classes={"diagnosis": {"max_unsupported_rate": 0.0}, "lab": {"max_unsupported_rate": 0.15}},
)
def test_discharge_summaries_are_grounded(claim_scorer: Any) -> None:
    report = claim_scorer(load_claims(), load_evidence())
    # The thresholds are enforced by the fixture; the report is there for more checks.
    assert report.overall.claim_count == 40
    assert report.evidence_count == 39
