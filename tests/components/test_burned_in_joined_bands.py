"""burned_in and a text line joined to anatomy on the rows around it: its own rows are tested.

Issue 27: a 9-px "1111" printed next to the edge of a radiograph's anatomy shares
one blob of text energy with it, and the anatomy crosses one or two strokes on
the rows just above and below the text, so the text's rows and the anatomy's
form one band three times as tall as the text, whose median row (a row of the
anatomy) crosses too few strokes for text: the string was neither masked nor
reported under A or B. The rows of a failed band that cross a text line's
number of strokes are now tested again as a line of their own (and, where
their strokes fall into runs of columns further apart than a glyph, each run on
its own), and must then read more clearly as text than a whole band (the strip
search's crossing density). The backgrounds are tiles of the tuning half of the
real radiograph set; the string is rendered as the validation's repeated-digit
check renders it there.
"""

from __future__ import annotations

import pytest

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import render_on_background
from validation.burned_in import text_free_image

from ._burned_in_checks import missed_and_reported


def _render(tile: str, seed: int) -> GeneratedSource:
    background = text_free_image(f"RG1_UNCR.dcm:{tile}").display
    source = render_on_background(
        background, seed, carrier="png8", font_px=9, contrast=0.2, pitch=11, texts=["1111"]
    )
    assert source is not None
    return source


@pytest.mark.parametrize(
    ("tile", "seed"),
    [
        # Both were missed silently under A and B before; the band was 21 rows tall.
        ("tile00", 469),
        ("tile02", 541),
    ],
)
def test_text_joined_to_anatomy_is_masked_by_a_and_masked_or_reported_by_b(
    tile: str, seed: int
) -> None:
    source = _render(tile, seed)
    assert missed_and_reported(source, CONFIG_A)[0] is False
    missed, reported = missed_and_reported(source, CONFIG_B)
    assert not missed or reported


def test_the_real_step_wedge_stays_unreported_under_b() -> None:
    """A piece of a step wedge's band, cut out by its rows and columns, is no text line:
    the half-resolution radiograph's wedge is neither masked nor reported by B."""
    output = run(text_free_image("RG1_UNCR.dcm:half").asset, CONFIG_B)
    assert "privacy" not in output.safety_failures
