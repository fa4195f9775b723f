"""One error model: every exception class of the package is an OpenmedError with a builtin base.

``except OpenmedError`` catches every refusal of the package, and
``except ValueError``/``except TypeError`` clauses written before the model
existed keep catching what they caught.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import pytest_openmed
from pytest_openmed import errors
from pytest_openmed.errors import InputRefused, InvalidArgument, OpenmedError, shown_name

#: Not errors: pytest outcomes (``pytest.fail.Exception`` subclasses, shown by pytest
#: as failures) and the planner's control-flow signals, ``BaseException``s so that a
#: planner's own ``except Exception`` cannot swallow them: the harness's stop and the
#: cassette's stale replay, which is one.  Neither leaves the planner engine.
_NOT_ERRORS = {
    "pytest_openmed.planner.cassette._Stale",
    "pytest_openmed.planner.harness.HarnessStop",
}


def _modules() -> list[str]:
    names = [pytest_openmed.__name__]
    for info in pkgutil.walk_packages(pytest_openmed.__path__, prefix="pytest_openmed."):
        if not info.name.endswith(".__main__"):  # importing it would run the CLI
            names.append(info.name)
    return sorted(names)


def _exception_classes(module_name: str) -> list[type[BaseException]]:
    module = importlib.import_module(module_name)
    found = []
    for _, value in inspect.getmembers(module, inspect.isclass):
        if value.__module__ != module_name or not issubclass(value, BaseException):
            continue
        if issubclass(value, pytest.fail.Exception):
            continue
        if f"{module_name}.{value.__qualname__}" in _NOT_ERRORS:
            continue
        found.append(value)
    return found


@pytest.mark.parametrize("module_name", _modules())
def test_every_exception_class_is_an_openmed_error_with_a_builtin_base(module_name: str) -> None:
    for cls in _exception_classes(module_name):
        if cls is OpenmedError:
            continue  # the root; every family below it has a builtin base
        assert issubclass(cls, OpenmedError), cls.__qualname__
        assert issubclass(cls, ValueError | TypeError), cls.__qualname__


def test_the_walk_finds_the_error_classes_of_every_area() -> None:
    found = {cls.__name__ for name in _modules() for cls in _exception_classes(name)}
    for expected in (
        "GateItemRefused",
        "TomlError",
        "RecordFileError",
        "MarkerError",
        "GateFileError",
        "WaiverError",
        "BaselineError",
        "HistoryError",
        "ReportError",
        "CassetteError",
        "CassetteWriteError",
        "StaleCassetteError",
        "PlannerReferenceError",
        "MissingEvaluatorKey",
        "UsageError",
        "CorruptAsset",
    ):
        assert expected in found


@pytest.mark.parametrize(
    ("family", "builtin"),
    [
        (errors.InputRefused, ValueError),
        (errors.LimitExceeded, ValueError),
        (errors.UsageError, ValueError),
        (errors.ComponentError, ValueError),
        (errors.InvalidArgument, TypeError),
    ],
)
def test_each_family_keeps_its_builtin_base_and_says_what_to_do(
    family: type[OpenmedError], builtin: type[Exception]
) -> None:
    assert issubclass(family, builtin)
    assert family.__doc__ and family.__doc__.strip()


def test_the_generic_families_show_the_builtin_name_they_replaced() -> None:
    assert shown_name(InputRefused("x")) == "ValueError"
    assert shown_name(errors.LimitExceeded("x")) == "ValueError"
    assert shown_name(InvalidArgument("x")) == "TypeError"
    assert shown_name(errors.CorruptAsset("x")) == "CorruptAsset"
    assert shown_name(KeyError("x")) == "KeyError"


def test_engine_refusals_of_bad_input_are_typed() -> None:
    from pytest_openmed.claims import score_summary_claims
    from pytest_openmed.planner import qualify_planner

    with pytest.raises(OpenmedError) as claims:
        score_summary_claims([{"claim_id": 1}], [])
    assert isinstance(claims.value, ValueError | TypeError)
    with pytest.raises(InvalidArgument, match="planner must be a callable"):
        qualify_planner("not callable")  # type: ignore[arg-type]


def test_bad_input_to_the_contract_is_typed() -> None:
    from pytest_openmed.contract import ArgumentSource, GateResult, GateStatus
    from pytest_openmed.planner.declaration import declare

    with pytest.raises(InputRefused):
        declare({"planner": "not a reference"}, ArgumentSource())
    with pytest.raises(InputRefused):
        GateResult(kind="claims", status=GateStatus.PASSED, reason="Free Text")


@pytest.mark.parametrize(
    ("parse", "text"),
    [("parse_seed", "x"), ("parse_seed", "-1"), ("parse_rate", "nan"), ("parse_rate", "2")],
)
def test_option_values_are_refused_with_the_error_model(parse: str, text: str) -> None:
    from pytest_openmed.plugin import options

    with pytest.raises(InputRefused):
        getattr(options, parse)(text)


def test_development_sources_refuse_with_the_error_model() -> None:
    from pytest_openmed.development.sources import check_slice

    with pytest.raises(InputRefused, match=r"^slice must be one of"):
        check_slice("other")


def test_claims_limits_are_limit_errors_shown_as_value_errors() -> None:
    from pytest_openmed.claims.records import collect
    from pytest_openmed.claims.report import check_draw_budget

    for items in ([1, 2, 3], (1, 2, 3), iter([1, 2, 3])):
        with pytest.raises(errors.LimitExceeded, match=r"^too many$") as caught:
            collect(items, 2, "not a collection", "too many")
        assert shown_name(caught.value) == "ValueError"
    with pytest.raises(errors.LimitExceeded):
        check_draw_budget(1_000_000, 100_000)
