"""Balanced, reviewer-specific aliases and the sealed mapping."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal.aliases import (
    SealedMapping,
    assign_aliases,
    seal_mapping,
    verify_mapping,
)
from pytest_openmed.multimodal.errors import ForgedMapping, WrongKey

from ._helpers import KEY, OTHER_KEY, d, replaced

CANDS = (d("first"), d("second"))


def _units(n: int) -> list[str]:
    return [d(("unit", i)) for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 256),
    key=st.binary(min_size=32, max_size=48),
    identity=st.integers(0, 10**6),
)
def test_each_candidate_is_alias_a_in_floor_or_ceil_half(n: int, key: bytes, identity: int) -> None:
    table = assign_aliases(key, d(("identity", identity)), _units(n), CANDS)
    first_as_a = sum(1 for a, _ in table if a == CANDS[0])
    second_as_a = n - first_as_a
    assert abs(first_as_a - second_as_a) <= 1
    assert all(set(row) == set(CANDS) for row in table)


def test_assignment_differs_between_reviewers_and_keys() -> None:
    units = _units(64)
    one = assign_aliases(KEY, d("reviewer-1"), units, CANDS)
    assert one != assign_aliases(KEY, d("reviewer-2"), units, CANDS)
    assert one != assign_aliases(OTHER_KEY, d("reviewer-1"), units, CANDS)


def test_odd_counts_give_the_extra_unit_to_either_candidate() -> None:
    seen = {
        sum(1 for a, _ in assign_aliases(KEY, d(("r", i)), _units(5), CANDS) if a == CANDS[0])
        for i in range(40)
    }
    assert seen == {2, 3}


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 40), identity=st.integers(0, 1000))
def test_assignment_is_deterministic(n: int, identity: int) -> None:
    args = (KEY, d(("identity", identity)), _units(n), CANDS)
    assert assign_aliases(*args) == assign_aliases(*args)


def _mapping() -> SealedMapping:
    table = assign_aliases(KEY, d("id"), _units(6), CANDS)
    return seal_mapping(KEY, d("pack"), d("reviewer"), d("id"), table)


def test_sealed_mapping_verifies_with_its_key() -> None:
    verify_mapping(KEY, _mapping())


def test_sealed_mapping_equals_the_public_constructors_mapping() -> None:
    """seal_mapping does not check again the table assign_aliases built from checked digests."""
    sealed = _mapping()
    public = SealedMapping(**{f.name: getattr(sealed, f.name) for f in dataclasses.fields(sealed)})
    assert public == sealed
    for field in dataclasses.fields(sealed):
        assert type(getattr(public, field.name)) is type(getattr(sealed, field.name))
    verify_mapping(KEY, public)


def test_wrong_key_is_told_apart() -> None:
    with pytest.raises(WrongKey):
        verify_mapping(OTHER_KEY, _mapping())


def test_swapped_aliases_do_not_verify() -> None:
    mapping = _mapping()
    rows = list(mapping.aliases)
    rows[2] = (rows[2][1], rows[2][0])
    with pytest.raises(ForgedMapping):
        verify_mapping(KEY, replaced(mapping, aliases=tuple(rows)))


@pytest.mark.parametrize(
    "field_name", ["pack_digest", "reviewer_digest", "identity_digest", "seal"]
)
def test_any_altered_sealed_field_does_not_verify(field_name: str) -> None:
    forged = replaced(_mapping(), **{field_name: d("forged")})
    with pytest.raises(ForgedMapping):
        verify_mapping(KEY, forged)


def test_mapping_repr_hides_the_table() -> None:
    assert "sha256" not in repr(_mapping())
