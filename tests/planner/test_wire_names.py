"""Catalog ids map to wire tool names valid in every dialect, and back, by one documented rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_openmed.planner.catalog import build_catalog
from pytest_openmed.planner.wire import TOOL_NAME_PATTERN, tool_id, tool_name

_segment = st.from_regex(r"[a-z0-9]{1,5}([_-][a-z0-9]{1,5}){0,2}", fullmatch=True)
_ids = st.lists(_segment, min_size=1, max_size=3).map(".".join)  # names of at most 55 chars


def test_every_catalog_id_has_a_valid_name_that_maps_back() -> None:
    for tool in build_catalog():
        name = tool_name(tool.tool_id)
        assert TOOL_NAME_PATTERN.fullmatch(name)
        assert tool_id(name) == tool.tool_id


def test_the_rule_joins_segments_with_a_double_underscore() -> None:
    assert tool_name("episode.read_identifiers") == "episode__read_identifiers"
    assert tool_id("episode__read_identifiers") == "episode.read_identifiers"


@given(_ids)
def test_the_rule_is_reversible_for_every_admissible_id(catalog_id: str) -> None:
    name = tool_name(catalog_id)
    assert TOOL_NAME_PATTERN.fullmatch(name)
    assert tool_id(name) == catalog_id


@pytest.mark.parametrize(
    "catalog_id",
    ["", "episode.", ".read", "episode..read", "a__b", "_a", "a_", "Episode.read", "a@1.0.0",
     "x" * 65],
)  # fmt: skip
def test_ids_the_rule_cannot_write_are_refused(catalog_id: str) -> None:
    with pytest.raises(ValueError, match="cannot be written as a wire tool name"):
        tool_name(catalog_id)


@pytest.mark.parametrize("name", ["episode___read", "read_", "_x", "EXPORT"])
def test_a_name_that_is_no_id_s_image_stays_itself(name: str) -> None:
    # It reaches the harness as an unknown tool (schema-invalid and out of grant).
    assert tool_id(name) == name
