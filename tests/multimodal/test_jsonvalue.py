"""Frozen JSON objects: checked once, immutable, fingerprinted once."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed._canonical import canonical_json, digest_json, sha256_digest
from pytest_openmed.multimodal import Observation, assess_validation
from pytest_openmed.multimodal.errors import InvalidInput, LimitExceeded
from pytest_openmed.multimodal.jsonvalue import MAX_JSON_NODES, FrozenJson, freeze_object

from ._helpers import KEY, complete, make_pack, reviewer

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=5))
def test_digest_is_the_canonical_json_digest_and_thaw_round_trips(value: dict[str, Any]) -> None:
    frozen = FrozenJson(value, max_bytes=1 << 20)
    assert frozen.digest == digest_json(value)
    assert frozen.canonical == canonical_json(value)
    assert frozen.thaw() == value
    assert FrozenJson(frozen.thaw(), max_bytes=1 << 20) == frozen


def test_nested_values_are_read_only_and_detached() -> None:
    source: dict[str, Any] = {"a": {"b": [1, 2]}}
    frozen = FrozenJson(source, max_bytes=1024)
    source["a"]["b"].append(3)
    assert frozen["a"]["b"] == (1, 2)
    with pytest.raises(TypeError):
        frozen["a"]["c"] = 1


def test_freeze_object_reuses_a_frozen_value() -> None:
    frozen = FrozenJson({"a": 1}, max_bytes=1024)
    assert freeze_object(frozen, max_bytes=1024) is frozen
    with pytest.raises(LimitExceeded):
        freeze_object(frozen, max_bytes=3)


def _nest(levels: int) -> dict[str, Any]:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return {"x": value}


def test_depth_32_is_accepted_and_33_refused() -> None:
    FrozenJson(_nest(31), max_bytes=1 << 20)  # the object itself is the 32nd level
    with pytest.raises(LimitExceeded):
        FrozenJson(_nest(32), max_bytes=1 << 20)


@pytest.mark.parametrize(
    "value",
    [{1: "a"}, {"a": math.nan}, {"a": math.inf}, {"a": {1, 2}}, {"a": b"bytes"}, {"a": object()}],
)
def test_non_json_values_are_refused(value: dict[Any, Any]) -> None:
    with pytest.raises(InvalidInput):
        FrozenJson(value, max_bytes=1024)


def test_top_level_must_be_an_object() -> None:
    with pytest.raises(InvalidInput):
        FrozenJson([1, 2], max_bytes=1024)


def test_size_limit_is_explicit() -> None:
    with pytest.raises(LimitExceeded):
        FrozenJson({"a": "x" * 100}, max_bytes=50)


def test_node_limit_is_explicit() -> None:
    with pytest.raises(LimitExceeded):
        FrozenJson({"a": [0] * 200_001}, max_bytes=1 << 30)


@pytest.mark.parametrize(
    "container",
    [lambda count: [0] * count, lambda count: {str(index): 0 for index in range(count)}],
    ids=["array", "object"],
)
def test_the_node_limit_counts_every_node_once_in_document_order(container: Any) -> None:
    """The root, the container and its leaves are 200,000 nodes at most; the first bad node wins."""
    FrozenJson({"a": container(MAX_JSON_NODES - 2)}, max_bytes=1 << 30)
    with pytest.raises(LimitExceeded):
        FrozenJson({"a": container(MAX_JSON_NODES - 1)}, max_bytes=1 << 30)
    with pytest.raises(InvalidInput):  # a NaN before the limit is reached is what is reported
        FrozenJson({"a": [0, math.nan, *[0] * MAX_JSON_NODES]}, max_bytes=1 << 30)


def test_repr_shows_no_content() -> None:
    assert "canary-json" not in repr(FrozenJson({"a": "canary-json"}, max_bytes=1024))


# --- bound JSON values stay bound ------------------------------------------------------------


def test_frozen_json_cannot_be_changed_after_its_digest_was_taken() -> None:
    value = FrozenJson({"instructions": "rate both"}, max_bytes=1024)
    with pytest.raises(AttributeError):
        value._canonical = '{"instructions":"swapped"}'
    with pytest.raises(AttributeError):
        del value._digest
    assert dict(value) == {"instructions": "rate both"}


def test_changed_context_cannot_ride_on_earlier_review_evidence() -> None:
    pack = make_pack(2)
    evidence = [complete(pack, reviewer(0)), complete(pack, reviewer(1))]
    context = pack.cases[0].context
    with pytest.raises(AttributeError):
        context._canonical = '{"instructions":"swapped"}'  # type: ignore[attr-defined]
    assert assess_validation(pack, pack.candidates[0], evidence, key=KEY).decision == (
        "rubric_satisfied"
    )


class _Forged(FrozenJson):
    """A FrozenJson whose digest claims other content."""

    @property
    def digest(self) -> str:
        return sha256_digest(b"someone else's output")


def test_a_frozen_json_subclass_is_fingerprinted_again() -> None:
    forged = _Forged({"answer": 1}, max_bytes=1024)
    honest = FrozenJson({"answer": 1}, max_bytes=1024)
    assert type(freeze_object(forged, max_bytes=1024)) is FrozenJson
    output = Observation("cand-a", forged).output
    assert isinstance(output, FrozenJson)
    assert output.digest == honest.digest
