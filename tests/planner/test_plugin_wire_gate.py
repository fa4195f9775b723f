"""Wire-format planner gates through the plugin: record, replay, stale, injection items."""

from __future__ import annotations

import json
import os
import textwrap
import xml.etree.ElementTree as ET

import pytest

from pytest_openmed.planner import wire
from pytest_openmed.planner.declaration import INJECTION_ITEMS, PLANNER_ITEMS

CANARY = "QQWIRECANARY"
CASSETTE = f"cassettes/{CANARY}-triage.json"

MODELS = f"""
from pathlib import Path
from pytest_openmed.planner.wire_controls import openai_control_model, openai_gullible_model

def note():
    with Path("calls.log").open("a", encoding="utf-8") as handle:
        handle.write("call\\n")

def model(request):
    note()
    response = openai_control_model(request)
    response["choices"][0]["message"]["content"] = "{CANARY}-model-output"
    return response

def gullible(request):
    note()
    return openai_gullible_model(request)
"""


def esc(text: str) -> str:
    return "".join(f"[{char}]" if char in "[]" else char for char in text)


def gate(name: str, planner: str | None = "models:model", **extra: object) -> str:
    lines = [f'[[planner]]\nname = "{name}"\n']
    if planner is not None:
        lines.append(f'planner = "{planner}"\n')
    for key, value in extra.items():
        lines.append(f"{key} = {json.dumps(value)}\n")
    return "".join(lines)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(models=textwrap.dedent(MODELS))
    pytester.syspathinsert()
    inherited = os.environ.get("PYTHONPATH")  # the checkout under test, when one is set
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(pytester.path), inherited])))
    (pytester.path / "cassettes").mkdir()
    return pytester


def calls(project: pytest.Pytester) -> int:
    log = project.path / "calls.log"
    return log.read_text().count("call") if log.exists() else 0


def write_gates(project: pytest.Pytester, *tables: str) -> None:
    (project.path / "gates.openmed.toml").write_text("".join(tables), encoding="utf-8")


def test_record_then_replay_without_calling_the_model(project: pytest.Pytester) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    recorded = project.runpytest("--openmed-record", "-p", "no:cacheprovider")
    recorded.assert_outcomes(passed=7)
    assert (project.path / CASSETTE).is_file()
    live_calls = calls(project)
    assert live_calls == 14
    replayed = project.runpytest("-v", "-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=7)
    replayed.stdout.fnmatch_lines(
        [f"{esc('gates.openmed.toml::planner(triage)::' + item)} PASSED*" for item in PLANNER_ITEMS]
    )
    assert calls(project) == live_calls


def test_a_replaying_gate_never_imports_its_model(project: pytest.Pytester) -> None:
    project.makepyfile(sdk_model="from models import model\n")
    write_gates(project, gate("triage", "sdk_model:model", dialect="openai", cassette=CASSETTE))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    # Its module now imports an SDK that CI lacks: found, never imported, so the replay passes.
    project.makepyfile(sdk_model="import missing_sdk_module\n\nmodel = None\n")
    write_gates(
        project, gate("triage", planner="sdk_model:model", dialect="openai", cassette=CASSETTE),
        gate("bare", planner=None, dialect="openai", cassette=CASSETTE),
    )  # fmt: skip
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=14)


def test_a_replaying_gate_whose_reference_does_not_resolve_is_an_error(
    project: pytest.Pytester,
) -> None:
    """A renamed or misspelt model module must not pass from its cassette."""
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    write_gates(
        project, gate("triage", planner="renamed_models:model", dialect="openai",
                      cassette=CASSETTE),
    )  # fmt: skip
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*OPENMED-PLANNER-NOT-FOUND*"])
    assert "renamed_models" not in result.stdout.str().replace("planner(triage)", "")


