"""The burned-in generator's graphics that are not text, and caller-named text lines.

A step wedge is built from its physics (equal-width bars of monotone grey
levels, then the imaging chain's edge enhancement), a ruler or tick scale from
strictly periodic ticks; their truth holds no identifier unless the caller asks
for text beside them.
"""

from __future__ import annotations

import io
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from PIL import Image

from pytest_openmed.development.sources.burned_in import (
    GRAPHICS,
    identifier_masks,
    render_graphic,
    render_on_background,
)

GREY = np.full((256, 320), 0.3)


def _pixels(asset: bytes) -> np.ndarray[Any, Any]:
    with Image.open(io.BytesIO(asset)) as image:
        return np.asarray(image, dtype=np.float64) / 65535.0


@pytest.mark.parametrize("kind", GRAPHICS)
def test_graphics_are_text_free_deterministic_and_differ_by_seed(kind: str) -> None:
    source = render_graphic(GREY, 3, kind=kind, carrier="png16", scale_px=6)
    assert source.truth["identifiers"] == [] and source.truth["background"] is None
    assert source.slice == "ambiguity_conflict"
    again = render_graphic(GREY, 3, kind=kind, carrier="png16", scale_px=6)
    assert again.asset == source.asset
    assert render_graphic(GREY, 4, kind=kind, carrier="png16", scale_px=6).asset != source.asset
    assert not np.allclose(_pixels(source.asset), 0.3, atol=0.01)


def test_a_step_wedge_is_bars_of_monotone_grey_levels_along_an_edge() -> None:
    bar = 8
    pixels = _pixels(
        render_graphic(GREY, 5, kind="step_wedge", carrier="png16", scale_px=bar).asset
    )
    rows = np.flatnonzero(np.abs(pixels - 0.3).max(axis=1) > 0.05)
    assert rows[0] <= 12 or rows[-1] >= GREY.shape[0] - 13  # on or near the top or bottom edge
    middle = pixels[(rows[0] + rows[-1]) // 2]
    columns = np.flatnonzero(np.abs(middle - 0.3) > 0.02)
    # The level at the middle of each bar (edge enhancement shapes the bar's ends).
    levels = [middle[x] for x in range(columns[0] + bar // 2, columns[-1] - bar // 2, bar)]
    signs = np.sign(np.diff(levels)) * (np.abs(np.diff(levels)) > 0.01)
    # The longest run of steps of one sign: the bars (beyond them, the enhancement's halo).
    longest = run = 0
    for before, after in pairwise(signs):
        run = run + 1 if after == before != 0 else 0
        longest = max(longest, run + 1)
    assert longest >= 6


def test_ruler_ticks_are_strictly_periodic_and_a_tick_scale_has_long_ticks() -> None:
    for kind in ("ruler", "tick_scale"):
        pixels = _pixels(render_graphic(GREY, 2, kind=kind, carrier="png16", scale_px=9).asset)
        ink = np.abs(pixels - 0.3) > 0.05
        heights = ink.sum(axis=0)
        columns = np.flatnonzero(heights)
        starts = columns[np.diff(np.concatenate(([-2], columns))) > 1]
        assert len(starts) >= 8 and set(np.diff(starts)) == {9}
        tall = {int(heights[x]) for x in starts}
        assert len(tall) == (1 if kind == "ruler" else 2)


@pytest.mark.parametrize("beside", ["right", "below"])
def test_text_beside_a_graphic_is_the_truth(beside: str) -> None:
    source = render_graphic(
        GREY,
        1,
        kind="step_wedge",
        carrier="png16",
        scale_px=5,
        texts=["1111", "0000"],
        font_px=12,
        beside=beside,
    )
    assert [entry["line"] for entry in source.truth["identifiers"]] == [0, 1]
    pixels = _pixels(source.asset)
    for mask in identifier_masks(source.truth):
        assert np.abs(pixels[mask] - 0.3).mean() > 0.1


def test_caller_named_lines_are_drawn_instead_of_tokens() -> None:
    source = render_on_background(
        GREY, 1, carrier="png16", font_px=12, contrast=0.3, texts=["1111", "0000", "1111"]
    )
    assert source is not None
    assert len(source.truth["identifiers"]) == 3
    ones = [entry["pixels"] for entry in source.truth["identifiers"]]
    assert ones[0] == ones[2] != ones[1]
    # Without texts the random tokens (and the bytes) are as they were.
    plain = render_on_background(GREY, 1, carrier="png16", font_px=12, contrast=0.3)
    assert plain is not None and plain.asset != source.asset


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "logo"},
        {"carrier": "jpeg"},
        {"scale_px": 2},
        {"beside": "above"},
        {"contrast": 0.0},
        {"seed": -1},
    ],
)
def test_bad_graphic_arguments_are_refused(change: dict[str, Any]) -> None:
    arguments: dict[str, Any] = {"seed": 1, "kind": "ruler", "carrier": "png8", "scale_px": 6}
    arguments.update(change)
    seed = arguments.pop("seed")
    with pytest.raises(ValueError):
        render_graphic(GREY, seed, **arguments)
    with pytest.raises(ValueError):
        render_graphic(np.full((32, 32), 0.3), 1, kind="ruler", carrier="png8", scale_px=6)
    with pytest.raises(ValueError):
        render_on_background(GREY, 1, carrier="png8", font_px=12, contrast=0.3, texts=[""])
