"""openmed-report merge: one report, one verdict, one exit code from the shards of one run.

Every refusal names the shard by its place on the command line and the key,
never a path or a value, and writes nothing.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.report.cli import main
from pytest_openmed.report.load import parse_report
from tests.plugin._helpers import write_claims_project

CANARY_DIR = "ZQXCANARY-private-dir"
NAMES = ("alpha", "beta", "gamma", "delta", "epsilon")
#: gamma's medication class fails; delta fails too but is waived.
GATES = "".join(
    f'[[claims]]\nname = "{name}"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    f"resamples = 50\nmax_unsupported_rate = 0.2\n"
    + (
        "[claims.classes.medication]\nmax_unsupported_rate = 0.1\n"
        if name in ("gamma", "delta")
        else ""
    )
    for name in NAMES
)
TESTS = """
import json
from pathlib import Path

def test_scored(claim_scorer):
    claims = json.loads(Path("claims.json").read_text())
    rows = [json.loads(l) for l in Path("evidence.jsonl").read_text().splitlines()]
    claim_scorer(claims, rows)

def test_ordinary():
    pass
"""


def run_pytest(root: Path, *args: str) -> int:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project run serially and as shards 1/2, 2/2 (separate processes)."""
    root = tmp_path_factory.mktemp("merge") / CANARY_DIR
    root.mkdir()
    write_claims_project(root, GATES)
    (root / "test_scored.py").write_text(TESTS)
    until = datetime.date.today() + datetime.timedelta(days=30)
    (root / "waivers.toml").write_text(
        f'[[waiver]]\ngate = "gates.openmed.toml::claims(delta)::class[medication]"\n'
        f'expires = {until.isoformat()}\nreference = "RISK-9"\n'
    )
    common = ("--openmed-waivers=waivers.toml",)
    assert run_pytest(root, *common, "--openmed-report=serial.json") == 1
    for index in (1, 2):
        run_pytest(root, *common, f"--openmed-shard={index}/2", f"--openmed-report=s{index}.json")
    return root


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def shards(project: Path) -> list[dict[str, Any]]:
    return [load(project / f"s{index}.json") for index in (1, 2)]


def merge(project: Path, documents: list[dict[str, Any]], *extra: str) -> tuple[int, Path]:
    paths = []
    for number, document in enumerate(documents, start=1):
        path = project / f"in-{number}.json"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    out = project / "merged.json"
    out.unlink(missing_ok=True)
    return main(["merge", *paths, "-o", str(out), *extra]), out


def test_the_merged_report_is_the_serial_report_but_for_run_metadata(project: Path) -> None:
    serial = load(project / "serial.json")
    code, out = merge(project, shards(project))
    assert code == 1  # gamma failed
    merged = parse_report(out.read_bytes())
    assert {k: v for k, v in merged.items() if k != "run"} == {
        k: v for k, v in serial.items() if k != "run"
    }
    for key in ("partial_selection", "keyword_selection", "deselected", "seed", "resamples"):
        assert merged["run"][key] == serial["run"][key], key
    assert merged["run"]["environment"] == serial["run"]["environment"]
    assert set(merged["run"]["timing"]["gates"]) == set(serial["run"]["timing"]["gates"])
    assert [shard["index"] for shard in merged["run"]["shards"]] == [1, 2]
    # the waiver applied on whichever shard ran delta is applied in the merged run
    assert merged["waivers"] == serial["waivers"] and merged["waivers"][0]["applied"] is True


def test_the_order_of_the_shards_on_the_command_line_does_not_matter(project: Path) -> None:
    _, out = merge(project, shards(project))
    first = load(out)
    _, out = merge(project, list(reversed(shards(project))))
    assert load(out) == first


def test_every_gate_passing_exits_0(project: Path) -> None:
    documents = shards(project)
    for document in documents:
        for entry in document["gates"]:
            entry["outcome"] = "passed"
    code, out = merge(project, documents)
    assert code == 0 and load(out)["run"]["exit_status"] == 0