def test_a_changed_prompt_is_a_stale_cassette_error_never_a_pass(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    before = calls(project)
    monkeypatch.setattr(wire, "SYSTEM_TEMPLATE", wire.SYSTEM_TEMPLATE.replace("synthetic", "fake"))
    result = project.runpytest(
        "-rA", "--showlocals", "--tb=long", "-p", "no:cacheprovider", "--junitxml", "junit.xml"
    )
    result.assert_outcomes(errors=7)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*openmed planner gate input refused: *stale cassette*"])
    assert calls(project) == before  # never a fallback to the live model
    text = result.stdout.str() + result.stderr.str() + (project.path / "junit.xml").read_text()
    assert CANARY not in text
    assert "cassettes" not in text


def test_record_refreshes_a_stale_cassette(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    old = (project.path / CASSETTE).read_bytes()
    monkeypatch.setattr(wire, "SYSTEM_TEMPLATE", wire.SYSTEM_TEMPLATE.replace("synthetic", "fake"))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    assert (project.path / CASSETTE).read_bytes() != old
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=7)


def test_injection_items_select_rerun_and_name_junit_cases(project: pytest.Pytester) -> None:
    write_gates(
        project,
        gate("careful", dialect="openai", injection_suite=True),
        gate("gullible", planner="models:gullible", dialect="openai", injection_suite=True),
    )
    first = project.runpytest("--junitxml", "junit.xml")
    first.assert_outcomes(passed=2 * 21 - 3, failed=3)
    last = project.runpytest("--lf", "-v")
    last.assert_outcomes(failed=3)
    last.stdout.fnmatch_lines(
        [
            f"{esc('gates.openmed.toml::planner(gullible)::' + item)} FAILED*"
            for item in ("injection[json-data]", "injection[markdown-table]",
                         "injection[html-comment]")
        ]
    )  # fmt: skip
    chosen = project.runpytest("gates.openmed.toml::planner(gullible)::injection[base64]", "-v")
    chosen.assert_outcomes(passed=1)
    suite = ET.parse(project.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    names = {
        f"{case.get('classname')}::{case.get('name')}"
        for case in suite.iter("testcase")
        if case.find("failure") is not None
    }
    assert names == {
        "gates.openmed.toml.planner(gullible)::injection[json-data]",
        "gates.openmed.toml.planner(gullible)::injection[markdown-table]",
        "gates.openmed.toml.planner(gullible)::injection[html-comment]",
    }


def test_injection_verdicts_carry_style_counts_and_the_suite_interval(
    project: pytest.Pytester,
) -> None:
    write_gates(
        project, gate("gullible", planner="models:gullible", dialect="openai", injection_suite=True)
    )
    result = project.runpytest("--openmed-report", "r.json", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "FAILED  gates.openmed.toml::planner(gullible)::injection?html-comment?: critical: "
            "hostile_instruction_compliance 1 > 0; *hostile_instruction_compliance=1*"
            "suite.compliance_rate=0.2143, suite.compliance_upper=0.4759"
        ]
    )
    gates = json.loads((project.path / "r.json").read_text())["gates"]
    by_item = {entry["nodeid"].rpartition("::")[2]: entry for entry in gates}
    assert list(by_item) == list(PLANNER_ITEMS + INJECTION_ITEMS)
    html = by_item["injection[html-comment]"]
    assert (html["status"], html["reason"]) == ("critical", "hostile_compliance")
    metrics = html["metrics"]
    assert metrics["hostile_instruction_compliance"] == 1
    assert (metrics["suite.styles"], metrics["suite.compliance_count"]) == (14, 3)
    assert 0 < metrics["suite.compliance_lower"] < 3 / 14 < metrics["suite.compliance_upper"] < 1
    assert by_item["qualification"]["status"] == "passed"


def test_nothing_from_the_model_or_the_cassette_reaches_any_channel(
    project: pytest.Pytester,
) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE, injection_suite=True))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=21)
    assert CANARY in (project.path / CASSETTE).read_text()
    result = project.runpytest(
        "-vv", "-rA", "-s", "--showlocals", "--tb=long", "--junitxml", "junit.xml",
        "--openmed-report", "r.json", "--openmed-markdown", "r.md", "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=21)
    for text in (
        result.stdout.str(),
        result.stderr.str(),
        (project.path / "junit.xml").read_text(),
        (project.path / "r.json").read_text(),
        (project.path / "r.md").read_text(),
    ):
        assert CANARY not in text
        assert "cassettes/" not in text


def test_an_unreadable_cassette_is_an_error_naming_no_path(project: pytest.Pytester) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*CassetteError: cassette input: the cassette could not be read*"])
    assert CANARY not in result.stdout.str() + result.stderr.str()


def test_an_invalid_cassette_is_a_located_error_naming_no_value(project: pytest.Pytester) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=7)
    document = json.loads((project.path / CASSETTE).read_text())
    document["runs"]["qualification"][1]["turn"] = f"{CANARY}-turn"
    (project.path / CASSETTE).write_text(json.dumps(document))
    result = project.runpytest(
        "--showlocals", "--tb=long", "-p", "no:cacheprovider", "--junitxml", "junit.xml"
    )
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(
        [
            "*openmed planner gate input refused: CassetteError: cassette input: "
            "run 'qualification', exchange #2, key 'turn': not a valid planner cassette*"
        ]
    )
    text = result.stdout.str() + result.stderr.str() + (project.path / "junit.xml").read_text()
    assert CANARY not in text
    assert "cassettes/" not in text


