"""burned_in: the fast paths compute exactly what the plain ones did (issue 11, cost).

The detector's top-hats run by window doubling instead of SciPy's per-pixel
loop, and noise blobs are dropped by one count over the image; timing lives in
``benchmarks/components_forms_burned_in.py``, never in a test. These tests pin
that the outputs did not change.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from pytest_openmed.components.burned_in import _row_crossings, _tophat


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(3, 13),
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_top_hats_equal_scipys_for_every_window_and_shape(
    size: int, rows: int, cols: int, seed: int
) -> None:
    image = np.random.default_rng(seed).random((rows, cols))
    original = image.copy()
    white, black = _tophat(image, size, white=True), _tophat(image, size, white=False)
    assert np.array_equal(white, ndimage.white_tophat(image, size=(size, size)))
    assert np.array_equal(black, ndimage.black_tophat(image, size=(size, size)))
    assert np.array_equal(image, original)  # computed in place, but never in the image


@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (4, 17)])
def test_row_crossings_count_stroke_starts_including_one_at_the_left_edge(
    shape: tuple[int, int],
) -> None:
    strokes = np.random.default_rng(sum(shape)).random(shape) > 0.5
    padded = np.pad(strokes, ((0, 0), (1, 0)))
    expected = np.sum(padded[:, 1:] & ~padded[:, :-1], axis=1)
    assert np.array_equal(_row_crossings(strokes), expected)
    assert _row_crossings(np.array([[True, True, False, True]])).tolist() == [2]
