"""One [[pack]] table may gate several candidates: ``candidates = [...]``, one item each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_openmed.contract import GateSettings, GateStatus
from pytest_openmed.multimodal._gate import evaluate_gate
from pytest_openmed.plugin.gate_files import GateFileError, parse_gate_file

from ._helpers import KEY, Scores, make_pack, reviews

ENV = "OPENMED_TEST_MULTIMODAL_KEY"
OK: Scores = (True, True, True, True)


def _gate_file(tmp_path: Path, candidate_line: str) -> Path:
    pack = make_pack(2, safety={0: {"cand-b": ["provenance"]}})
    review_list = reviews(pack, lambda u, n: OK, lambda u, n: OK)
    (tmp_path / "pack.json").write_text(json.dumps(pack.to_dict()), encoding="utf-8")
    for i, review in enumerate(review_list):
        (tmp_path / f"mapping-{i}.json").write_text(json.dumps(review.mapping.to_dict()))
        (tmp_path / f"review-{i}.json").write_text(json.dumps(review.to_dict()))
    path = tmp_path / "release.openmed.toml"
    path.write_text(
        '[[pack]]\nname = "forms"\npack = "pack.json"\n'
        'mappings = ["mapping-0.json", "mapping-1.json"]\n'
        'reviews = ["review-0.json", "review-1.json"]\n' + candidate_line + "\n",
        encoding="utf-8",
    )
    return path


def test_candidates_gives_one_verdict_per_candidate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY.decode("utf-8"))
    (spec,) = parse_gate_file(_gate_file(tmp_path, 'candidates = ["cand-a", "cand-b"]'))
    assert spec.items == ("cand-a", "cand-b")
    verdicts = evaluate_gate(spec, GateSettings(key_env=ENV))
    assert verdicts["cand-a"].status is GateStatus.PASSED
    assert (verdicts["cand-b"].status, verdicts["cand-b"].reason) == (GateStatus.BLOCKED, "safety")


@pytest.mark.parametrize(
    "line",
    [
        "",
        'candidate = "cand-a"\ncandidates = ["cand-b"]',
        "candidates = []",
        'candidates = ["cand-a", "cand-a"]',
        'candidates = ["cand-a", "cand-b", "cand-c"]',
        'candidates = "cand-a"',
        'candidates = ["bad name!"]',
    ],
)
def test_candidate_and_candidates_are_exclusive_and_checked(tmp_path: Path, line: str) -> None:
    with pytest.raises(GateFileError, match=r"\[\[pack\]\] #1: key 'candidate"):
        parse_gate_file(_gate_file(tmp_path, line))
