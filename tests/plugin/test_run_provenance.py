"""The report says which run it is: when, how long, on what, at which commit."""

from __future__ import annotations

import datetime
import json
import platform
import re

import pytest

from pytest_openmed.report.provenance import COMMIT_VARIABLES

from ._helpers import validate_report, without_timing

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def _no_ci_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in COMMIT_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def _report(project: pytest.Pytester, *args: str) -> dict[str, object]:
    project.runpytest("--openmed-report", "r.json", *args)
    return validate_report(project.path / "r.json")


def test_the_run_records_its_utc_start_and_durations(claims_project: pytest.Pytester) -> None:
    before = datetime.datetime.now(datetime.UTC)
    timing = _report(claims_project)["run"]["timing"]  # type: ignore[index]
    after = datetime.datetime.now(datetime.UTC)
    started = datetime.datetime.strptime(timing["started"], "%Y-%m-%dT%H:%M:%S.%fZ")
    assert before <= started.replace(tzinfo=datetime.UTC) <= after
    assert 0 <= timing["duration"] <= (after - before).total_seconds()
    # one gate, its three items summed: the gate's node id, not an item's
    assert list(timing["gates"]) == ["gates.openmed.toml::claims(notes)"]
    assert 0 < timing["gates"]["gates.openmed.toml::claims(notes)"] <= timing["duration"]


def test_a_test_using_a_gate_fixture_is_its_own_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_gate(kind="custom")
        def test_tagged():
            pass
        """
    )
    timing = _report(pytester, "-p", "openmed")["run"]["timing"]  # type: ignore[index]
    assert list(timing["gates"]) == [
        "test_a_test_using_a_gate_fixture_is_its_own_gate.py::test_tagged"
    ]


def test_the_run_records_versions_and_platform(claims_project: pytest.Pytester) -> None:
    report = _report(claims_project)
    environment = report["run"]["environment"]  # type: ignore[index]
    assert environment == {
        "python": platform.python_version(),
        "pytest": pytest.__version__,
        "platform": f"{platform.system()}-{platform.machine()}",
        "commit": None,
    }
    assert report["generator"]["version"]  # type: ignore[index]  # the plugin's own version


@pytest.mark.parametrize("variable", ["GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT"])
def test_the_commit_comes_from_the_ci_environment(
    claims_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, COMMIT.upper())
    environment = _report(claims_project)["run"]["environment"]  # type: ignore[index]
    assert environment["commit"] == COMMIT


def test_the_commit_is_read_from_the_working_tree_without_git(
    claims_project: pytest.Pytester,
) -> None:
    git = claims_project.path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(COMMIT + "\n")
    environment = _report(claims_project)["run"]["environment"]  # type: ignore[index]
    assert environment["commit"] == COMMIT


def test_no_path_of_the_machine_enters_the_report(claims_project: pytest.Pytester) -> None:
    claims_project.runpytest("--openmed-report", "r.json")
    text = (claims_project.path / "r.json").read_text()
    assert str(claims_project.path) not in text
    assert str(claims_project.path.parent.parent) not in text
    assert platform.node() not in json.loads(text)["run"]["environment"].values()
    assert not re.search(r'"/(tmp|home|root|Users|work)', text)


def test_xdist_changes_nothing_but_the_timing(claims_project: pytest.Pytester) -> None:
    serial = _report(claims_project)
    parallel = _report(claims_project, "-n", "2")
    assert without_timing(serial) == without_timing(parallel)
    assert set(serial["run"]["timing"]["gates"]) == set(parallel["run"]["timing"]["gates"])  # type: ignore[index]
