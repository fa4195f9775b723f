"""Bounded materialisation: explicit refusals, at most limit + 1 items consumed."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal._structure import materialise
from pytest_openmed.multimodal.errors import InvalidInput, LimitExceeded


@settings(max_examples=100, deadline=None)
@given(limit=st.integers(0, 50), size=st.integers(0, 80))
def test_consumes_at_most_limit_plus_one(limit: int, size: int) -> None:
    consumed = itertools.count()
    source = (next(consumed) for _ in range(size))
    if size > limit:
        with pytest.raises(LimitExceeded, match="fixed"):
            materialise(source, limit, "fixed")
        assert next(consumed) == limit + 1
    else:
        assert materialise(source, limit, "fixed") == tuple(range(size))


@pytest.mark.parametrize("value", ["abc", b"abc", {"a": 1}, 3, None])
def test_strings_mappings_and_scalars_are_not_sequences(value: object) -> None:
    with pytest.raises(InvalidInput):
        materialise(value, 10, "fixed")


@settings(max_examples=100, deadline=None)
@given(limit=st.integers(0, 50), size=st.integers(0, 80))
def test_a_tuple_is_refused_or_kept_like_any_sequence(limit: int, size: int) -> None:
    items = tuple(range(size))
    if size > limit:
        with pytest.raises(LimitExceeded, match="fixed"):
            materialise(items, limit, "fixed")
        with pytest.raises(LimitExceeded, match="fixed"):
            materialise(list(items), limit, "fixed")
    else:
        assert materialise(items, limit, "fixed") == materialise(list(items), limit, "fixed")
