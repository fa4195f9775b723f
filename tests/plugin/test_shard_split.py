"""``--openmed-shard I/N`` keeps one deterministic share of the gates, whole gates only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.plugin.shard import balanced_shards, hashed_shard

from ._helpers import validate_report, without_timing, write_claims_project

GATE_NAMES = [f"g{number}" for number in range(6)]


def gates_toml(names: list[str]) -> str:
    return "".join(
        f'[[claims]]\nname = "{name}"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
        "resamples = 50\nmax_unsupported_rate = 0.2\n[claims.classes.medication]\n"
        "max_unsupported_rate = 0.1\n"
        for name in names
    )


ORDINARY = "def test_ordinary():\n    pass\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, gates_toml(GATE_NAMES))
    pytester.makepyfile(test_ordinary=ORDINARY)
    return pytester


def shard_run(project: pytest.Pytester, shard: str, *args: str) -> dict[str, Any]:
    name = "shard-" + shard.replace("/", "-of-") + ".json"
    project.runpytest("--openmed-shard", shard, "--openmed-report", name, *args)
    return validate_report(project.path / name)


def gate_ids(report: dict[str, Any]) -> set[str]:
    return {entry["nodeid"].rpartition("::")[0] for entry in report["gates"]}


def test_each_gate_runs_whole_on_exactly_one_shard(project: pytest.Pytester) -> None:
    reports = [shard_run(project, f"{index}/3") for index in (1, 2, 3)]
    every = {f"gates.openmed.toml::claims({name})" for name in GATE_NAMES}
    seen: list[str] = []
    for index, report in enumerate(reports, start=1):
        shard = report["run"]["shard"]
        assert (shard["index"], shard["count"]) == (index, 3)
        assert set(shard["gates"]) == gate_ids(report)
        for gate in shard["gates"]:
            assert hashed_shard(gate, 3) == index
            parts = [e for e in report["gates"] if e["nodeid"].startswith(gate + "::")]
            assert len(parts) == 2  # overall and class[medication]
        seen.extend(shard["gates"])
        assert shard["collected"]["gates"] == len(every)
    assert sorted(seen) == sorted(every)


def test_ordinary_tests_run_on_every_shard(project: pytest.Pytester) -> None:
    for index in (1, 2):
        result = project.runpytest("--openmed-shard", f"{index}/2", "-rA")
        result.stdout.fnmatch_lines(["PASSED test_ordinary.py::test_ordinary"])


def test_the_split_ignores_order_and_other_tests(project: pytest.Pytester) -> None:
    before = shard_run(project, "2/3")["run"]["shard"]["gates"]
    # more gates and tests, declared before the others
    write_claims_project(project.path, gates_toml(["new1", "new2", *reversed(GATE_NAMES)]))
    project.makepyfile(test_more="def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    after = shard_run(project, "2/3")["run"]["shard"]["gates"]
    assert set(before) <= set(after)
    assert set(after) - set(before) <= {
        "gates.openmed.toml::claims(new1)",
        "gates.openmed.toml::claims(new2)",
    }


def test_the_shard_report_is_a_partial_run_and_deselects_nothing_else(
    project: pytest.Pytester,
) -> None:
    run = shard_run(project, "1/2")["run"]
    assert run["partial_selection"] is True
    assert run["deselected"] == 0
    assert run["keyword_selection"] is False


def test_the_report_records_what_proves_the_shards_belong_together(
    project: pytest.Pytester,
) -> None:
    shard = shard_run(project, "1/1")["run"]["shard"]
    digest = (
        "sha256:"
        + __import__("hashlib")
        .sha256((project.path / "gates.openmed.toml").read_bytes())
        .hexdigest()
    )
    assert shard["gate_files"] == {"gates.openmed.toml": digest}
    inputs = shard["inputs"]["gates.openmed.toml::claims(g0)"]
    # keyed by where the declaration names the file (``declaration.claims``), never the path
    assert {key.rpartition(".")[2] for key in inputs} == {"claims", "evidence"}
    claims_key = next(key for key in inputs if key.endswith(".claims"))
    claims_digest = (
        "sha256:"
        + __import__("hashlib").sha256((project.path / "claims.json").read_bytes()).hexdigest()
    )
    assert inputs[claims_key] == claims_digest
    assert shard["balanced_by"] is None
    text = (project.path / "shard-1-of-1.json").read_text()
    assert str(project.path) not in text  # keys name the declaration, never a path


def test_one_shard_of_one_is_the_whole_run(project: pytest.Pytester) -> None:
    whole = shard_run(project, "1/1")
    project.runpytest("--openmed-report", "serial.json")
    serial = validate_report(project.path / "serial.json")
    assert whole["gates"] == serial["gates"]
    assert whole["summary"] == serial["summary"]


def test_xdist_inside_a_shard_changes_nothing(project: pytest.Pytester) -> None:
    serial = shard_run(project, "2/3")
    parallel = shard_run(project, "2/3", "-n", "2")
    assert without_timing(parallel) == without_timing(serial)


def test_the_ini_twin(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nopenmed_shard = 3/3\n")
    shard = shard_run(project, "3/3")["run"]["shard"]
    project.runpytest("--openmed-report", "ini.json")
    from_ini = validate_report(project.path / "ini.json")["run"]["shard"]
    assert from_ini["gates"] == shard["gates"] and from_ini["index"] == 3


@pytest.mark.parametrize("value", ["0/2", "3/2", "2", "1/0", "a/b", "1/2000", "-1/2"])
def test_a_bad_shard_is_a_usage_error(project: pytest.Pytester, value: str) -> None:
    result = project.runpytest(f"--openmed-shard={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*shard must be I/N with 1 <= I <= N <= 1024*"])


def test_a_bad_ini_shard_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nopenmed_shard = 5/4\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini option openmed_shard: shard must be I/N*"])


def test_balancing_puts_the_longest_gates_apart_deterministically() -> None:
    durations = {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0, "f": 1.0}
    assigned = balanced_shards(durations, 2)
    assert assigned == {"a": 1, "b": 2, "c": 2, "d": 1, "e": 1, "f": 2}
    assert balanced_shards(dict(reversed(durations.items())), 2) == assigned


def _store(history: Path, durations: dict[str, float], template: dict[str, Any]) -> None:
    report = json.loads(json.dumps(template))
    report["run"]["timing"]["gates"] = durations
    history.mkdir(exist_ok=True)
    (history / "20261201T153000123456Z-nocommit.json").write_text(json.dumps(report))


def test_with_history_the_split_follows_the_last_complete_run(project: pytest.Pytester) -> None:
    project.runpytest("--openmed-report", "serial.json")
    serial = validate_report(project.path / "serial.json")
    gates = sorted({f"gates.openmed.toml::claims({name})" for name in GATE_NAMES})
    durations = {gate: float(10 - number) for number, gate in enumerate(gates)}
    _store(project.path / "history", durations, serial)
    expected = balanced_shards(durations, 2)
    for index in (1, 2):
        shard = shard_run(project, f"{index}/2", "--openmed-history", "history")["run"]["shard"]
        assert shard["balanced_by"] == "20261201T153000123456Z-nocommit"
        assert shard["gates"] == sorted(gate for gate in gates if expected[gate] == index)
    # a shard is not stored: the merged run is (openmed-report merge --history)
    assert len(list((project.path / "history").glob("2*.json"))) == 1


def test_a_shard_run_in_the_history_is_not_a_basis(project: pytest.Pytester) -> None:
    report = shard_run(project, "1/2")
    _store(project.path / "history", {"gates.openmed.toml::claims(g0)": 1.0}, report)
    shard = shard_run(project, "1/2", "--openmed-history", "history")["run"]["shard"]
    assert shard["balanced_by"] is None


def test_a_shard_that_gets_no_gate_exits_0(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, gates_toml(["only"]))
    gate = "gates.openmed.toml::claims(only)"
    empty = next(index for index in (1, 2, 3) if hashed_shard(gate, 3) != index)
    result = pytester.runpytest(
        "--openmed-only", f"--openmed-shard={empty}/3", "--openmed-report=empty.json"
    )
    assert result.ret == pytest.ExitCode.OK
    shard = validate_report(pytester.path / "empty.json")["run"]["shard"]
    assert shard["gates"] == [] and shard["collected"]["gates"] == 1


def test_a_shard_of_a_run_without_gates_still_says_nothing_was_collected(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("-p", "openmed", "--openmed-only", "--openmed-shard=1/2")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