def test_the_merged_run_renders_and_is_stored_in_the_history(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = project / "history"
    html, markdown, sarif = project / "m.html", project / "m.md", project / "m.sarif"
    code, out = merge(
        project,
        shards(project),
        f"--html={html}",
        f"--markdown={markdown}",
        f"--sarif={sarif}",
        f"--root={project}",
        f"--history={history}",
    )
    assert code == 1
    assert "<html" in html.read_text() and "claims(gamma)" in markdown.read_text()
    serial_sarif = project / "serial.sarif"
    main(["sarif", str(project / "serial.json"), "-o", str(serial_sarif), f"--root={project}"])
    assert json.loads(sarif.read_text()) == json.loads(serial_sarif.read_text())
    assert json.loads(sarif.read_text())["runs"][0]["results"]  # gamma's failure is located
    stored = sorted(history.glob("2*.json"))
    assert len(stored) == 1 and load(stored[0]) == load(out)
    # a stored merged run is compared like any run
    assert main(["diff", str(stored[0]), str(project / "serial.json")]) == 0
    captured = capsys.readouterr()
    assert CANARY_DIR not in captured.err
    verdicts = load(out)["summary"]["gates"]
    assert f"merged 2 shards: {verdicts} verdicts" in captured.out


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = document
        for key in parents:
            target = target[key]
        target[last] = value

    return change


REFUSALS: dict[str, tuple[Callable[[list[dict[str, Any]]], list[dict[str, Any]]], str]] = {
    "missing": (lambda s: s[:1], "shard 2/2 is missing (1 of 2 missing)"),
    "twice": (lambda s: [s[0], s[1], s[0]], "SHARD #3: shard 1/2 is present twice (also SHARD #1)"),
    "count": (
        lambda s: [s[0], _changed(s[1], _set("run.shard.count", 3))],
        "SHARD #2: shard of 3, but SHARD #1 is a shard of 2 (run.shard.count)",
    ),
    "overlap": (
        lambda s: [
            s[0],
            _changed(
                s[1], lambda d: d["run"]["shard"]["gates"].extend(s[0]["run"]["shard"]["gates"])
            ),
        ],
        "SHARD #2: a gate it evaluated is also on SHARD #1 (run.shard.gates overlap)",
    ),
    "interrupted": (
        lambda s: [s[0], _changed(s[1], _set("run.exit_status", 2))],
        "SHARD #2: the shard run is incomplete (run.exit_status, run.stopped_early): rerun that shard",
    ),
    "stopped early": (
        lambda s: [_changed(s[0], _set("run.stopped_early", True)), s[1]],
        "SHARD #1: the shard run is incomplete (run.exit_status, run.stopped_early): rerun that shard",
    ),
    "not a shard": (
        lambda s: [s[0], _changed(s[1], lambda d: d["run"].pop("shard"))],
        "SHARD #2: not a shard run (no run.shard: run it with --openmed-shard I/N)",
    ),
    "version": (
        lambda s: [s[0], _changed(s[1], _set("generator.version", "0.2.0"))],
        "SHARD #2 disagrees with SHARD #1 on the plugin version (generator.version)",
    ),
    "gate files": (
        lambda s: [
            s[0],
            _changed(
                s[1], lambda d: d["run"]["shard"]["gate_files"].update({"gates.openmed.toml": None})
            ),
        ],
        "SHARD #2 disagrees with SHARD #1 on the gate-file digests (run.shard.gate_files)",
    ),
    "seed": (
        lambda s: [s[0], _changed(s[1], _set("run.seed", 5))],
        "SHARD #2 disagrees with SHARD #1 on the seed (run.seed)",
    ),
    "resamples": (
        lambda s: [s[0], _changed(s[1], _set("run.resamples", 999))],
        "SHARD #2 disagrees with SHARD #1 on the resamples (run.resamples)",
    ),
    "overrides": (
        lambda s: [s[0], _changed(s[1], _set("overrides", {"max_unsupported_rate": 0.5}))],
        "SHARD #2 disagrees with SHARD #1 on the threshold overrides (overrides)",
    ),
    "commit": (
        lambda s: [s[0], _changed(s[1], _set("run.environment.commit", "abcdef1"))],
        "SHARD #2 disagrees with SHARD #1 on the commit (run.environment.commit)",
    ),
    "selection": (
        lambda s: [s[0], _changed(s[1], _set("run.keyword_selection", True))],
        "SHARD #2 disagrees with SHARD #1 on the selection switches",
    ),
    "split": (
        lambda s: [s[0], _changed(s[1], _drop_all_gates)],
        "the shards' gates (",
    ),
    "no gate at all": (
        lambda s: [_changed(d, _no_gates_at_all) for d in s],
        "the run has no gate (run.shard.collected): nothing was evaluated, so nothing passed",
    ),
    "foreign verdict": (
        lambda s: [s[0], _changed(s[1], lambda d: d["run"]["shard"]["gates"].clear())],
        "SHARD #2: /gates/0 belongs to no gate assigned to this shard (run.shard.gates)",
    ),
}


def _no_gates_at_all(document: dict[str, Any]) -> None:
    """A run whose gate files were not collected (misnamed, wrong path): every shard empty."""
    _drop_all_gates(document)
    document["run"]["shard"]["collected"] = {
        "gates": 0,
        "digest": "sha256:" + hashlib.sha256(b"").hexdigest(),
    }


def _drop_all_gates(document: dict[str, Any]) -> None:
    """A shard that split differently: it evaluated none of the gates left to it."""
    document["run"]["shard"]["gates"].clear()
    document["gates"].clear()


def _changed(document: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copied = copy.deepcopy(document)
    change(copied)
    return copied


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_every_refusal_is_located_and_writes_nothing(
    project: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build, message = REFUSALS[case]
    history, html = project / f"history-{case}", project / f"refused-{case}.html"
    code, out = merge(project, build(shards(project)), f"--html={html}", f"--history={history}")
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"openmed-report: cannot merge: {message}" in err
    assert len(err.strip().splitlines()) == 1  # one line
    assert not out.exists() and not html.exists() and not history.exists()
    assert CANARY_DIR not in err and "claims(" not in err


def test_an_unreadable_shard_is_named_by_its_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project / "merged.json"
    out.unlink(missing_ok=True)
    code = main(["merge", str(project / "s1.json"), str(project / "nope.json"), "-o", str(out)])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert "SHARD #2: the report could not be read" in err and CANARY_DIR not in err


def test_a_shard_whose_run_never_finished_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report written at a shard's start, left behind by a crashed or killed job."""
    documents = shards(project)
    documents[1]["incomplete"] = True
    code, out = merge(project, documents)
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "SHARD #2: the report is of a run that never finished" in err
    assert len(err.strip().splitlines()) == 1 and CANARY_DIR not in err


def test_merge_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["merge", "--help"]) == 0
    assert "openmed-report merge" in capsys.readouterr().out


def test_shards_compared_with_a_stored_merged_run_merge_into_the_serial_comparison(
    project: Path,
) -> None:
    """A merged run in the history is the baseline of the next run, sharded or not."""
    history = project / "compare-history"
    code, _ = merge(project, shards(project), f"--history={history}")
    assert code == 1
    common = ("--openmed-waivers=waivers.toml", f"--openmed-history={history}", "--openmed-compare")
    for index in (1, 2):
        run_pytest(
            project, *common, f"--openmed-shard={index}/2", f"--openmed-report=c{index}.json"
        )
    run_pytest(project, *common, "--openmed-report=compared.json")  # stores itself, last
    compared = load(project / "compared.json")
    stored = sorted(history.glob("2*.json"))[0].name.removesuffix(".json")
    assert compared["run"]["comparison"]["stored_run"] == stored
    assert any("baseline_upper" in entry["metrics"] for entry in compared["gates"])
    _, out = merge(project, [load(project / f"c{index}.json") for index in (1, 2)])
    merged = load(out)
    assert {k: v for k, v in merged.items() if k != "run"} == {
        k: v for k, v in compared.items() if k != "run"
    }
    assert merged["run"]["comparison"] == compared["run"]["comparison"]
    # the sharded runs did not store themselves; the serial one did
    assert len(list(history.glob("2*.json"))) == 2
