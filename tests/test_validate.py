"""The cross-module validation rules, each defined once in ``pytest_openmed._validate``."""

from __future__ import annotations

import ast
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_openmed
from pytest_openmed import _validate as v
from pytest_openmed.errors import InputRefused, InvalidArgument, LimitExceeded

PACKAGE = Path(pytest_openmed.__file__).parent


@given(st.integers(min_value=0, max_value=50), st.integers(min_value=0, max_value=50))
@settings(max_examples=100, deadline=None)
def test_bounded_consumes_at_most_limit_plus_one(size: int, limit: int) -> None:
    consumed = itertools.count()
    source = (next(consumed) for _ in range(size))
    if size > limit:
        with pytest.raises(ValueError, match=r"^too many$"):
            v.bounded(source, limit, "too many")
        assert next(consumed) == limit + 1
    else:
        assert len(v.bounded(source, limit, "too many")) == size


def test_bounded_refuses_with_a_limit_error_or_the_callers_own() -> None:
    with pytest.raises(LimitExceeded, match=r"^too many$"):
        v.bounded(range(3), 2, "too many")
    with pytest.raises(KeyError):
        v.bounded(range(3), 2, lambda: KeyError("mine"))


def test_bounded_measures_a_list_or_tuple_and_copies_it() -> None:
    class Unreadable(list[int]):
        def __iter__(self) -> Any:
            raise AssertionError("a list subclass is iterated, like any other iterable")

    items = [1, 2, 3]
    copied = v.bounded(items, 3, "too many")
    items.append(4)
    assert copied == [1, 2, 3]
    with pytest.raises(LimitExceeded, match=r"^too many$"):
        v.bounded(tuple(items), 3, "too many")
    with pytest.raises(AssertionError):
        v.bounded(Unreadable(), 3, "too many")


@pytest.mark.parametrize("value", ["abc", b"abc", bytearray(b"abc"), {"a": 1}, 3, None])
def test_bounded_with_wrong_type_refuses_text_bytes_mappings_and_scalars(value: object) -> None:
    with pytest.raises(InvalidArgument, match=r"^not a collection$"):
        v.bounded(value, 10, "too many", wrong_type="not a collection")
    with pytest.raises(KeyError):
        v.bounded(value, 10, "too many", wrong_type=lambda: KeyError("mine"))


def test_bounded_with_failed_replaces_what_the_callers_iterator_raises() -> None:
    canary = "CANARY-patient-4711"

    def broken() -> Iterator[int]:
        yield 1
        raise RuntimeError(canary)

    class BrokenIter:
        def __iter__(self) -> Iterator[int]:
            raise RuntimeError(canary)

    for items in (broken(), BrokenIter()):
        with pytest.raises(InvalidArgument, match=r"^unreadable$") as caught:
            v.bounded(items, 10, "too many", wrong_type="not a collection", failed="unreadable")
        assert caught.value.__cause__ is None and caught.value.__suppress_context__
        assert canary not in str(caught.value)
    with pytest.raises(RuntimeError, match=canary):  # without ``failed`` it propagates
        v.bounded(broken(), 10, "too many", wrong_type="not a collection")


@pytest.mark.parametrize("value", [True, 1.0, "1", None, -1, 11, 2**400])
def test_check_int_takes_exactly_an_int_in_range(value: object) -> None:
    with pytest.raises(InputRefused, match=r"^bad$"):
        v.check_int(value, 0, 10, "bad")


def test_check_int_returns_the_value() -> None:
    assert v.check_int(10, 0, 10, "bad") == 10


@pytest.mark.parametrize("value", ["", "-a", "a/b", "a" * 65, b"a", None, 1])
def test_check_text_takes_exactly_a_str_the_pattern_matches_in_full(value: object) -> None:
    from pytest_openmed.contract import NAME_PATTERN

    with pytest.raises(InputRefused, match=r"^bad name$"):
        v.check_text(value, NAME_PATTERN, "bad name")


