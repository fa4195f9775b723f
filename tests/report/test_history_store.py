"""Stored run names sort by time, carry a commit id only when it is one, and pruning spares other files."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.report.history import (
    HistoryError,
    load_history,
    resolve_ref,
    run_name,
    store_run,
    stored_runs,
)

from ._reports import gate_report

WHEN = datetime.datetime(2026, 12, 1, 15, 30, 0, 123456, tzinfo=datetime.UTC)


def report_with(*, rate: float, lower: float, upper: float) -> dict[str, Any]:
    """A one-verdict claims report (schema-valid)."""
    return gate_report(
        [
            {
                "nodeid": "g.openmed.toml::claims(x)::overall",
                "part": None,
                "kind": "claims",
                "status": "passed",
                "expected": "passed",
                "reason": "ok",
                "metrics": {"unsupported_rate": rate, "lower": lower, "upper": upper},
                "outcome": "passed",
            }
        ]
    )


@pytest.mark.parametrize(
    ("environ", "suffix"),
    [
        ({}, "nocommit"),
        ({"GITHUB_SHA": "0123456789ABCDEF0123"}, "0123456789ab"),
        ({"CI_COMMIT_SHA": "abcdef1"}, "abcdef1"),
        ({"GITHUB_SHA": "/home/someone/repo"}, "nocommit"),
        ({"GITHUB_SHA": "", "GIT_COMMIT": "deadbeefcafe"}, "deadbeefcafe"),
    ],
)
def test_a_run_name_is_time_then_commit(environ: dict[str, str], suffix: str) -> None:
    assert run_name(WHEN, environ) == f"20261201T153000123456Z-{suffix}.json"


def test_names_sort_by_time() -> None:
    later = WHEN + datetime.timedelta(microseconds=1)
    assert sorted([run_name(later, {}), run_name(WHEN, {"GITHUB_SHA": "f" * 40})]) == [
        run_name(WHEN, {"GITHUB_SHA": "f" * 40}),
        run_name(later, {}),
    ]


def test_store_keeps_the_newest_and_never_touches_other_files(tmp_path: Path) -> None:
    history = tmp_path / "hist"
    for minute in range(4):
        store_run(history, "{}", keep=2, now=WHEN + datetime.timedelta(minutes=minute), environ={})
    (history / "README").write_text("mine")
    store_run(history, "{}", keep=2, now=WHEN + datetime.timedelta(minutes=9), environ={})
    names = sorted(path.name for path in history.iterdir())
    assert names == [
        ".openmed-index.json",  # the history's own index of trend points
        "20261201T153300123456Z-nocommit.json",
        "20261201T153900123456Z-nocommit.json",
        "README",
    ]


def test_store_creates_the_directory_but_not_its_parents(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="could not create the history directory"):
        store_run(tmp_path / "a" / "b", "{}", keep=1, now=WHEN, environ={})


def test_resolve_ref_and_load_history(tmp_path: Path) -> None:
    import json

    history = tmp_path / "hist"
    first = store_run(
        history, json.dumps(report_with(rate=0, lower=0, upper=0)), keep=5, now=WHEN, environ={}
    )
    (history / "20991231T000000000000Z-nocommit.json").write_text("not json")
    assert resolve_ref(history, first.name.removesuffix(".json")) == first
    assert resolve_ref(history, "latest").name.startswith("2099")
    with pytest.raises(HistoryError):
        resolve_ref(history, "../../etc/passwd")
    loaded, unreadable = load_history(history)
    assert [name for name, _ in loaded] == [first.name.removesuffix(".json")]
    assert unreadable == 1
    assert stored_runs(tmp_path / "absent") == []


def test_a_stored_run_another_run_pruned_first_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs prune one store: the second finds a run gone that it listed; its run is stored."""
    from pytest_openmed.report import history as module

    directory = tmp_path / "hist"
    store_run(directory, "{}", keep=5, now=WHEN, environ={})
    listed = module.stored_runs

    def listed_with_a_vanished_run(path: Path) -> list[Path]:
        return [path / "20200101T000000000000Z-nocommit.json", *listed(path)]

    monkeypatch.setattr(module, "stored_runs", listed_with_a_vanished_run)
    later = WHEN + datetime.timedelta(minutes=1)
    stored = store_run(directory, "{}", keep=1, now=later, environ={})
    assert [path.name for path in listed(directory)] == [stored.name]
