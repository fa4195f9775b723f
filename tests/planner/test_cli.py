"""The CLI: exit codes, fixed diagnostics, nothing echoed."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pytest_openmed.planner.cli import main
from pytest_openmed.schemas import load_schema

from ._helpers import run_cli

CANARY = "zzclicanary5521"
#: Planted in planners that leave with a BaseException (and in their module names).
BASE_EXIT_CANARY = "zzbaseexitcanary3141"
CONTROL = "pytest_openmed.planner.controls:control_planner"
EXPORTING = "pytest_openmed.planner.controls:exporting_planner"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / f"{CANARY}_plans.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            from pytest_openmed.planner.controls import control_planner
            not_callable = 7
            def exits(context, catalog):
                raise SystemExit(0)
            def leaves(context, catalog):
                raise GeneratorExit
            def interrupts(context, catalog):
                raise KeyboardInterrupt
            def loud(context, catalog):
                print("{CANARY}-stdout")
                print("{CANARY}-stderr", file=sys.stderr)
                if context.scenario_id == "in-scope":
                    raise ValueError("{CANARY}-exception")
                return control_planner(context, catalog)
            """
        ),
        encoding="utf-8",
    )
    yield tmp_path
    sys.modules.pop(f"{CANARY}_plans", None)


run = functools.partial(run_cli, canary=CANARY)


def test_qualified_exits_0_and_writes_a_valid_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "report.json"
    code, out, err = run(["--planner", CONTROL, "--output", str(output)], capsys)
    assert (code, err) == (0, "")
    assert out == "openmed-planner: qualified (6/6 scenarios complete, 0 critical events)\n"
    document = json.loads(output.read_text(encoding="utf-8"))
    Draft202012Validator(load_schema("planner-report")).validate(document)
    assert document["qualified"] is True
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temp file left


def test_refused_exits_1_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "report.json"
    code, out, _ = run(["--planner", EXPORTING, "--output", str(output)], capsys)
    assert code == 1
    assert out.startswith("openmed-planner: refused (5/6 scenarios complete, 1 critical event)")
    assert json.loads(output.read_text(encoding="utf-8"))["qualified"] is False


def test_planner_faults_are_refusals_and_never_printed(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = workdir / "r.json"
    code, _, err = run(["--planner", f"{CANARY}_plans:loud", "--output", str(output)], capsys)
    assert code == 1 and err == ""
    assert CANARY not in output.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--planner", CONTROL],
        ["--output", "x.json"],
        ["--planner", CONTROL, "--output", "x.json", f"--{CANARY}"],
        ["--planner", CONTROL, "--output", "x.json", CANARY],
        ["--plan", CONTROL, "--output", "x.json"],
        ["--planner", CONTROL, "--output", ""],
        ["--planner", CONTROL, "--output", f"{CANARY}\x00.json"],
        ["--planner"],
    ],
)
def test_invalid_arguments_exit_2_with_e001(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    # Only a required option that was not given is named (argparse's other messages may quote).
    missing = "; missing: --output" if argv in ([], ["--planner", CONTROL]) else ""
    assert err == (
        "openmed-planner: E001 invalid arguments "
        f"(usage: --planner package.module:attribute --output PATH){missing}\n"
    )
    assert CANARY not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "reference", [f"{CANARY}", f"/tmp/{CANARY}.py:plan", f"{CANARY}:a.b", f"{CANARY}-x:y"]
)
def test_malformed_reference_exits_2_with_e002(
    reference: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["--planner", reference, "--output", str(tmp_path / "r.json")], capsys)
    assert code == 2
    assert err.startswith("openmed-planner: E002 ")
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "reference",
    [f"{CANARY}_absent:plan", f"{CANARY}_plans:missing", f"{CANARY}_plans:not_callable"],
)
def test_unloadable_planner_exits_2_with_e003(
    reference: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["--planner", reference, "--output", str(workdir / "r.json")], capsys)
    assert code == 2
    assert err == "openmed-planner: E003 planner could not be imported or is not callable\n"
    assert not (workdir / "r.json").exists()


@pytest.mark.parametrize("target", ["missing-dir", "is-a-dir"])
def test_write_failure_exits_2_with_e004(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "is-a-dir").mkdir()
    output = tmp_path / "is-a-dir" if target == "is-a-dir" else tmp_path / CANARY / "r.json"
    code, out, err = run(["--planner", CONTROL, "--output", str(output)], capsys)
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E004 report could not be written\n"


