"""Canary strings planted in every input never reach a repr, an error or the public report."""

from __future__ import annotations

import json

import pytest

from pytest_openmed.multimodal import (
    CandidateLineage,
    Observation,
    ValidationPack,
    assess_validation,
    prepare_review,
)
from pytest_openmed.multimodal.errors import DocumentInvalid, InvalidInput
from pytest_openmed.multimodal.jsonvalue import FrozenJson
from tests._imports import HEAVY, modules_after

from ._helpers import (
    KEY,
    adjudicate,
    candidate,
    complete,
    conflict_digests,
    d,
    make_case,
    make_pack,
    replaced,
    reviewer,
)

CANARY = "canary-4471-zz"


def _canary_pack() -> ValidationPack:
    cases = [
        make_case(
            u,
            context={"patient": f"{CANARY}-name", "mrn": f"{CANARY}-mrn"},
            outputs={"cand-a": {"text": f"{CANARY}-a"}, "cand-b": {"text": f"{CANARY}-b"}},
        )
        for u in range(3)
    ]
    return make_pack(cases=cases, intended_use=f"{CANARY}-use", limitations=(f"{CANARY}-limit",))


def test_reprs_of_every_value_object_carry_no_values() -> None:
    pack = _canary_pack()
    disputed = lambda u, n: (False, True, True, True) if (u, n) == (0, "cand-a") else (True,) * 4  # noqa: E731
    review_list = [complete(pack, reviewer(0)), complete(pack, reviewer(1), disputed)]
    conflict = conflict_digests(pack, review_list, 0, "cand-a")
    adjudication = adjudicate(pack, reviewer(5), 0, "cand-a", (True,) * 4, conflict)
    held = assess_validation(pack, pack.candidates[0], review_list, key=KEY)
    assessed = assess_validation(
        pack, pack.candidates[0], review_list, key=KEY, adjudications=[adjudication]
    )
    prepared = review_list[0].prepared
    objects: list[object] = [
        pack,
        *pack.candidates,
        pack.cases[0],
        *pack.cases[0].observations,
        pack.cases[0].assets[0],
        pack.cases[0].references[0],
        pack.cases[0].context,
        pack.cases[0].observations[0].blinded,
        reviewer(0),
        prepared,
        prepared.packets[0],
        prepared.mapping,
        review_list[0].ratings[0],
        review_list[0],
        adjudication,
        held,
        held.pending_conflicts[0],
        assessed,
        assessed.units[0],
    ]
    for value in objects:
        text = repr(value)
        assert CANARY not in text, type(value).__name__
        assert "sha256:" not in text, type(value).__name__
        assert "cand-" not in text, type(value).__name__


def test_packets_shown_to_reviewers_carry_outputs_but_not_evaluator_material() -> None:
    pack = _canary_pack()
    text = json.dumps(prepare_review(pack, reviewer(0), key=KEY).packets_to_dict())
    assert f"{CANARY}-a" in text  # the outputs themselves are what reviewers judge
    for hidden in (
        f"{CANARY}-use",
        f"{CANARY}-limit",
        "cand-a",
        "cand-b",
        pack.candidates[0].digest,
    ):
        assert hidden not in text


@pytest.mark.parametrize(
    "build",
    [
        lambda: CandidateLineage(f"{CANARY}/model", *(d(i) for i in range(6))),
        lambda: replaced(candidate("cand-a"), model_digest=f"https://{CANARY}.example/model"),
        lambda: FrozenJson({1: CANARY}, max_bytes=1024),
        lambda: Observation("cand-a", {"x": CANARY}, safety_failures=frozenset({CANARY})),  # type: ignore[arg-type]
        lambda: replaced(reviewer(0), identity_digest=f"{CANARY}@example.org"),
        lambda: replaced(make_pack(1), dataset_license_digest=f"{CANARY}/dataset"),
        lambda: ValidationPack.from_dict({"schema": CANARY}),
    ],
)
def test_errors_never_echo_input(build: object) -> None:
    with pytest.raises((InvalidInput, DocumentInvalid, TypeError)) as caught:
        build()  # type: ignore[operator]
    assert CANARY not in str(caught.value)
    assert caught.value.__cause__ is None or CANARY not in str(caught.value.__cause__)


def test_importing_the_engine_loads_no_heavy_dependency() -> None:
    loaded = modules_after("import pytest_openmed.multimodal, pytest_openmed.multimodal._gate")
    assert loaded.isdisjoint(HEAVY)
