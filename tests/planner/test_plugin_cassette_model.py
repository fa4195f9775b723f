"""A ``[[planner]]`` gate's ``model`` identity: recorded into its cassette, compared on replay."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import validate_report

from ._helpers import WIRE_MODELS, wire_gate, write_gates

CANARY = "QQGATEMODELCANARY"
CASSETTE = "cassettes/triage.json"


def gate(**keys: object) -> str:
    lines = ['[[planner]]\nname = "triage"\n']
    lines += [f"{key} = {json.dumps(value)}\n" for key, value in keys.items()]
    return "".join(lines)


def test_recording_writes_the_declared_identity_and_reference(
    wire_project: pytest.Pytester,
) -> None:
    write_gates(wire_project, wire_gate(CASSETTE, model=f"{CANARY}-1"))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    document = json.loads((wire_project.path / CASSETTE).read_text())
    assert (document["model_identity"], document["planner_reference"]) == (
        f"{CANARY}-1",
        "models:model",
    )
    wire_project.runpytest().assert_outcomes(passed=7)


def test_a_replay_declaring_another_model_is_stale_and_names_the_cause(
    wire_project: pytest.Pytester,
) -> None:
    write_gates(wire_project, wire_gate(CASSETTE, model=f"{CANARY}-1"))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write_gates(wire_project, wire_gate(CASSETTE, model=f"{CANARY}-2"))
    result = wire_project.runpytest("-rA", "--showlocals", "--tb=long", "--openmed-report=r.json")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the model identity differs*record again*"])
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output and CANARY not in (wire_project.path / "r.json").read_text()
    assert validate_report(wire_project.path / "r.json")["summary"]["gates"] == 7


def test_a_replay_under_another_planner_reference_is_stale(wire_project: pytest.Pytester) -> None:
    write_gates(wire_project, wire_gate(CASSETTE))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    wire_project.makepyfile(renamed=WIRE_MODELS)
    write_gates(wire_project, gate(planner="renamed:model", dialect="openai", cassette=CASSETTE))
    result = wire_project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the planner reference differs*"])


def test_a_cassette_written_before_model_identities_is_stale(wire_project: pytest.Pytester) -> None:
    write_gates(wire_project, wire_gate(CASSETTE))
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    path = wire_project.path / CASSETTE
    document = json.loads(path.read_text())
    del document["model_identity"], document["planner_reference"]
    path.write_text(json.dumps({**document, "schema_version": 1}))
    result = wire_project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the cassette records no model identity*"])
    wire_project.runpytest("--openmed-record").assert_outcomes(passed=7)
    wire_project.runpytest().assert_outcomes(passed=7)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (wire_gate(CASSETTE, model=f"models/{CANARY}"), "key 'model' must be a name of 1 to 128"),
        (wire_gate(CASSETTE, model=7), "key 'model' must be a name of 1 to 128"),
        (
            gate(planner="models:model", model=f"{CANARY}-1"),
            "key 'model' applies to wire-format models only (set 'dialect')",
        ),
    ],
)
def test_a_model_that_is_not_a_wire_models_name_is_a_located_collection_error(
    wire_project: pytest.Pytester, table: str, message: str
) -> None:
    write_gates(wire_project, table)
    result = wire_project.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*gates.openmed.toml: [[][[]planner[]][]] #1: {message}*"])
    assert CANARY not in result.stdout.str()


def test_the_mcp_fixture_compares_the_model_it_is_told_of(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_agent="""
        from pytest_openmed.planner.mcp_controls import MCP_CONTROLS

        CONTROL = MCP_CONTROLS[0]

        def test_same(qualify_mcp_agent):
            assert qualify_mcp_agent(cassette=CONTROL.cassette, reference=CONTROL.reference)

        def test_other_identity(qualify_mcp_agent):
            qualify_mcp_agent(cassette=CONTROL.cassette, model_identity="vendor-1")
        """
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*stale cassette: the cassette records no model identity*"])
