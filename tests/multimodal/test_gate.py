"""The [[pack]] gate adapter: stored documents in, one value-free verdict out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.contract import EVALUATORS, ArgumentSource, GateSettings, GateSpec, GateStatus
from pytest_openmed.multimodal import (
    Adjudication,
    CompletedReview,
    ValidationPack,
    assess_validation,
)
from pytest_openmed.multimodal._gate import (
    MissingEvaluatorKey,
    UnsetEvaluatorKey,
    evaluate_gate,
    gate_result,
)
from pytest_openmed.multimodal.declaration import declare
from pytest_openmed.multimodal.errors import (
    DocumentInvalid,
    DuplicateMapping,
    MissingMapping,
    ReviewCountRefused,
    StaleEvidence,
    WrongKey,
)
from pytest_openmed.plugin.gate_files import parse_gate_file

from ._helpers import (
    KEY,
    OTHER_KEY,
    Scores,
    adjudicate,
    conflict_digests,
    make_pack,
    reviewer,
    reviews,
)

A = "cand-a"
ENV = "OPENMED_TEST_MULTIMODAL_KEY"
OK: Scores = (True, True, True, True)


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _store(
    tmp_path: Path,
    pack: ValidationPack,
    review_list: list[CompletedReview],
    adjudications: Sequence[Adjudication] = (),
) -> dict[str, Any]:
    mappings = [r.mapping for r in review_list] + [a.mapping for a in adjudications]
    return {
        "pack": _write(tmp_path / "pack.json", pack.to_dict()),
        "mappings": tuple(
            _write(tmp_path / f"mapping-{i}.json", m.to_dict()) for i, m in enumerate(mappings)
        ),
        "reviews": tuple(
            _write(tmp_path / f"review-{i}.json", r.to_dict()) for i, r in enumerate(review_list)
        ),
        "adjudications": tuple(
            _write(tmp_path / f"adj-{i}.json", a.to_dict()) for i, a in enumerate(adjudications)
        ),
        "candidate": A,
        "min_cell": None,
    }


def _spec(options: dict[str, Any]) -> GateSpec:
    fields = {key: value for key, value in options.items() if value is not None}
    return GateSpec(kind="pack", name="forms", declaration=declare(fields, ArgumentSource()))


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> GateSettings:
    monkeypatch.setenv(ENV, KEY.decode("utf-8"))
    return GateSettings(key_env=ENV)


def test_rubric_satisfied_passes(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(3)
    result = evaluate_gate(
        _spec(_store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))), key_env
    )
    verdict = result[A]
    assert verdict.status is GateStatus.PASSED and verdict.reason == "ok"
    assert dict(verdict.metrics) == {
        "units": 3,
        "reviews": 2,
        "adjudications": 0,
        "review_origin": "development_simulation",
    }


def test_safety_failure_blocks(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(3, safety={1: {A: ["privacy"]}})
    verdict = evaluate_gate(
        _spec(_store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))), key_env
    )[A]
    assert (verdict.status, verdict.reason) == (GateStatus.BLOCKED, "safety")
    text = verdict.failure_text()
    assert text.startswith("decision blocked: a privacy or provenance rating failed; ")
    assert "openmed pack gate: blocked (safety)" in text
    assert "sha256" not in text and "cand-" not in text


def test_disagreement_holds_and_adjudication_releases(
    tmp_path: Path, key_env: GateSettings
) -> None:
    pack = make_pack(3)
    disputed = lambda u, n: (True, False, True, True) if (u, n) == (2, A) else OK  # noqa: E731
    review_list = reviews(pack, lambda u, n: OK, disputed)
    held = evaluate_gate(_spec(_store(tmp_path, pack, review_list)), key_env)[A]
    assert (held.status, held.reason) == (
        GateStatus.HOLD,
        "disagreement",
    )
    adjudication = adjudicate(
        pack, reviewer(7), 2, A, OK, conflict_digests(pack, review_list, 2, A)
    )
    released = evaluate_gate(_spec(_store(tmp_path, pack, review_list, [adjudication])), key_env)[A]
    assert (released.status, released.metrics["adjudications"]) == (GateStatus.PASSED, 1)


def test_all_abstention_holds(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(2, abstain={0: [A], 1: [A]})
    verdict = evaluate_gate(
        _spec(_store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))), key_env
    )[A]
    assert (verdict.status, verdict.reason) == (GateStatus.HOLD, "all_abstained")


def test_missing_key_configuration_is_a_fixed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack(1)
    spec = _spec(_store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK)))
    with pytest.raises(MissingEvaluatorKey, match="--openmed-key-env"):
        evaluate_gate(spec, GateSettings(key_env=None))
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(UnsetEvaluatorKey) as unset:  # says the variable is unset
        evaluate_gate(spec, GateSettings(key_env=ENV))
    assert isinstance(unset.value, MissingEvaluatorKey)
    assert str(unset.value).startswith(f"the evaluator key environment variable {ENV} is unset")
    assert "--openmed-key-env" not in str(unset.value)


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ("pack", "pack input: "),
        ("mappings", "mappings input #2: "),
        ("reviews", "reviews input #1: "),
    ],
)
def test_a_refused_document_says_which_input_it_was(
    tmp_path: Path, key_env: GateSettings, document: str, where: str
) -> None:
    pack = make_pack(1)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    target = (
        options[document]
        if document == "pack"
        else options[document][-1 if document == "mappings" else 0]
    )
    target.write_text('{"ZQXCANARY": [1, ', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        evaluate_gate(_spec(options), key_env)
    assert str(caught.value).startswith(where)
    assert "ZQXCANARY" not in str(caught.value) and str(tmp_path) not in str(caught.value)


def test_wrong_key_propagates_as_a_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = make_pack(1)
    spec = _spec(_store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK)))
    monkeypatch.setenv(ENV, OTHER_KEY.decode())
    with pytest.raises(WrongKey):
        evaluate_gate(spec, GateSettings(key_env=ENV))
    monkeypatch.setenv(ENV, "too-short")
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings(key_env=ENV))
    assert "too-short" not in str(caught.value)


def test_pack_changed_after_review_is_refused(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(2)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    _write(options["pack"], make_pack(2, intended_use="changed").to_dict())
    with pytest.raises(StaleEvidence):
        evaluate_gate(_spec(options), key_env)


def test_review_without_its_mapping_is_refused(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(2)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    options["mappings"] = options["mappings"][:1]
    with pytest.raises(MissingMapping):
        evaluate_gate(_spec(options), key_env)
    options["mappings"] = (options["mappings"][0], options["mappings"][0])
    with pytest.raises(DuplicateMapping):
        evaluate_gate(_spec(options), key_env)


def test_nine_review_files_are_refused_before_reading(
    tmp_path: Path, key_env: GateSettings
) -> None:
    pack = make_pack(1)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    options["reviews"] = tuple(tmp_path / f"absent-{i}.json" for i in range(9))
    with pytest.raises(ReviewCountRefused):
        evaluate_gate(_spec(options), key_env)


def test_unreadable_and_malformed_files_give_fixed_errors(
    tmp_path: Path, key_env: GateSettings
) -> None:
    pack = make_pack(1)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    secret_name = tmp_path / "canary-secret-path.json"
    with pytest.raises(OSError) as caught:
        evaluate_gate(_spec({**options, "pack": secret_name}), key_env)
    assert "canary" not in str(caught.value)
    secret_name.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError) as invalid:
        evaluate_gate(_spec({**options, "pack": secret_name}), key_env)
    assert "canary" not in str(invalid.value)


def test_min_cell_comes_from_settings_unless_the_gate_sets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY.decode())
    pack = make_pack(1)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    with pytest.raises(ValueError):
        evaluate_gate(_spec(options), GateSettings(key_env=ENV, min_cell=4))
    assert evaluate_gate(_spec({**options, "min_cell": 9}), GateSettings(key_env=ENV, min_cell=4))[
        A
    ].passed


def test_gate_result_is_the_pure_mapping_of_an_assessment() -> None:
    pack = make_pack(2, safety={0: {A: ["provenance"]}})
    assessment = assess_validation(
        pack, pack.candidate(A), reviews(pack, lambda u, n: OK, lambda u, n: OK), key=KEY
    )
    verdict = gate_result(assessment)
    assert (verdict.kind, verdict.status, verdict.reason) == ("pack", GateStatus.BLOCKED, "safety")
    assert "sha256" not in verdict.failure_text()
    # Totals only: no count of failing units (a small cell) reaches a CI log;
    # the review origin (a closed label) says whether the reviews were simulated.
    assert set(verdict.metrics) == {"units", "reviews", "adjudications", "review_origin"}
    assert verdict.metrics["review_origin"] == assessment.review_origin.value


def test_gate_file_to_verdict(tmp_path: Path, key_env: GateSettings) -> None:
    pack = make_pack(2)
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    gate_file = tmp_path / "release.openmed.toml"
    gate_file.write_text(
        "[[pack]]\n"
        'name = "forms-release"\n'
        f'pack = "{options["pack"].name}"\n'
        f"mappings = {json.dumps([p.name for p in options['mappings']])}\n"
        f"reviews = {json.dumps([p.name for p in options['reviews']])}\n"
        'candidate = "cand-a"\n',
        encoding="utf-8",
    )
    (spec,) = parse_gate_file(gate_file)
    assert EVALUATORS["pack"] == "pytest_openmed.multimodal._gate:evaluate_gate"
    verdicts = evaluate_gate(spec, key_env)
    assert verdicts["cand-a"].status is GateStatus.PASSED


def test_stored_evidence_with_a_repeated_name_is_refused(
    tmp_path: Path, key_env: GateSettings
) -> None:
    """A reader that keeps the first "ratings" would audit other ratings than the gate assessed."""
    pack = make_pack(3)
    failing, passing = (
        reviews(pack, lambda u, n: (True, True, False, True), lambda u, n: OK)[0],
        reviews(pack, lambda u, n: OK, lambda u, n: OK)[0],
    )
    options = _store(tmp_path, pack, reviews(pack, lambda u, n: OK, lambda u, n: OK))
    stored = failing.to_dict()
    text = (
        json.dumps(stored)[:-1] + ', "ratings": ' + json.dumps(passing.to_dict()["ratings"]) + "}"
    )
    options["reviews"][0].write_text(text, encoding="utf-8")
    with pytest.raises(DocumentInvalid):
        evaluate_gate(_spec(options), key_env)
