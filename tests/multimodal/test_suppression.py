"""Small-cell suppression: whole slices, complements, empty slices, and the overall."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_openmed.multimodal import CaseSlice, assess_validation
from pytest_openmed.multimodal.suppression import block_suppressed, is_small_cell
from pytest_openmed.multimodal.vocabulary import METRICS

from ._helpers import KEY, Scores, make_pack, reviews

A = "cand-a"
N, ADV, AMB = CaseSlice.NOMINAL, CaseSlice.ADVERSE_ACQUISITION, CaseSlice.AMBIGUITY_CONFLICT
OK: Scores = (True, True, True, True)


def _report(
    slices: Sequence[CaseSlice], abstain: frozenset[int] = frozenset(), min_cell: int = 5
) -> dict[str, Any]:
    pack = make_pack(len(slices), slices=list(slices), abstain={u: [A] for u in abstain})
    result = assess_validation(
        pack,
        pack.candidate(A),
        reviews(pack, lambda u, n: OK, lambda u, n: OK),
        key=KEY,
        min_cell=min_cell,
    )
    report: dict[str, Any] = json.loads(result.to_json())
    return report


def test_small_cell_rule() -> None:
    assert not is_small_cell(0, 10, 5)
    assert is_small_cell(1, 10, 5) and is_small_cell(4, 10, 5)
    assert not is_small_cell(5, 10, 5)
    assert is_small_cell(6, 10, 5) and is_small_cell(9, 10, 5)  # complements 4 and 1
    assert not is_small_cell(10, 10, 5)
    assert block_suppressed(0, {}, 5)


def test_large_clean_slices_are_published_with_counts_rates_and_intervals() -> None:
    report = _report([N] * 5 + [ADV] * 5 + [AMB] * 5)
    assert set(report["slices"]) == {"nominal", "adverse_acquisition", "ambiguity_conflict"}
    for block in [*report["slices"].values(), report["overall"]]:
        assert block["suppressed"] is False
        assert set(block["metrics"]) == set(METRICS)
    quality = report["overall"]["metrics"]["quality"]
    assert (quality["count"], quality["denominator"], quality["rate"]) == (15, 15, 1.0)
    assert quality["interval"]["upper"] == 1.0 and 0.0 < quality["interval"]["lower"] < 1.0
    adjudication = report["slices"]["nominal"]["metrics"]["adjudication"]
    assert (adjudication["count"], adjudication["rate"], adjudication["interval"]["lower"]) == (
        0,
        0.0,
        0.0,
    )


def test_small_numerator_suppresses_the_whole_slice_and_the_overall() -> None:
    # One abstention among ten nominal units: emission 9/10 → complement 1 < 5.
    report = _report([N] * 10 + [ADV] * 5 + [AMB] * 5, abstain=frozenset({3}))
    assert report["slices"]["nominal"] == {"suppressed": True}
    assert report["slices"]["adverse_acquisition"]["suppressed"] is False
    assert report["overall"] == {"suppressed": True}


def test_complementary_suppression_blocks_recovery_by_subtraction() -> None:
    # Slice nominal has 6 abstentions of 10: numerator 4 (<5) → nominal suppressed.
    # Adverse has 5 of 5 emitted; if overall were published, overall − adverse − ambiguity
    # would reveal nominal. The overall must be suppressed with it.
    report = _report([N] * 10 + [ADV] * 5 + [AMB] * 5, abstain=frozenset(range(6)))
    assert report["slices"]["nominal"] == {"suppressed": True}
    assert report["slices"]["adverse_acquisition"]["metrics"]["emission"]["count"] == 5
    assert report["slices"]["ambiguity_conflict"]["metrics"]["emission"]["count"] == 5
    assert report["overall"] == {"suppressed": True}


def test_slice_suppressed_because_its_complement_is_small() -> None:
    # Eight of ten emitted: the numerator 8 is large, but its complement 2 is small.
    report = _report([N] * 10 + [ADV] * 5 + [AMB] * 5, abstain=frozenset({0, 1}))
    assert report["slices"]["nominal"] == {"suppressed": True}
    assert report["overall"] == {"suppressed": True}


def test_empty_slices_appear_in_the_suppressed_shape() -> None:
    report = _report([N] * 10)
    assert report["slices"]["nominal"]["suppressed"] is False
    assert report["slices"]["adverse_acquisition"] == {"suppressed": True}
    assert report["slices"]["ambiguity_conflict"] == {"suppressed": True}
    assert report["overall"] == {"suppressed": True}


def test_small_slices_are_suppressed_entirely() -> None:
    report = _report([N, ADV, AMB])
    assert all(block == {"suppressed": True} for block in report["slices"].values())
    assert report["overall"] == {"suppressed": True}


def test_raising_the_cell_size_suppresses_more() -> None:
    slices = [N] * 6 + [ADV] * 6 + [AMB] * 6
    assert _report(slices, min_cell=5)["overall"]["suppressed"] is False
    raised = _report(slices, min_cell=7)
    assert raised["min_cell"] == 7
    assert all(block == {"suppressed": True} for block in raised["slices"].values())


@pytest.mark.parametrize("min_cell", [5, 6, 10])
def test_suppressed_blocks_carry_nothing_but_the_flag(min_cell: int) -> None:
    report = _report([N] * 3 + [ADV] * 12, min_cell=min_cell)
    for block in [*report["slices"].values(), report["overall"]]:
        assert block == {"suppressed": True} or block["suppressed"] is False


@pytest.mark.parametrize("cell", [5, 7])
def test_small_cell_boundaries_for_numerator_and_complement(cell: int) -> None:
    n = 3 * cell
    assert is_small_cell(cell - 1, n, cell) and not is_small_cell(cell, n, cell)
    assert not is_small_cell(n - cell, n, cell) and is_small_cell(n - cell + 1, n, cell)
