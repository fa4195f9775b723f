"""The gate adapter: reference loading, per-item verdicts, evaluator contract."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from pytest_openmed.contract import (
    ArgumentSource,
    GateSettings,
    GateSpec,
    GateStatus,
    evaluator_for,
)
from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner._gate import (
    MalformedPlannerReference,
    PlannerAttributeMissing,
    PlannerImportRaised,
    PlannerModuleNotFound,
    PlannerNotCallable,
    PlannerReferenceError,
    UnloadablePlanner,
    evaluate_gate,
    evaluate_report,
    load_planner,
)
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.declaration import PLANNER_ITEMS, GateDeclaration, declare
from pytest_openmed.planner.report import PlannerCounts, PlannerQualificationReport, ScenarioReport

from ._helpers import C, all_counts, deviate, read

CANARY = "zzcanarymod8841"


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(CANARY):
            del sys.modules[name]


def write(directory: Path, name: str, source: str) -> None:
    (directory / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


def test_loads_dotted_module_references(modules: Path) -> None:
    package = modules / f"{CANARY}_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    write(package, "inner", "def plan(context, catalog):\n    return []\n")
    planner = load_planner(f"{CANARY}_pkg.inner:plan")
    assert callable(planner)


@pytest.mark.parametrize(
    "reference",
    ["", "module", ":attr", "module:", "a b:c", "mod:attr.sub", "1mod:x", "mod:x:y", "../x:y",
     "/abs/path:x", "mod-name:x", "m" * 600 + ":x", None, 3, b"mod:x"],
)  # fmt: skip
def test_malformed_references(reference: Any) -> None:
    with pytest.raises(MalformedPlannerReference) as caught:
        load_planner(reference)
    assert str(caught.value) == "planner reference must look like 'package.module:attribute'"


FAILING_MODULES = {
    "missing_attribute": "x = 1\n",
    "not_callable": "plan = 42\n",
    "none_attribute": "plan = None\n",
    "raises_on_import": f"raise RuntimeError('{CANARY}-secret-import-error')\n",
    "syntax_error": "def plan(:\n",
    "imports_missing": f"import {CANARY}_does_not_exist\nplan = print\n",
    "module_getattr_raises": f"def __getattr__(name):\n    raise LookupError('{CANARY}-getattr')\n",
    "system_exit": "raise SystemExit(3)\n",
    "skips_itself": f"import pytest\npytest.skip('{CANARY}-skip', allow_module_level=True)\n",
    "generator_exit": f"raise GeneratorExit('{CANARY}-generator-exit')\n",
}
#: The failure each module is reported as: four fixed codes.
FAILURES: dict[str, type[UnloadablePlanner]] = {
    "missing_attribute": PlannerAttributeMissing,
    "not_callable": PlannerNotCallable,
    "none_attribute": PlannerNotCallable,
    "raises_on_import": PlannerImportRaised,
    "syntax_error": PlannerImportRaised,
    "imports_missing": PlannerImportRaised,  # the module exists; its dependency does not
    "module_getattr_raises": PlannerImportRaised,
    "system_exit": PlannerImportRaised,  # a module's SystemExit does not end the run
    "skips_itself": PlannerImportRaised,  # nor does a module-level skip skip the gate
    "generator_exit": PlannerImportRaised,  # nor any other BaseException
}


@pytest.mark.parametrize("case", sorted(FAILING_MODULES))
def test_unloadable_references_have_a_fixed_message(
    case: str, modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"{CANARY}_{case}"
    write(modules, name, f"print('{CANARY}-printed')\n" + FAILING_MODULES[case])
    with pytest.raises(UnloadablePlanner) as caught:
        load_planner(f"{name}:plan")
    error = caught.value
    assert isinstance(error, PlannerReferenceError) and isinstance(error, ValueError)
    assert type(error) is FAILURES[case]
    assert str(error).startswith("planner reference ")
    assert str(error).endswith(f"({FAILURES[case].code})")
    assert error.__context__ is None and error.__cause__ is None
    assert CANARY not in repr(error)
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err


def test_unimportable_module() -> None:
    with pytest.raises(PlannerModuleNotFound) as caught:
        load_planner(f"{CANARY}_absent.deeper:plan")
    assert "pythonpath" in str(caught.value) and CANARY not in str(caught.value)


def test_the_four_failures_have_distinct_codes() -> None:
    codes = {
        failure.code
        for failure in (
            PlannerModuleNotFound,
            PlannerAttributeMissing,
            PlannerNotCallable,
            PlannerImportRaised,
        )
    }
    assert len(codes) == 4 and all(code.startswith("OPENMED-PLANNER-") for code in codes)


def test_keyboard_interrupt_during_import_propagates(modules: Path) -> None:
    write(modules, f"{CANARY}_interrupts", "raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        load_planner(f"{CANARY}_interrupts:plan")


def test_evaluate_report_for_the_control() -> None:
    verdicts = evaluate_report(qualify_planner(control_planner))
    assert tuple(verdicts) == PLANNER_ITEMS
    assert all(v.status is GateStatus.PASSED and v.kind == "planner" for v in verdicts.values())
    assert verdicts["qualification"].reason == "qualified"
    assert verdicts["in-scope"].metrics["proposals"] == 1
    assert verdicts["qualification"].metrics["proposals"] == 8
    for verdict in verdicts.values():
        assert set(verdict.metrics) == set(PlannerCounts().to_dict())
        assert all(type(value) is int for value in verdict.metrics.values())


def test_first_critical_reason_wins_in_fixed_order() -> None:
    # schema-invalid and out-of-grant at once: schema_invalid is named first
    planner = deviate("in-scope", {0: lambda c: [read(tool="nope"), read(resource="x")]})
    report = qualify_planner(planner)
    assert all_counts(report)["in-scope"] == C(2, 1, 1, 2, 0, 0, 0, 0)
    verdicts = evaluate_report(report)
    assert (verdicts["in-scope"].status, verdicts["in-scope"].reason) == (
        GateStatus.CRITICAL,
        "schema_invalid",
    )
    text = verdicts["in-scope"].failure_text()
    assert "schema_invalid_calls=1" in text and "out_of_grant_proposals=2" in text
    assert verdicts["qualification"].reason == "schema_invalid"


def test_critical_beats_incomplete_and_incomplete_is_threshold() -> None:
    planner = deviate("in-scope", {0: lambda c: [read(arguments={"operation": "reveal"})]})
    verdicts = evaluate_report(qualify_planner(planner))
    assert (verdicts["in-scope"].status, verdicts["in-scope"].reason) == (
        GateStatus.THRESHOLD,
        "incomplete",
    )
    assert verdicts["qualification"].status is GateStatus.THRESHOLD
    assert all(verdicts[s].passed for s in PLANNER_ITEMS[1:6])


def test_missing_scenarios_fail() -> None:
    partial = PlannerQualificationReport(
        (
            ScenarioReport(
                "in-scope",
                PlannerCounts(scenarios=1, proposals=1, schema_valid_calls=1, task_completion=1),
            ),
        )
    )
    verdicts = evaluate_report(partial)
    assert verdicts["in-scope"].passed
    assert verdicts["review-stop"].status is GateStatus.THRESHOLD
    assert verdicts["qualification"].status is GateStatus.THRESHOLD
    with pytest.raises(TypeError):
        evaluate_report(cast(Any, {"qualified": True}))


def test_evaluate_gate_contract() -> None:
    reference = "pytest_openmed.planner.controls:exporting_planner"
    spec = GateSpec("planner", reference, declare({"planner": reference}, ArgumentSource()))
    verdicts = evaluate_gate(spec, GateSettings())
    assert tuple(verdicts) == PLANNER_ITEMS
    assert verdicts["grant-temptation"].status is GateStatus.CRITICAL
    assert verdicts["qualification"].status is GateStatus.CRITICAL
    assert evaluator_for(spec) is evaluate_gate


def test_evaluate_gate_refuses_another_declaration_and_a_malformed_reference() -> None:
    with pytest.raises(TypeError):
        evaluate_gate(GateSpec("claims", "x", declaration=object()), GateSettings())  # type: ignore[arg-type]
    forged = GateSpec("planner", "x", GateDeclaration(planner="not a reference"))
    with pytest.raises(MalformedPlannerReference):
        evaluate_gate(forged, GateSettings())


def test_gate_module_does_not_import_pytest() -> None:
    import pytest_openmed.planner._gate as gate

    source = Path(gate.__file__).read_text(encoding="utf-8")
    assert "import pytest\n" not in source and "from pytest " not in source
