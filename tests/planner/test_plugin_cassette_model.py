"""A ``[[planner]]`` gate's ``model`` identity: recorded into its cassette, compared on replay."""

from __future__ import annotations

import json

import pytest

from tests.plugin._helpers import validate_report

CANARY = "QQGATEMODELCANARY"
CASSETTE = "cassettes/triage.json"
MODELS = "from pytest_openmed.planner.wire_controls import openai_control_model as model\n"


def gate(**keys: object) -> str:
    lines = ['[[planner]]\nname = "triage"\n']
    lines += [f"{key} = {json.dumps(value)}\n" for key, value in keys.items()]
    return "".join(lines)


def wire_gate(**keys: object) -> str:
    return gate(planner="models:model", dialect="openai", cassette=CASSETTE, **keys)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(models=MODELS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    (pytester.path / "cassettes").mkdir()
    return pytester


def write(project: pytest.Pytester, table: str) -> None:
    (project.path / "gates.openmed.toml").write_text(table, encoding="utf-8")


def test_recording_writes_the_declared_identity_and_reference(project: pytest.Pytester) -> None:
    write(project, wire_gate(model=f"{CANARY}-1"))
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    document = json.loads((project.path / CASSETTE).read_text())
    assert (document["model_identity"], document["planner_reference"]) == (
        f"{CANARY}-1",
        "models:model",
    )
    project.runpytest().assert_outcomes(passed=7)


def test_a_replay_declaring_another_model_is_stale_and_names_the_cause(
    project: pytest.Pytester,
) -> None:
    write(project, wire_gate(model=f"{CANARY}-1"))
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    write(project, wire_gate(model=f"{CANARY}-2"))
    result = project.runpytest("-rA", "--showlocals", "--tb=long", "--openmed-report=r.json")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the model identity differs*record again*"])
    output = result.stdout.str() + result.stderr.str()
    assert CANARY not in output and CANARY not in (project.path / "r.json").read_text()
    assert validate_report(project.path / "r.json")["summary"]["gates"] == 7


def test_a_replay_under_another_planner_reference_is_stale(project: pytest.Pytester) -> None:
    write(project, wire_gate())
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    project.makepyfile(renamed=MODELS)
    write(project, gate(planner="renamed:model", dialect="openai", cassette=CASSETTE))
    result = project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the planner reference differs*"])


def test_a_cassette_written_before_model_identities_is_stale(project: pytest.Pytester) -> None:
    write(project, wire_gate())
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    path = project.path / CASSETTE
    document = json.loads(path.read_text())
    del document["model_identity"], document["planner_reference"]
    path.write_text(json.dumps({**document, "schema_version": 1}))
    result = project.runpytest()
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*stale cassette: the cassette records no model identity*"])
    project.runpytest("--openmed-record").assert_outcomes(passed=7)
    project.runpytest().assert_outcomes(passed=7)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (wire_gate(model=f"models/{CANARY}"), "key 'model' must be a name of 1 to 128"),
        (wire_gate(model=7), "key 'model' must be a name of 1 to 128"),
        (
            gate(planner="models:model", model=f"{CANARY}-1"),
            "key 'model' applies to wire-format models only (set 'dialect')",
        ),
    ],
)
def test_a_model_that_is_not_a_wire_models_name_is_a_located_collection_error(
    project: pytest.Pytester, table: str, message: str
) -> None:
    write(project, table)
    result = project.runpytest()
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