def test_recording_a_cassette_only_gate_is_an_error(project: pytest.Pytester) -> None:
    write_gates(project, gate("bare", planner=None, dialect="mcp", cassette=CASSETTE))
    result = project.runpytest("--openmed-record", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=7)
    result.stdout.fnmatch_lines(["*recording needs the model's planner reference*"])


@pytest.mark.parametrize(
    "workers",
    [["-n", "2"], ["--dist", "load", "--tx", "2*popen"]],
    ids=["numprocesses", "dist-and-tx"],
)
def test_record_refuses_xdist(project: pytest.Pytester, workers: list[str]) -> None:
    """Refused before any worker starts (a worker refusing it would be restarted without end)."""
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE))
    result = project.runpytest_subprocess("--openmed-record", *workers, timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--openmed-record*without pytest-xdist*"])
    assert not (project.path / CASSETTE).exists()


def test_replay_under_xdist_gives_the_serial_report(project: pytest.Pytester) -> None:
    write_gates(project, gate("triage", dialect="openai", cassette=CASSETTE, injection_suite=True))
    project.runpytest("--openmed-record", "-p", "no:cacheprovider").assert_outcomes(passed=21)
    project.runpytest("--openmed-report", "serial.json", "-p", "no:cacheprovider")
    parallel = project.runpytest_subprocess(
        "-n", "2", "--openmed-report", "parallel.json", "-p", "no:cacheprovider"
    )
    parallel.assert_outcomes(passed=21)
    serial = json.loads((project.path / "serial.json").read_text())["gates"]
    assert serial == json.loads((project.path / "parallel.json").read_text())["gates"]


def test_a_planner_with_a_dialect_and_no_cassette_is_a_live_wire_gate(
    project: pytest.Pytester,
) -> None:
    write_gates(project, gate("live", dialect="openai"))
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=7)
    assert calls(project) == 14


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[[planner]]\nname = "g"\ncassette = "c.json"\n', "key 'dialect' is required"),
        ('[[planner]]\nname = "g"\n', "key 'planner' is required unless"),
        (gate("g", dialect="gemini"), "key 'dialect' must be one of: openai, anthropic, mcp"),
        (gate("g", injection_suite="yes"), "key 'injection_suite' must be true or false"),
        (gate("g", cassette="/abs/c.json", dialect="mcp"), "key 'cassette' must be relative"),
    ],
)
def test_malformed_planner_tables_are_located_collection_errors(
    project: pytest.Pytester, table: str, message: str
) -> None:
    write_gates(project, table)
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*gates.openmed.toml: [[][[]planner[]][]] #1: {message}*"])


def test_a_downstream_test_qualifies_a_model_in_each_dialect_with_one_wrapper_call(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_models="""
        import pytest
        from pytest_openmed.planner import wire_planner
        from pytest_openmed.planner.wire_controls import (
            anthropic_control_model, mcp_control_model, openai_control_model,
        )

        @pytest.mark.parametrize("dialect, model", [
            ("openai", openai_control_model),
            ("anthropic", anthropic_control_model),
            ("mcp", mcp_control_model),
        ])
        def test_model_qualifies(qualify_planner, dialect, model):
            assert qualify_planner(wire_planner(model, dialect)).qualified
        """
    )
    result = project.runpytest("--openmed-report", "r.json", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    gates = json.loads((project.path / "r.json").read_text())["gates"]
    assert len(gates) == 3 * len(PLANNER_ITEMS)
    assert all(gate["status"] == "passed" for gate in gates)
