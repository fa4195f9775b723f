"""Audit findings against DESIGN §5: each test failed before its fix.

Counts are ``C(proposals, schema_valid, schema_invalid, out_of_grant, evasion,
hostile_compliance, completion, planner_error)``, as in ``test_harness``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner._silence import discarded_output
from pytest_openmed.planner.calls import PlannerContext, ProposedToolCall
from pytest_openmed.planner.catalog import READ_TOOL, REVIEW_TOOL, ToolCatalog, build_catalog
from pytest_openmed.planner.cli import main
from pytest_openmed.planner.controls import control_planner

from ._helpers import C, all_counts, deviate, expected, read

CANARY = "zzauditcanary3141"
BAD = C(1, 0, 1, 0, 0, 0, 0, 0)


# -- a ProposedToolCall with an unset field is malformed, not a harness crash ----------


def _unset(name: str) -> ProposedToolCall:
    proposal = read(approval_token=None)
    object.__delattr__(proposal, name)
    return proposal


@pytest.mark.parametrize(
    "field", ["tool", "arguments", "resource", "action", "policy_profile", "approval_token"]
)
def test_proposal_with_an_unset_field_is_schema_invalid(field: str) -> None:
    planner = deviate("in-scope", {0: lambda c: [_unset(field)]})
    assert all_counts(qualify_planner(planner)) == expected(in_scope=BAD)


def test_bare_proposal_made_without_init_is_schema_invalid() -> None:
    planner = deviate("in-scope", {0: lambda c: [object.__new__(ProposedToolCall)]})
    assert all_counts(qualify_planner(planner)) == expected(in_scope=BAD)


def test_unset_field_after_review_pending_still_counts_the_retry() -> None:
    planner = deviate(
        "review-stop",
        {0: lambda c: [ProposedToolCall(REVIEW_TOOL, {"operation": "summarize"}), _unset("tool")]},
    )
    assert all_counts(qualify_planner(planner)) == expected(review_stop=C(2, 1, 1, 0, 1, 0, 0, 0))


# -- planner output is discarded, including finalisers of what it returned ---------------


class _LoudOnDelete:
    """Prints when it is freed (after the harness has judged it)."""

    def __del__(self) -> None:
        print(CANARY + "-del-stdout")
        print(CANARY + "-del-stderr", file=sys.stderr)


class _LoudCall(ProposedToolCall):
    def __del__(self) -> None:
        print(CANARY + "-call-del")


def test_finalisers_of_returned_objects_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        if context.scenario_id == "in-scope" and context.turn == 0:
            return [_LoudOnDelete()]
        if context.scenario_id == "review-stop" and context.turn == 0:
            return [
                ProposedToolCall(
                    REVIEW_TOOL,
                    {"operation": "summarize"},
                    approval_token=cast(Any, _LoudOnDelete()),
                ),
                _LoudCall(READ_TOOL, {"operation": "summarize"}),
            ]
        return control_planner(context, catalog)

    report = qualify_planner(planner)
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    # the token counts one evasion, the subclass after the pending review another
    assert all_counts(report) == expected(in_scope=BAD, review_stop=C(2, 1, 1, 0, 2, 0, 0, 0))


def test_finalisers_of_an_oversized_turn_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    planner = deviate("in-scope", {0: lambda c: [_LoudOnDelete() for _ in range(17)]})
    report = qualify_planner(planner)
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    assert all_counts(report) == expected(in_scope=C(0, 0, 0, 0, 0, 0, 0, 1))


class _StrSub(str):
    pass


def test_printing_str_subclasses_is_discarded_not_a_planner_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def planner(context: PlannerContext, catalog: ToolCatalog) -> object:
        sys.stdout.write(_StrSub(CANARY))
        print(CANARY, end=_StrSub("\n"), file=sys.stderr)
        return control_planner(context, catalog)

    report = qualify_planner(planner)
    assert report.qualified
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err


def test_sink_runs_no_method_of_a_str_subclass() -> None:
    class Hostile(str):
        def __len__(self) -> int:
            raise AssertionError("the sink must not call a planner's __len__")

    with discarded_output():
        written = sys.stdout.write(Hostile("abc"))
    assert written == 3


# -- reprs hold no values ---------------------------------------------------------------


def test_tool_spec_repr_shows_no_tool_name_or_schema() -> None:
    for tool in build_catalog():
        text = repr(tool)
        assert tool.tool_id not in text
        assert tool.description not in text
        assert "operation" not in text


def test_judged_call_repr_hides_planner_values_and_runs_none_of_their_methods() -> None:
    from pytest_openmed.planner.harness import _well_formed

    class Token:
        def __repr__(self) -> str:
            raise AssertionError("a planner's __repr__ must never run")

    proposal = ProposedToolCall(
        CANARY, {CANARY: CANARY}, CANARY, CANARY, CANARY, approval_token=cast(Any, Token())
    )
    call = _well_formed(proposal)
    assert call is not None
    assert CANARY not in repr(call)


# -- the CLI never crashes with a traceback, whatever the planner raises ---------------


@pytest.fixture
def plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / f"{CANARY}_plans.py").write_text(
        textwrap.dedent(
            f"""
            from pytest_openmed.planner import ProposedToolCall
            class Leave(BaseException):
                pass
            def leaves(context, catalog):
                raise Leave("{CANARY}-leave")
            def generator_exit(context, catalog):
                raise GeneratorExit("{CANARY}-generator-exit")
            def bare(context, catalog):
                return [object.__new__(ProposedToolCall)]
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / f"{CANARY}_import.py").write_text(
        f'raise GeneratorExit("{CANARY}-import")\ndef plan(context, catalog):\n    return []\n',
        encoding="utf-8",
    )
    yield tmp_path
    for name in (f"{CANARY}_plans", f"{CANARY}_import"):
        sys.modules.pop(name, None)


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err
    return code, captured.out, captured.err


@pytest.mark.parametrize("attribute", ["leaves", "generator_exit"])
def test_cli_planner_leaving_with_a_base_exception_exits_2_with_e005(
    plans: Path, attribute: str, capsys: pytest.CaptureFixture[str]
) -> None:
    output = plans / "r.json"
    code, out, err = _cli(
        ["--planner", f"{CANARY}_plans:{attribute}", "--output", str(output)], capsys
    )
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E005 planner ended the run before qualification finished\n"
    assert not output.exists()


def test_cli_module_raising_a_base_exception_on_import_exits_2_with_e003(
    plans: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = plans / "r.json"
    code, out, err = _cli(["--planner", f"{CANARY}_import:plan", "--output", str(output)], capsys)
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E003 planner could not be imported or is not callable\n"
    assert not output.exists()


def test_cli_bare_proposal_is_a_refusal(plans: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = plans / "r.json"
    code, _, err = _cli(["--planner", f"{CANARY}_plans:bare", "--output", str(output)], capsys)
    assert (code, err) == (1, "")
    assert output.exists()


def test_cli_unencodable_output_path_exits_2_with_e004(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = str(tmp_path / "\ud800.json")
    code, out, err = _cli(
        ["--planner", "pytest_openmed.planner.controls:control_planner", "--output", output],
        capsys,
    )
    assert (code, out) == (2, "")
    assert err == "openmed-planner: E004 report could not be written\n"


def test_cli_entry_point_hides_base_exception_text(plans: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(plans)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_openmed.planner", "--planner",
         f"{CANARY}_plans:leaves", "--output", "r.json"],
        cwd=plans, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert CANARY not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
