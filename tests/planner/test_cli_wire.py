"""The planner CLI's wire modes: live, record, replay, the injection suite, fixed codes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner import wire
from pytest_openmed.schemas import load_schema

from ._helpers import run_cli

CANARY = "zzwirecli7731"
MODEL = "pytest_openmed.planner.wire_controls:openai_control_model"
GULLIBLE = "pytest_openmed.planner.wire_controls:openai_gullible_model"
CALLABLE = "pytest_openmed.planner.controls:control_planner"


run = functools.partial(run_cli, canary=CANARY)


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    return {
        "out": str(tmp_path / "report.json"),
        "cassette": str(tmp_path / f"{CANARY}.json"),
        "injection": str(tmp_path / "injection.json"),
    }


def test_live_wire_qualifies_like_the_callable(
    paths: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        ["--planner", MODEL, "--dialect", "openai", "--output", paths["out"]], capsys
    )
    assert code == 0
    wired = Path(paths["out"]).read_text()
    callable_out = str(tmp_path / "callable.json")
    assert run(["--planner", CALLABLE, "--output", callable_out], capsys)[0] == 0
    assert Path(callable_out).read_text() == wired
    assert out == "openmed-planner: qualified (6/6 scenarios complete, 0 critical events)\n"


def test_record_then_replay_from_the_cassette_alone(
    paths: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    record = ["--planner", MODEL, "--dialect", "openai", "--cassette", paths["cassette"]]
    assert run([*record, "--record", "--output", paths["out"]], capsys)[0] == 0
    recorded = Path(paths["out"]).read_bytes()
    replay = ["--dialect", "openai", "--cassette", paths["cassette"], "--output", paths["out"]]
    assert run(replay, capsys)[0] == 0
    assert Path(paths["out"]).read_bytes() == recorded


def test_the_injection_suite_writes_its_report_and_refuses_a_gullible_model(
    paths: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--planner", GULLIBLE, "--dialect", "openai", "--output", paths["out"],
            "--injection-report", paths["injection"]]  # fmt: skip
    code, out, _ = run(argv, capsys)
    assert code == 1  # qualified on the six scenarios, but three styles complied
    assert json.loads(Path(paths["out"]).read_text())["qualified"] is True
    document = json.loads(Path(paths["injection"]).read_text())
    Draft202012Validator(load_schema("planner-injection-report")).validate(document)
    assert document["summary"]["compliance_count"] == 3
    assert out.splitlines()[1] == (
        "openmed-planner: injection suite: 3/14 styles complied, 3 styles failed"
    )


def test_the_suite_works_for_callable_planners_too(
    paths: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--planner",
        CALLABLE,
        "--output",
        paths["out"],
        "--injection-report",
        paths["injection"],
    ]
    assert run(argv, capsys)[0] == 0


def test_a_stale_cassette_is_e010(
    paths: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = ["--planner", MODEL, "--dialect", "openai", "--cassette", paths["cassette"]]
    assert run([*record, "--record", "--output", paths["out"]], capsys)[0] == 0
    Path(paths["out"]).unlink()
    monkeypatch.setattr(wire, "SYSTEM_TEMPLATE", wire.SYSTEM_TEMPLATE + " Be brief.")
    code, out, err = run([*record, "--output", paths["out"]], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("openmed-planner: E010 stale cassette")
    assert not Path(paths["out"]).exists()


def test_an_unreadable_cassette_is_e011_and_an_unwritable_one_e012(
    paths: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = ["--dialect", "mcp", "--cassette", paths["cassette"], "--output", paths["out"]]
    assert run(replay, capsys)[2].startswith("openmed-planner: E011 ")
    nowhere = str(tmp_path / CANARY / "c.json")
    argv = ["--planner", MODEL, "--dialect", "openai", "--cassette", nowhere, "--record",
            "--output", paths["out"]]  # fmt: skip
    code, _, err = run(argv, capsys)
    assert code == 2 and err.startswith("openmed-planner: E012 ")


@pytest.mark.parametrize(
    "argv",
    [
        ["--output", "r.json"],  # neither planner nor cassette
        ["--cassette", "c.json", "--output", "r.json"],  # cassette without dialect
        ["--dialect", "openai", "--cassette", "c.json", "--record", "--output", "r.json"],
        ["--planner", MODEL, "--dialect", "openai", "--record", "--output", "r.json"],
        ["--planner", MODEL, "--dialect", "gemini", "--output", "r.json"],
        ["--planner", MODEL, "--output", "r.json", "--injection-report", ""],
    ],
)
def test_meaningless_combinations_are_e001(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(argv, capsys)
    assert code == 2
    assert err.startswith("openmed-planner: E001 ")


def test_the_model_identity_is_recorded_and_compared_on_replay(
    paths: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = ["--dialect", "openai", "--cassette", paths["cassette"], "--output", paths["out"]]
    recorded = [*cassette, "--planner", MODEL, "--record", "--model-identity", "vendor-1"]
    assert run(recorded, capsys)[0] == 0
    document = json.loads(Path(paths["cassette"]).read_text())
    assert (document["model_identity"], document["planner_reference"]) == ("vendor-1", MODEL)
    assert run([*cassette, "--model-identity", "vendor-1"], capsys)[0] == 0
    code, _, err = run([*cassette, "--model-identity", "vendor-2"], capsys)
    assert (code, err.split(" ")[1]) == (2, "E010")
    code, _, err = run([*cassette, "--planner", GULLIBLE, "--model-identity", "vendor-1"], capsys)
    assert (code, err.split(" ")[1]) == (2, "E010")
    code, _, err = run([*cassette, "--model-identity", f"a/{CANARY}"], capsys)
    assert (code, err.split(" ")[1]) == (2, "E001")
