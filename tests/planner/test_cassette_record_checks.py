"""Recording refuses what replay would refuse, and before any model call when it can."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import pytest_openmed.planner.cassette as cassette_module
from pytest_openmed.planner.cassette import (
    CassetteWriteError,
    StaleCassetteError,
    qualify_wire,
    qualify_wire_trials,
)
from pytest_openmed.planner.wire_controls import openai_control_model


def test_a_missing_directory_is_refused_before_any_model_call(tmp_path: Path) -> None:
    calls: list[int] = []

    def counted(request: dict[str, Any]) -> object:
        calls.append(1)
        return openai_control_model(request)

    target = tmp_path / "missing" / "c.json"
    with pytest.raises(CassetteWriteError, match="checked before any model call"):
        qualify_wire("openai", model=counted, cassette=target, record=True)
    assert calls == [] and list(tmp_path.iterdir()) == []


def test_a_recording_replay_would_refuse_as_too_large_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "c.json"
    qualify_wire("openai", model=openai_control_model, cassette=target, record=True)
    size = len(target.read_bytes())
    target.unlink()
    # The limit replay reads, lowered below this recording's size (one place: the module's).
    monkeypatch.setattr(cassette_module, "_MAX_CASSETTE_BYTES", size - 1)
    with pytest.raises(CassetteWriteError, match="would exceed 64 MiB"):
        qualify_wire("openai", model=openai_control_model, cassette=target, record=True)
    assert not target.exists()


def test_injection_suite_switched_on_after_recording_is_named_as_the_cause(
    tmp_path: Path,
) -> None:
    target = tmp_path / "c.json"
    qualify_wire("openai", model=openai_control_model, cassette=target, record=True)
    with pytest.raises(StaleCassetteError, match="injection_suite is on but the cassette holds"):
        qualify_wire("openai", cassette=target, injection_suite=True)
    with pytest.raises(StaleCassetteError, match="recorded in another dialect"):
        qualify_wire("anthropic", cassette=target)


def test_runs_the_gate_does_not_ask_for_are_not_read(tmp_path: Path) -> None:
    """As documented: a cassette with the suite's runs replays a gate without the suite."""
    target = tmp_path / "c.json"
    both = qualify_wire(
        "openai", model=openai_control_model, cassette=target, record=True, injection_suite=True
    )
    assert qualify_wire("openai", cassette=target).report == both.report


def test_the_suite_switched_on_is_named_even_when_trials_were_raised_too(
    tmp_path: Path,
) -> None:
    target = tmp_path / "c.json"
    qualify_wire("openai", model=openai_control_model, cassette=target, record=True)
    with pytest.raises(StaleCassetteError, match="injection_suite is on but the cassette holds"):
        qualify_wire_trials("openai", cassette=target, injection_suite=True, trials=2)


def test_a_recording_says_what_it_wrote_and_a_replay_that_it_wrote_nothing(
    tmp_path: Path,
) -> None:
    target = tmp_path / "c.json"
    live = qualify_wire_trials("openai", model=openai_control_model, cassette=target, record=True)
    assert live.recording is not None
    assert (live.recording.recorded, live.recording.kept, live.recording.runs) == (1, 0, 1)
    assert live.recording.describe().startswith("cassette recorded: 1 trial, 1 run, ")
    resumed = qualify_wire_trials(
        "openai", model=openai_control_model, cassette=target, record=True, trials=2
    )
    assert resumed.recording is not None and (
        resumed.recording.recorded,
        resumed.recording.kept,
    ) == (1, 1)
    assert qualify_wire_trials("openai", cassette=target, trials=2).recording is None
    assert qualify_wire_trials("openai", model=openai_control_model).recording is None
