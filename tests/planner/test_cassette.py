"""Record once, replay offline: byte-identical reports, and a stale request is an error."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner import scenarios, wire
from pytest_openmed.planner.cassette import (
    CassetteWriteError,
    StaleCassetteError,
    qualify_wire,
)
from pytest_openmed.planner.wire import DIALECTS
from pytest_openmed.planner.wire_controls import (
    anthropic_control_model,
    openai_control_model,
    openai_gullible_model,
)
from pytest_openmed.schemas import load_schema

from ._helpers import CONTROL_MODELS

CANARY = "QQCASSETTECANARY"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay must not open a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def record(tmp_path: Path, dialect: str, model: Any = None, suite: bool = True) -> Path:
    path = tmp_path / f"{dialect}.json"
    qualify_wire(
        dialect,
        model=model or CONTROL_MODELS[dialect],
        cassette=path,
        record=True,
        injection_suite=suite,
    )
    return path


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_recorded_cassette_replays_byte_identically_offline(
    tmp_path: Path, dialect: str, request: pytest.FixtureRequest
) -> None:
    live = qualify_wire(dialect, model=CONTROL_MODELS[dialect], injection_suite=True)
    path = record(tmp_path, dialect)
    request.getfixturevalue("no_network")
    replayed = qualify_wire(dialect, cassette=path, injection_suite=True)
    assert replayed.report.to_json() == live.report.to_json()
    assert replayed.injection is not None and live.injection is not None
    assert replayed.injection.to_json() == live.injection.to_json()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_recording_twice_writes_the_same_bytes_and_a_valid_document(
    tmp_path: Path, dialect: str
) -> None:
    first = record(tmp_path, dialect).read_bytes()
    second = record(tmp_path, dialect).read_bytes()
    assert first == second
    document = json.loads(first)
    Draft202012Validator(load_schema("planner-cassette")).validate(document)
    assert set(document["runs"]) == {"qualification"} | {
        f"injection[{style}]" for style in scenarios_styles()
    }


def scenarios_styles() -> tuple[str, ...]:
    from pytest_openmed.planner.declaration import INJECTION_STYLES

    return INJECTION_STYLES


def test_replay_never_calls_the_model(tmp_path: Path) -> None:
    path = record(tmp_path, "openai")
    calls: list[object] = []

    def spy(request: dict[str, Any]) -> object:
        calls.append(request)
        return openai_control_model(request)

    assert qualify_wire("openai", model=spy, cassette=path).report.qualified
    assert calls == []


def test_one_changed_word_of_the_rendered_prompt_makes_the_cassette_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = record(tmp_path, "anthropic")
    changed = wire.SYSTEM_TEMPLATE.replace("governed", "supervised", 1)
    assert changed != wire.SYSTEM_TEMPLATE
    monkeypatch.setattr(wire, "SYSTEM_TEMPLATE", changed)
    with pytest.raises(StaleCassetteError, match=r"^stale cassette: "):
        qualify_wire("anthropic", model=anthropic_control_model, cassette=path)


def test_a_changed_scenario_text_makes_the_cassette_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    path = record(tmp_path, "mcp", suite=False)
    changed = tuple(
        replace(s, task=s.task.replace("relative", "cousin")) for s in scenarios.SCENARIOS
    )
    monkeypatch.setattr("pytest_openmed.planner.harness.SCENARIOS", changed)
    with pytest.raises(StaleCassetteError):
        qualify_wire("mcp", cassette=path)


def test_another_dialect_is_stale(tmp_path: Path) -> None:
    path = record(tmp_path, "openai", suite=False)
    with pytest.raises(StaleCassetteError):
        qualify_wire("anthropic", cassette=path)


def test_a_suite_that_was_never_recorded_is_stale(tmp_path: Path) -> None:
    path = record(tmp_path, "openai", suite=False)
    assert qualify_wire("openai", cassette=path).report.qualified
    with pytest.raises(StaleCassetteError):
        qualify_wire("openai", cassette=path, injection_suite=True)


@pytest.mark.parametrize("cut", ["drop_last", "extra"])
def test_a_cassette_with_missing_or_unused_exchanges_is_stale(tmp_path: Path, cut: str) -> None:
    path = record(tmp_path, "openai", suite=False)
    document = json.loads(path.read_text())
    exchanges = document["runs"]["qualification"]
    if cut == "drop_last":
        exchanges.pop()
    else:
        exchanges.append(dict(exchanges[-1]))
    path.write_text(json.dumps(document))
    with pytest.raises(StaleCassetteError):
        qualify_wire("openai", cassette=path)


def test_an_edited_response_replays_as_recorded_not_as_the_live_model(tmp_path: Path) -> None:
    """Replay trusts the digest of the request, and answers with what the cassette says."""
    path = record(tmp_path, "openai", model=openai_gullible_model)
    replayed = qualify_wire("openai", cassette=path, injection_suite=True)
    assert replayed.injection is not None
    assert replayed.injection.compliance_count == 3


def test_a_model_error_is_recorded_and_replayed_as_a_planner_error(tmp_path: Path) -> None:
    def flaky(request: dict[str, Any]) -> object:
        if "exporting it" in json.dumps(request):
            raise TimeoutError("upstream timeout")
        return openai_control_model(request)

    path = tmp_path / "c.json"
    live = qualify_wire("openai", model=flaky, cassette=path, record=True)
    assert live.report.counts.planner_errors == 1
    replayed = qualify_wire("openai", cassette=path)
    assert replayed.report.to_json() == live.report.to_json()


def test_model_output_is_stored_raw_and_replayed(tmp_path: Path) -> None:
    def chatty(request: dict[str, Any]) -> object:
        response = openai_control_model(request)
        assert isinstance(response, dict)
        response["choices"][0]["message"]["content"] = f"{CANARY} thinking aloud"
        response["id"] = (f"{CANARY}-id", 1)  # a tuple: stored as JSON, a list
        return response

    path = tmp_path / "c.json"
    live = qualify_wire("openai", model=chatty, cassette=path, record=True)
    assert CANARY in path.read_text()
    assert qualify_wire("openai", cassette=path).report.to_json() == live.report.to_json()


def test_a_cassette_is_written_only_where_named_and_never_into_a_new_directory(
    tmp_path: Path,
) -> None:
    target = tmp_path / "missing" / "c.json"
    with pytest.raises(CassetteWriteError) as caught:
        qualify_wire("openai", model=openai_control_model, cassette=target, record=True)
    assert "missing" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_recording_needs_a_model_and_a_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="recording needs"):
        qualify_wire("openai", cassette=tmp_path / "c.json", record=True)
    with pytest.raises(ValueError, match="live wire qualification needs"):
        qualify_wire("openai")


@pytest.mark.parametrize(
    "raised", [GeneratorExit, pytest.skip.Exception], ids=["generator_exit", "pytest_skip"]
)
def test_a_model_raising_a_base_exception_is_recorded_and_replayed_alike(
    tmp_path: Path, raised: type[BaseException]
) -> None:
    """Not an ``Exception``, still the model's fault: recorded, so the replay is not stale."""

    def leaving(request: dict[str, Any]) -> object:
        if "exporting it" in json.dumps(request):
            raise raised("QQRECORDCANARY")
        return openai_control_model(request)

    path = tmp_path / "c.json"
    live = qualify_wire("openai", model=leaving, cassette=path, record=True)
    assert live.report.counts.planner_errors == 1
    assert "QQRECORDCANARY" not in path.read_text(encoding="utf-8")
    replayed = qualify_wire("openai", cassette=path)
    assert replayed.report.to_json() == live.report.to_json()
