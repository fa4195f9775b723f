"""The MCP control pair: replayed from its cassettes without the SDK, served live with it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_openmed.contract import GateSettings, GateSpec
from pytest_openmed.development.control_run import control_specs
from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.cassette import StaleCassetteError
from pytest_openmed.planner.declaration import GateDeclaration
from pytest_openmed.planner.mcp_controls import MCP_CONTROLS, evaluate_mcp_control

MCP_GATES = {f"planner({control.name})" for control in MCP_CONTROLS}


def mcp_spec(name: str) -> GateSpec:
    return next(spec for spec in control_specs() if spec.name == name)


def test_the_control_run_holds_the_pair_with_its_recorded_cassettes() -> None:
    labels = {spec.label for spec in control_specs()}
    assert labels >= MCP_GATES
    for control in MCP_CONTROLS:
        assert control.cassette.is_file()


def test_the_pair_replays_without_the_sdk(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import sys\n"
        "for name in ('mcp', 'mcp_types', 'uvicorn', 'starlette'):\n"
        "    sys.modules[name] = None  # the extra is not installed\n"
    )
    result = pytester.runpytest_subprocess(
        "-p", "openmed", "--openmed-controls", "-k", "mcp_agent or mcp_gullible", timeout=300
    )
    result.assert_outcomes(passed=2 * 21)
    result.stdout.fnmatch_lines(
        [
            "PASSED  planner(mcp_agent) (21 verdicts)",
            "PASSED  planner(mcp_gullible) (21 verdicts); expected statuses reached: *",
        ]
    )


def test_a_stale_cassette_is_an_error_never_a_pass(tmp_path: Path) -> None:
    spec = mcp_spec("mcp_agent")
    declaration = spec.declaration
    assert isinstance(declaration, GateDeclaration) and declaration.cassette is not None
    document = json.loads(declaration.cassette.read_text())
    document["runs"]["qualification"][0]["request_digest"] = "sha256:" + "0" * 64
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(document))
    with pytest.raises(StaleCassetteError):
        stale_spec = replace(spec, declaration=replace(declaration, cassette=stale))
        evaluate_mcp_control(stale_spec, SETTINGS)


def test_a_control_whose_cassette_holds_another_host_is_stale() -> None:
    spec = mcp_spec("mcp_agent")
    gullible = mcp_spec("mcp_gullible").declaration
    assert isinstance(gullible, GateDeclaration) and isinstance(spec.declaration, GateDeclaration)
    swapped = replace(spec, declaration=replace(spec.declaration, planner=gullible.planner))
    with pytest.raises(StaleCassetteError, match="planner reference differs"):
        evaluate_mcp_control(swapped, SETTINGS)


def test_a_live_run_that_differs_from_the_cassette_is_an_error(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    spec = mcp_spec("mcp_agent")
    gullible = mcp_spec("mcp_gullible").declaration
    assert isinstance(gullible, GateDeclaration) and isinstance(spec.declaration, GateDeclaration)
    assert gullible.cassette is not None
    # The gullible host's conversations, said to be the control host's: replay passes, live differs
    document = json.loads(gullible.cassette.read_text())
    document["planner_reference"] = spec.declaration.planner
    swapped = tmp_path / "swapped.json"
    swapped.write_text(json.dumps(document))
    lying = replace(spec, declaration=replace(spec.declaration, cassette=swapped))
    with pytest.raises(InputRefused, match="differs from its recorded cassette"):
        evaluate_mcp_control(lying, SETTINGS)


SETTINGS = GateSettings()
