"""The closed vocabularies are exactly the seed's labels."""

from __future__ import annotations

from pytest_openmed.multimodal import (
    CaseSlice,
    Decision,
    DisagreementReason,
    ReviewOrigin,
    ValidationTask,
)
from pytest_openmed.multimodal.vocabulary import CRITERIA, LIMITATIONS, METRICS


def test_tasks_slices_origins_and_decisions() -> None:
    assert [t.value for t in ValidationTask] == [
        "ecg_quality",
        "ecg_intervals",
        "forms",
        "dicom_frames",
        "burned_in",
        "wsi_tiles",
    ]
    assert [s.value for s in CaseSlice] == ["nominal", "adverse_acquisition", "ambiguity_conflict"]
    assert {o.name for o in ReviewOrigin} == {"ATTESTED", "SIMULATED"}
    assert [d.value for d in Decision] == ["blocked", "hold", "rubric_satisfied"]
    assert str(Decision.BLOCKED) == "blocked"
    assert len(list(DisagreementReason)) >= 1


def test_rubric_and_metrics() -> None:
    assert CRITERIA == ("quality", "utility", "privacy", "provenance")
    assert METRICS == (*CRITERIA, "emission", "reviewer_agreement", "adjudication")


def test_limitations_state_non_diagnostic_and_no_population_inference() -> None:
    text = " ".join(LIMITATIONS)
    assert "Non-diagnostic" in text and "patient care" in text
    assert "population inference" in text and "differential privacy" in text
