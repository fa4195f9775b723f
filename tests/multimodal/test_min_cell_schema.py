"""The public report's schema states the minimum publication cell the code enforces.

``MIN_CELL`` is defined once (``_validate.py``); the shipped schema writes it a
second time, as ``min_cell``'s minimum, for readers without the package.  A
change to one without the other fails here, so changing the minimum means
changing exactly these two files.
"""

from __future__ import annotations

from pytest_openmed._validate import MAX_MIN_CELL, MIN_CELL
from pytest_openmed.schemas import load_schema


def test_the_schema_minimum_of_min_cell_is_min_cell() -> None:
    declared = load_schema("multimodal-public-report")["properties"]["min_cell"]
    assert declared["type"] == "integer"
    assert declared["minimum"] == MIN_CELL
    assert declared["maximum"] >= MAX_MIN_CELL