def test_gate_and_candidate_names_follow_one_pattern() -> None:
    from pytest_openmed.contract import NAME_PATTERN
    from pytest_openmed.multimodal.lineage import check_candidate_name

    assert v.check_text("config-a.v2", NAME_PATTERN, "bad") == "config-a.v2"
    assert check_candidate_name("a" * 64) == "a" * 64
    with pytest.raises(ValueError):
        check_candidate_name("a" * 65)


def test_the_seed_range_is_zero_to_a_signed_64_bit_maximum() -> None:
    assert v.MAX_SEED == 2**63 - 1
    assert v.check_seed(v.MAX_SEED, "bad") == v.MAX_SEED
    for value in (-1, v.MAX_SEED + 1):
        with pytest.raises(InputRefused):
            v.check_seed(value, "bad")


def test_every_seed_reader_uses_the_one_range() -> None:
    from pytest_openmed.claims.report import check_seed
    from pytest_openmed.plugin.options import parse_seed

    assert check_seed(v.MAX_SEED) == parse_seed(str(v.MAX_SEED)) == v.MAX_SEED
    with pytest.raises(ValueError):
        check_seed(v.MAX_SEED + 1)
    with pytest.raises(ValueError):
        parse_seed(str(v.MAX_SEED + 1))


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -0.1, 1.1, 2**400, -(2**400)])
def test_check_rate_refuses_out_of_range_non_finite_and_huge_values(value: object) -> None:
    with pytest.raises(InputRefused, match=r"^bad rate$"):
        v.check_rate(value, "bad rate")


@pytest.mark.parametrize("value", [True, "0.5", None, [0.5]])
def test_check_rate_refuses_non_numbers_with_its_wrong_type_error(value: object) -> None:
    with pytest.raises(InputRefused):
        v.check_rate(value, "bad rate")
    with pytest.raises(InvalidArgument, match=r"^not a number$"):
        v.check_rate(value, "bad rate", wrong_type=lambda: InvalidArgument("not a number"))


@pytest.mark.parametrize(("value", "expected"), [(0, 0.0), (1, 1.0), (0.25, 0.25)])
def test_check_rate_returns_a_float(value: object, expected: float) -> None:
    result = v.check_rate(value, "bad rate")
    assert type(result) is float and result == expected


def test_unique_names_refuses_a_repeated_name() -> None:
    assert json.loads('{"a": 1, "b": 2}', object_pairs_hook=v.unique_names) == {"a": 1, "b": 2}
    with pytest.raises(InputRefused, match=r"^a JSON object repeats a name$"):
        json.loads('{"a": 1, "a": 2}', object_pairs_hook=v.unique_names)
    hook = v.unique_names_hook(lambda: KeyError("mine"))
    with pytest.raises(KeyError):
        json.loads('{"a": 1, "a": 2}', object_pairs_hook=hook)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_refuse_constant_refuses_what_json_does_not_have(text: str) -> None:
    with pytest.raises(InputRefused, match=r"^NaN and Infinity are not JSON$"):
        json.loads(text, parse_constant=v.refuse_constant)
    with pytest.raises(InputRefused, match=r"^mine$"):
        json.loads(text, parse_constant=v.refuse_constant_hook("mine"))


def _sources() -> dict[str, str]:
    return {
        path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
        for path in PACKAGE.rglob("*.py")
        if path.name != "_validate.py"
    }


def test_no_module_restates_a_rule_of_the_one_home() -> None:
    """The JSON hooks, the bounded loop, the seed bound and the planner reference exist once."""
    for name, text in _sources().items():
        tree = ast.parse(text)
        defined = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert not {"_refuse_constant", "_reject_constant", "_unique_object"} & defined, name
        assert "len(pairs)" not in text, name
        assert "len(result) == limit" not in text, name
        # claims keys share the int64 range (another fact); the seed message quotes the bound
        assert "2**63 - 1" not in text or name in {"claims/records.py", "claims/messages.py"}, name
        if name != "planner/declaration.py":
            assert ":[A-Za-z_][A-Za-z0-9_]*" not in text, name  # the planner reference
        if name != "contract.py":
            assert 'r"[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}"' not in text, name  # gate/candidate names
        if name != "claims/records.py":
            assert 'r"[a-z0-9][a-z0-9_]{0,63}"' not in text, name  # normalised claim classes
