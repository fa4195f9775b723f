"""k-trial cassettes: keyed by trial index, replayed exactly, resumed, recorded concurrently."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.planner.cassette import (
    FewerTrialsError,
    RecordingPolicy,
    StaleCassetteError,
    load_cassette,
    qualify_wire_trials,
    response_tokens,
)
from pytest_openmed.planner.wire_controls import openai_control_model


class Sampled:
    """The control model, answering with a fresh sample id and token usage on every call."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Any:
        with self._lock:
            self.calls += 1
            number = self.calls
        response = dict(openai_control_model(request))  # type: ignore[call-overload]
        response["id"] = f"sample-{number}"
        response["usage"] = {"prompt_tokens": 10, "completion_tokens": 2}
        return response


def record(path: Path, model: Any, trials: int, **policy: Any) -> Any:
    return qualify_wire_trials(
        "openai",
        model=model,
        cassette=path,
        record=True,
        injection_suite=True,
        trials=trials,
        policy=RecordingPolicy(**policy),
    )


def replay(path: Path, trials: int) -> Any:
    return qualify_wire_trials("openai", cassette=path, injection_suite=True, trials=trials)


def test_k_trials_are_keyed_by_index_and_replay_byte_identically(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = Sampled()
    recorded = record(path, model, 3)
    cassette = load_cassette(path)
    assert cassette.trial_indices(True) == {0, 1, 2}
    assert {"qualification", "qualification@1", "qualification@2"} <= set(cassette.runs)
    first, third = cassette.runs["qualification"], cassette.runs["qualification@2"]
    # Identical requests have equal digests; the responses are independent samples.
    assert [e.request_digest for e in first] == [e.request_digest for e in third]
    assert [e.response["id"] for e in first] != [e.response["id"] for e in third]
    replayed = replay(path, 3)
    assert [t.report.to_json() for t in replayed.trials] == [
        t.report.to_json() for t in recorded.trials
    ]
    assert [t.injection.to_json() for t in replayed.trials] == [
        t.injection.to_json() for t in recorded.trials
    ]
    assert replayed.tokens == recorded.tokens == 12 * model.calls
    assert replayed.seconds is None
    text = path.read_bytes()
    again = Sampled()
    record(tmp_path / "again.json", again, 3)
    assert again.calls == model.calls
    assert (tmp_path / "again.json").read_bytes() == text  # same samples, same bytes


def test_a_cassette_with_fewer_trials_is_stale(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, Sampled(), 2)
    assert len(replay(path, 2).trials) == 2
    assert len(replay(path, 1).trials) == 1  # more trials than asked: the first are read
    with pytest.raises(FewerTrialsError) as stale:
        replay(path, 3)
    assert isinstance(stale.value, StaleCassetteError)
    assert "fewer trials" in str(stale.value)


def test_a_one_trial_cassette_is_the_cassette_of_before(tmp_path: Path) -> None:
    from pytest_openmed.planner.cassette import qualify_wire

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    qualify_wire(
        "openai", model=openai_control_model, cassette=old, record=True, injection_suite=True
    )
    record(new, openai_control_model, 1)
    assert old.read_bytes() == new.read_bytes()
    assert "@" not in json.dumps(list(json.loads(new.read_text())["runs"]))


class Interrupting:
    """The control model, interrupted (as by Ctrl-C) at its n-th call."""

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0

    def __call__(self, request: dict[str, Any]) -> Any:
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return openai_control_model(request)


def test_an_interrupted_recording_keeps_its_trials_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    fresh = tmp_path / "fresh.json"
    record(fresh, openai_control_model, 4)
    per_trial = Interrupting(10**9)
    record(tmp_path / "one.json", per_trial, 1)
    calls_per_trial = per_trial.calls
    interrupted = Interrupting(2 * calls_per_trial + 3)  # inside the third trial
    with pytest.raises(KeyboardInterrupt):
        record(path, interrupted, 4)
    kept = load_cassette(path)  # atomic writes: a valid cassette of the two completed trials
    assert kept.trial_indices(True) == {0, 1}
    resumed = Interrupting(10**9)
    record(path, resumed, 4)
    assert resumed.calls == 2 * calls_per_trial  # only the two missing trials called the model
    assert path.read_bytes() == fresh.read_bytes()
    complete = Interrupting(10**9)
    record(path, complete, 4)  # a complete cassette is recorded afresh
    assert complete.calls == 4 * calls_per_trial


def test_a_stale_recorded_trial_is_recorded_again_when_resuming(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, openai_control_model, 1)
    document = json.loads(path.read_text())
    document["runs"]["qualification"][0]["request_digest"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(document))
    model = Interrupting(10**9)
    record(path, model, 2)
    assert model.calls > 0 and load_cassette(path).trial_indices(True) == {0, 1}
    replay(path, 2)


class Slow:
    """Sleeps on each call and counts how many calls are in flight at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = self.most = 0

    def __call__(self, request: dict[str, Any]) -> Any:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        print("QQSLOWCANARY model output")  # discarded, whichever thread prints it
        time.sleep(0.002)
        with self.lock:
            self.active -= 1
        return openai_control_model(request)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_trials_run_at_most_concurrency_at_once(
    tmp_path: Path, concurrency: int, capfd: pytest.CaptureFixture[str]
) -> None:
    model = Slow()
    done: list[tuple[int, int]] = []
    path = tmp_path / "c.json"
    streams = (sys.stdout, sys.stderr, logging.root.manager.disable)
    result = record(
        path, model, 4, concurrency=concurrency, progress=lambda d, t: done.append((d, t))
    )
    # Overlapping silenced blocks share one redirection: every channel is back afterwards.
    assert (sys.stdout, sys.stderr, logging.root.manager.disable) == streams
    assert "QQSLOWCANARY" not in capfd.readouterr().out
    assert 1 <= model.most <= concurrency
    if concurrency > 1:
        assert model.most > 1
        # A line is said only while no conversation discards output; the last always is.
        assert done[-1] == (4, 4) and done == sorted(set(done))
    else:
        assert done == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert all(trial.report.qualified for trial in result.trials)
    serial = tmp_path / "serial.json"
    record(serial, openai_control_model, 4)
    assert path.read_bytes() == serial.read_bytes()  # the order trials finish in is not recorded


class Transient(Exception):
    """What a user declares transient (a rate limit, a timeout)."""


class Flaky:
    """Fails the first attempt of every call with ``error``, then answers."""

    def __init__(self, error: type[Exception]) -> None:
        self.error, self.seen = error, set()

    def __call__(self, request: dict[str, Any]) -> Any:
        key = json.dumps(request, sort_keys=True)
        if key not in self.seen:
            self.seen.add(key)
            raise self.error("quota")
        return openai_control_model(request)


def test_declared_transient_errors_are_retried_with_backoff(tmp_path: Path) -> None:
    slept: list[float] = []
    result = record(
        tmp_path / "c.json",
        Flaky(Transient),
        1,
        retry_on=(Transient,),
        backoff=0.5,
        sleep=slept.append,
    )
    assert result.trials[0].report.qualified
    assert slept and set(slept) == {0.5}  # one failure each: the first backoff
    assert not any(e.raised for e in load_cassette(tmp_path / "c.json").runs["qualification"])


def test_other_errors_are_not_retried(tmp_path: Path) -> None:
    slept: list[float] = []
    result = record(
        tmp_path / "c.json",
        Flaky(ValueError),
        1,
        retry_on=(Transient,),
        sleep=slept.append,
    )
    assert not slept
    assert result.trials[0].report.counts.planner_errors == 6


def test_retries_give_up_and_back_off_exponentially(tmp_path: Path) -> None:
    slept: list[float] = []

    def always(request: dict[str, Any]) -> Any:
        raise Transient("quota")

    result = record(
        tmp_path / "c.json", always, 1, retry_on=(Transient,), retries=3, sleep=slept.append
    )
    assert result.trials[0].report.counts.planner_errors == 6
    assert slept == [1.0, 2.0, 4.0] * 20  # six scenarios and 14 styles, one call each


@pytest.mark.parametrize(
    ("response", "tokens"),
    [
        ({"usage": {"total_tokens": 7, "prompt_tokens": 1}}, 7),
        ({"usage": {"prompt_tokens": 3, "completion_tokens": 4}}, 7),
        ({"usage": {"input_tokens": 5, "output_tokens": 6}}, 11),
        ({"usage": {"input_tokens": True}}, None),
        ({"choices": []}, None),
        ([], None),
    ],
)
def test_usage_of_the_three_dialects(response: Any, tokens: int | None) -> None:
    assert response_tokens(response) == tokens
