"""--openmed-history stores runs under time-sortable names; --openmed-compare regresses against one."""

from __future__ import annotations

import json
import re

import pytest

from pytest_openmed.report.history import INDEX_NAME

from ._helpers import CANARY, claim, evidence, validate_report

GATE = (
    '[[claims]]\nname = "labs"\nclaims = "c.json"\nevidence = "e.json"\nresamples = 200\n'
    "max_upper = 1.0\n"
)
STORED = re.compile(r"[0-9]{8}T[0-9]{12}Z-([0-9a-f]{7,12}|nocommit)\.json")


def _data(pytester: pytest.Pytester, *, uncited_every: int) -> None:
    """40 lab claims; every ``uncited_every``-th one cites nothing (0: all supported)."""
    claims = [
        claim(i, "lab", [] if uncited_every and i % uncited_every == 0 else [f"{CANARY}-ev-{i}"])
        for i in range(40)
    ]
    (pytester.path / "c.json").write_text(json.dumps(claims))
    (pytester.path / "e.json").write_text(json.dumps([evidence(i) for i in range(40)]))
    (pytester.path / "gates.openmed.toml").write_text(GATE)


def _stored(pytester: pytest.Pytester) -> list[str]:
    """The stored runs and any other files, less the history's own index (a cache)."""
    return sorted(
        path.name for path in (pytester.path / "hist").iterdir() if path.name != INDEX_NAME
    )


def test_a_degraded_run_fails_on_compare_and_the_trend_shows_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data(pytester, uncited_every=0)
    monkeypatch.setenv("GITHUB_SHA", "1a2b3c4d5e6f7a8b9c0d")
    pytester.runpytest("--openmed-history=hist").assert_outcomes(passed=1)
    _data(pytester, uncited_every=2)  # half the claims lose their citation
    monkeypatch.setenv("GITHUB_SHA", "ffffeeeeddddccccbbbb")
    result = pytester.runpytest(
        "--openmed-history=hist", "--openmed-compare", "--openmed-html=r.html"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*baseline_regression*"])
    names = _stored(pytester)
    assert len(names) == 2 and all(STORED.fullmatch(name) for name in names)
    assert names[0].endswith("-1a2b3c4d5e6f.json") and names[1].endswith("-ffffeeeedddd.json")
    (latest,) = validate_report(pytester.path / "hist" / names[1])["gates"]
    assert latest["reason"] == "baseline_regression"
    page = (pytester.path / "r.html").read_text()
    assert "Trends over stored runs" in page
    assert names[0].removesuffix(".json") in page and names[1].removesuffix(".json") in page
    trend = page[page.index('id="trends"') :]
    assert "0.0000" in trend and "0.5000" in trend  # the rate before and after, in its table
    assert 'class="fail">regressed</span>' in trend  # the failing run is marked in words
    assert "regressed ▲</text>" in trend  # and in the chart
    assert "Baseline regressions" in page and "0.5000" in page[page.index('id="regressions"') :]


def test_compare_names_a_stored_run(pytester: pytest.Pytester) -> None:
    _data(pytester, uncited_every=0)
    pytester.runpytest("--openmed-history=hist").assert_outcomes(passed=1)
    (first,) = _stored(pytester)
    _data(pytester, uncited_every=2)
    pytester.runpytest("--openmed-history=hist").assert_outcomes(passed=1)
    # the latest stored run is already degraded: no regression against it
    pytester.runpytest("--openmed-history=hist", "--openmed-compare").assert_outcomes(passed=1)
    # the first run, named with or without .json, is the good one
    for ref in (first.removesuffix(".json"), first):
        result = pytester.runpytest("--openmed-history=hist", f"--openmed-compare={ref}")
        result.assert_outcomes(failed=1)


def test_only_the_last_n_runs_are_kept(pytester: pytest.Pytester) -> None:
    _data(pytester, uncited_every=0)
    pytester.makeini("[pytest]\nopenmed_history = hist\nopenmed_history_keep = 2\n")
    (pytester.path / "hist").mkdir()
    (pytester.path / "hist" / "notes.txt").write_text("not a stored run")
    for _ in range(3):
        pytester.runpytest().assert_outcomes(passed=1)
    names = _stored(pytester)
    assert names[-1] == "notes.txt"  # a file that is not a stored run is never pruned
    assert len(names) == 3 and all(STORED.fullmatch(name) for name in names[:2])


def test_nothing_is_stored_without_the_option(pytester: pytest.Pytester) -> None:
    _data(pytester, uncited_every=0)
    pytester.runpytest().assert_outcomes(passed=1)
    assert sorted(p.name for p in pytester.path.iterdir() if not p.name.startswith(".")) == [
        "c.json",
        "e.json",
        "gates.openmed.toml",
    ]


def test_a_stored_name_carries_no_path_and_no_foreign_commit_text(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data(pytester, uncited_every=0)
    monkeypatch.setenv("GITHUB_SHA", f"{CANARY}/not-a-commit")
    pytester.runpytest("--openmed-history=hist").assert_outcomes(passed=1)
    (name,) = _stored(pytester)
    assert name.endswith("-nocommit.json")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--openmed-compare"], "*--openmed-compare needs --openmed-history*"),
        (["--openmed-history=hist", "--openmed-compare"], "*holds no stored run*"),
        (["--openmed-history=hist", "--openmed-compare=../x"], "*takes 'latest' or a stored*"),
        (
            ["--openmed-history=hist", "--openmed-compare=20990101T000000000000Z-nocommit"],
            "*no stored run has that name*",
        ),
        (
            ["--openmed-history=hist", "--openmed-compare", "--openmed-baseline=b.json"],
            "*both name a baseline*",
        ),
        (["-o", "openmed_history_keep=0"], "*openmed_history_keep must be a whole number*"),
    ],
)
def test_compare_that_cannot_compare_is_a_usage_error(
    pytester: pytest.Pytester, arguments: list[str], message: str
) -> None:
    _data(pytester, uncited_every=0)
    result = pytester.runpytest(*arguments)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
