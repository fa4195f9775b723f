"""A cassette records which model it holds; replaying it for another model is stale.

Recording writes the user-declared model identity and the planner reference
into the cassette; replay compares them with what the gate declares and names
the cause of a mismatch (never the values).  A cassette written before
cassettes recorded a model (schema version 1) is stale: record it again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner.cassette import (
    CassetteWithoutModel,
    ModelIdentityChanged,
    ModelIdentityNotRecorded,
    PlannerReferenceChanged,
    StaleCassetteError,
    load_cassette,
    qualify_wire,
    qualify_wire_trials,
)
from pytest_openmed.planner.wire_controls import openai_control_model
from pytest_openmed.schemas import load_schema

CANARY = "QQMODELCANARY"
IDENTITY = f"{CANARY}-model-2026-10"
REFERENCE = f"{CANARY.lower()}_pkg.models:triage"


def record(path: Path, identity: str | None = IDENTITY, trials: int = 1) -> Path:
    qualify_wire_trials(
        "openai",
        model=openai_control_model,
        cassette=path,
        record=True,
        reference=REFERENCE,
        model_identity=identity,
        trials=trials,
    )
    return path


def stale(path: Path, **declared: str | None) -> StaleCassetteError:
    with pytest.raises(StaleCassetteError) as caught:
        qualify_wire("openai", cassette=path, **declared)  # type: ignore[arg-type]
    error = caught.value
    for shown in (str(error), repr(error), repr(error.args)):
        assert CANARY not in shown and CANARY.lower() not in shown
    return error


def test_recording_writes_the_identity_and_the_reference(tmp_path: Path) -> None:
    document = json.loads(record(tmp_path / "c.json").read_text())
    assert (document["model_identity"], document["planner_reference"]) == (IDENTITY, REFERENCE)
    assert document["schema_version"] == 2
    Draft202012Validator(load_schema("planner-cassette")).validate(document)
    assert CANARY not in repr(load_cassette(tmp_path / "c.json"))


def test_the_same_model_replays(tmp_path: Path) -> None:
    path = record(tmp_path / "c.json")
    replayed = qualify_wire("openai", cassette=path, reference=REFERENCE, model_identity=IDENTITY)
    assert replayed.report.qualified


def test_a_replay_that_names_no_reference_does_not_compare_it(tmp_path: Path) -> None:
    path = record(tmp_path / "c.json")
    assert qualify_wire("openai", cassette=path, model_identity=IDENTITY).report.qualified


def test_another_model_identity_is_stale_and_says_so(tmp_path: Path) -> None:
    path = record(tmp_path / "c.json")
    error = stale(path, reference=REFERENCE, model_identity="vendor-model-2027-01")
    assert type(error) is ModelIdentityChanged
    assert str(error) == (
        "stale cassette: the model identity differs from the one the cassette records "
        "(or the gate declares none); record again"
    )
    assert type(stale(path, reference=REFERENCE)) is ModelIdentityChanged


def test_a_declared_identity_the_cassette_does_not_record_is_stale(tmp_path: Path) -> None:
    path = record(tmp_path / "c.json", identity=None)
    error = stale(path, reference=REFERENCE, model_identity=IDENTITY)
    assert type(error) is ModelIdentityNotRecorded
    assert "the cassette records no model identity" in str(error)


def test_another_planner_reference_is_stale_and_says_so(tmp_path: Path) -> None:
    path = record(tmp_path / "c.json")
    error = stale(path, reference="other_models:triage", model_identity=IDENTITY)
    assert type(error) is PlannerReferenceChanged
    assert str(error) == (
        "stale cassette: the planner reference differs from the one the cassette was "
        "recorded from; record again"
    )


def _version_one(path: Path) -> Path:
    """The cassette as schema version 1 wrote it: no identity, no reference."""
    document = json.loads(path.read_text())
    del document["model_identity"], document["planner_reference"]
    document["schema_version"] = 1
    path.write_text(json.dumps(document))
    return path


def test_a_cassette_of_schema_version_one_is_stale(tmp_path: Path) -> None:
    path = _version_one(record(tmp_path / "c.json", identity=None))
    error = stale(path)
    assert type(error) is CassetteWithoutModel and isinstance(error, ModelIdentityNotRecorded)
    assert str(error) == (
        "stale cassette: the cassette records no model identity and no planner reference "
        "(written before cassettes recorded which model they hold); record again"
    )


def test_recording_replaces_a_cassette_of_schema_version_one(tmp_path: Path) -> None:
    path = _version_one(record(tmp_path / "c.json", trials=1))
    record(path, trials=2)  # not resumed from: both trials recorded afresh
    document = json.loads(path.read_text())
    assert document["schema_version"] == 2 and set(document["runs"]) == {
        "qualification",
        "qualification@1",
    }
    assert qualify_wire_trials(
        "openai", cassette=path, reference=REFERENCE, model_identity=IDENTITY, trials=2
    ).trials


def test_recording_another_model_never_resumes_the_old_ones_trials(tmp_path: Path) -> None:
    calls = 0

    def counted(request: dict[str, object]) -> object:
        nonlocal calls
        calls += 1
        return openai_control_model(request)

    def recorded_calls(path: Path, trials: int) -> int:
        nonlocal calls
        calls = 0
        qualify_wire_trials(
            "openai",
            model=counted,
            cassette=path,
            record=True,
            reference=REFERENCE,
            model_identity=IDENTITY,
            trials=trials,
        )
        return calls

    per_trial = recorded_calls(tmp_path / "fresh.json", 1)
    path = record(tmp_path / "c.json", identity="old-model", trials=1)
    assert recorded_calls(path, 2) == 2 * per_trial  # trial 0 was not kept: another model
    assert recorded_calls(path, 3) == per_trial  # the same model resumes: one trial missing
    assert json.loads(path.read_text())["model_identity"] == IDENTITY


@pytest.mark.parametrize("identity", ["models/vendor", "", " x", "a" * 129, "naïve", 7])
def test_an_identity_that_is_not_a_name_is_refused_without_its_value(
    tmp_path: Path, identity: object
) -> None:
    with pytest.raises(ValueError, match="model identity must be a name") as caught:
        qualify_wire("openai", cassette=tmp_path / "c.json", model_identity=identity)  # type: ignore[arg-type]
    if isinstance(identity, str) and identity.strip():
        assert identity not in str(caught.value)
