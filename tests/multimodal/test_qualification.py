"""Reviewer qualifications: declared scope, recusal, and a digest binding every field."""

from __future__ import annotations

import pytest

from pytest_openmed.multimodal import ReviewerQualification, ReviewOrigin, ValidationTask
from pytest_openmed.multimodal.errors import (
    InvalidInput,
    LimitExceeded,
    ReviewerOutOfScope,
    ReviewerRecused,
)
from pytest_openmed.multimodal.qualification import check_eligible

from ._helpers import d, replaced, reviewer


def test_eligible_reviewer_passes() -> None:
    check_eligible(reviewer(1), ValidationTask.FORMS)


def test_recused_reviewer_is_refused() -> None:
    with pytest.raises(ReviewerRecused):
        check_eligible(reviewer(1, recused=True), ValidationTask.FORMS)


def test_out_of_scope_reviewer_is_refused() -> None:
    with pytest.raises(ReviewerOutOfScope):
        check_eligible(reviewer(1), ValidationTask.WSI_TILES)


@pytest.mark.parametrize(
    "change",
    [
        {"identity_digest": d("other")},
        {"qualification_evidence_digest": d("new-evidence")},
        {"conflict_screening_digest": d("new-screening")},
        {"origin": ReviewOrigin.ATTESTED},
        {"recused": True},
        {"task_scope": frozenset({ValidationTask.FORMS, ValidationTask.BURNED_IN})},
    ],
)
def test_digest_binds_every_declared_field(change: dict[str, object]) -> None:
    base = reviewer(1)
    assert replaced(base, **change).digest != base.digest


def test_scope_accepts_labels_and_refuses_unknown_tasks() -> None:
    accepted = replaced(reviewer(1), task_scope=["forms", "burned_in"])
    assert accepted.task_scope == frozenset({ValidationTask.FORMS, ValidationTask.BURNED_IN})
    with pytest.raises(InvalidInput):
        replaced(reviewer(1), task_scope=["radiology"])
    with pytest.raises(InvalidInput):
        replaced(reviewer(1), task_scope=[])
    with pytest.raises(LimitExceeded):
        replaced(reviewer(1), task_scope=["forms"] * 7)


@pytest.mark.parametrize("value", ["jane.doe@example.org", "https://registry/1", ""])
def test_identity_and_evidence_must_be_digests(value: str) -> None:
    for field_name in (
        "identity_digest",
        "qualification_evidence_digest",
        "conflict_screening_digest",
    ):
        with pytest.raises(InvalidInput):
            replaced(reviewer(1), **{field_name: value})


def test_origin_and_recusal_types() -> None:
    with pytest.raises(InvalidInput):
        replaced(reviewer(1), origin="clinician")
    with pytest.raises(TypeError):
        replaced(reviewer(1), recused=1)
    assert (
        ReviewerQualification(
            identity_digest=d(1),
            task_scope=frozenset({"forms"}),  # type: ignore[arg-type]
            qualification_evidence_digest=d(2),
            conflict_screening_digest=d(3),
            origin="attested",  # type: ignore[arg-type]
        ).origin
        is ReviewOrigin.ATTESTED
    )


def test_repr_hides_digests() -> None:
    assert "sha256" not in repr(reviewer(1))