def test_planner_raising_generator_exit_is_refused_with_its_cause(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = workdir / "r.json"
    code, _, err = run(["--planner", f"{CANARY}_plans:leaves", "--output", str(output)], capsys)
    assert (code, err) == (1, "")
    report = json.loads(output.read_text(encoding="utf-8"))
    causes = {item.get("planner_error_cause") for item in report["scenarios"]}
    assert causes == {"raised_exception"}


def test_planner_calling_sys_exit_is_a_planner_error_not_the_end_of_the_run(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = workdir / "r.json"
    code, _, err = run(["--planner", f"{CANARY}_plans:exits", "--output", str(output)], capsys)
    assert (code, err) == (1, "")
    report = json.loads(output.read_text(encoding="utf-8"))
    causes = {item["planner_error_cause"] for item in report["scenarios"]}
    assert (report["qualified"], causes) == (False, {"exited"})


def test_interrupt_exits_130(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = workdir / "r.json"
    code, _, err = run(["--planner", f"{CANARY}_plans:interrupts", "--output", str(output)], capsys)
    assert code == 130 and err == "openmed-planner: E006 interrupted\n"
    assert not output.exists()


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    assert "--planner" in capsys.readouterr().out


# -- the real entry point, in a few subprocesses -----------------------------------------


def _module_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "pytest_openmed.planner", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_module_entry_point_exit_codes(workdir: Path) -> None:
    qualified = _module_run(["--planner", CONTROL, "--output", "ok.json"], workdir)
    assert qualified.returncode == 0, qualified.stderr
    assert json.loads((workdir / "ok.json").read_text(encoding="utf-8"))["qualified"] is True

    # a planner module in the working directory is importable, its output discarded
    refused = _module_run(["--planner", f"{CANARY}_plans:loud", "--output", "no.json"], workdir)
    assert refused.returncode == 1
    assert CANARY not in refused.stdout + refused.stderr
    assert CANARY not in (workdir / "no.json").read_text(encoding="utf-8")

    usage = _module_run(["--planner", f"{CANARY}_absent:plan", f"--{CANARY}", "x"], workdir)
    assert usage.returncode == 2
    assert usage.stdout == ""
    assert usage.stderr.startswith("openmed-planner: E001 ")
    assert CANARY not in usage.stderr

    unimportable = _module_run(
        ["--planner", f"{CANARY}_absent:plan", "--output", "x.json"], workdir
    )
    assert unimportable.returncode == 2
    assert (
        unimportable.stderr
        == "openmed-planner: E003 planner could not be imported or is not callable\n"
    )


# -- the CLI never crashes with a traceback, whatever the planner raises ---------------


@pytest.fixture
def base_exit_plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / f"{BASE_EXIT_CANARY}_plans.py").write_text(
        textwrap.dedent(
            f"""
            from pytest_openmed.planner import ProposedToolCall
            class Leave(BaseException):
                pass
            def leaves(context, catalog):
                raise Leave("{BASE_EXIT_CANARY}-leave")
            def generator_exit(context, catalog):
                raise GeneratorExit("{BASE_EXIT_CANARY}-generator-exit")
            def bare(context, catalog):
                return [object.__new__(ProposedToolCall)]
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / f"{BASE_EXIT_CANARY}_import.py").write_text(
        f'raise GeneratorExit("{BASE_EXIT_CANARY}-import")\ndef plan(context, catalog):\n    return []\n',
        encoding="utf-8",
    )
    yield tmp_path
    for name in (f"{BASE_EXIT_CANARY}_plans", f"{BASE_EXIT_CANARY}_import"):
        sys.modules.pop(name, None)


def _quiet_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert BASE_EXIT_CANARY not in captured.out + captured.err
    return code, captured.out, captured.err


@pytest.mark.parametrize("attribute", ["leaves", "generator_exit"])
def test_cli_planner_raising_a_base_exception_is_refused_with_its_cause(
    base_exit_plans: Path, attribute: str, capsys: pytest.CaptureFixture[str]
) -> None:
    output = base_exit_plans / "r.json"
    code, out, err = _quiet_cli(
        ["--planner", f"{BASE_EXIT_CANARY}_plans:{attribute}", "--output", str(output)], capsys
    )
    assert (code, err) == (1, "")
    assert out.startswith("openmed-planner: refused ")
    text = output.read_text(encoding="utf-8")
    assert BASE_EXIT_CANARY not in text
    causes = {item.get("planner_error_cause") for item in json.loads(text)["scenarios"]}
    assert causes == {"raised_exception"}


def test_cli_module_raising_a_base_exception_on_import_exits_2_with_e003(
    base_exit_plans: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = base_exit_plans / "r.json"
    code, out, err = _quiet_cli(
        ["--planner", f"{BASE_EXIT_CANARY}_import:plan", "--output", str(output)], capsys
    )
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E003 planner could not be imported or is not callable\n"
    assert not output.exists()


def test_cli_bare_proposal_is_a_refusal(
    base_exit_plans: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = base_exit_plans / "r.json"
    code, _, err = _quiet_cli(
        ["--planner", f"{BASE_EXIT_CANARY}_plans:bare", "--output", str(output)], capsys
    )
    assert (code, err) == (1, "")
    assert output.exists()


def test_cli_unencodable_output_path_exits_2_with_e004(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = str(tmp_path / "\ud800.json")
    code, out, err = _quiet_cli(
        ["--planner", "pytest_openmed.planner.controls:control_planner", "--output", output],
        capsys,
    )
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E004 report could not be written\n"


def test_cli_entry_point_hides_base_exception_text(base_exit_plans: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(base_exit_plans)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_openmed.planner", "--planner",
         f"{BASE_EXIT_CANARY}_plans:leaves", "--output", "r.json"],
        cwd=base_exit_plans, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    # A planner that raises a BaseException is a planner error: the report is written and
    # the qualification refused (exit 1), with neither its text nor a traceback shown.
    assert done.returncode == 1
    assert (base_exit_plans / "r.json").exists()
    assert BASE_EXIT_CANARY not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
