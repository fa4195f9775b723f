"""burned_in and runs of one-stem glyphs: "1111-1111" and "11-11-1111" are never missed silently.

Issue 27: each "1" crosses one stroke per row, not the two or three of most
glyphs, so a run of them has half the crossings per text height that the
density test asks of a text line; small or faint, or joined by hyphens, such a
string failed the test and was neither masked nor reported. A run of four or
more upright stems of one height at a regular glyph pitch now reads as text
whatever its density. The background is a real MR (smooth where the text goes).
"""

from __future__ import annotations

import pytest

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import render_on_background
from validation.burned_in import text_free_image

from ._burned_in_checks import missed_and_reported


def _render(text: str, seed: int, font_px: int, contrast: float) -> GeneratedSource:
    background = text_free_image("examples_overlay.dcm").display
    source = render_on_background(
        background,
        seed,
        carrier="png8",
        font_px=font_px,
        contrast=contrast,
        pitch=font_px + 2,
        texts=[text],
    )
    assert source is not None
    return source


@pytest.mark.parametrize(
    ("text", "seed", "font_px", "contrast"),
    [
        # Each was missed silently under A and B before the stem-run rule.
        ("1111-1111", 233, 9, 0.2),
        ("11-11-1111", 6, 12, 0.12),
        ("11-11-1111", 10, 12, 0.12),
        ("11-11-1111", 1, 20, 0.12),
        ("11-11-1111", 7, 20, 0.12),
    ],
)
def test_a_run_of_ones_is_masked_by_a_and_masked_or_reported_by_b(
    text: str, seed: int, font_px: int, contrast: float
) -> None:
    source = _render(text, seed, font_px, contrast)
    assert missed_and_reported(source, CONFIG_A)[0] is False
    missed, reported = missed_and_reported(source, CONFIG_B)
    assert not missed or reported
