"""burned_in and a run of small one-stem glyphs beside anatomy on its own rows.

Issue 27: a 9-px "1111" (or "0000") printed beside anatomy on the text's own rows
shares a blob with it, whose stroke level (half its 90th-percentile response) the
anatomy sets: the glyphs' stems merge with the ground between them, or drop below
the level, so no line of them shows, and the string was neither masked nor
reported under B. A run of thin ridges along the rows, of one height on one
baseline at a regular glyph pitch, is now tested again as a line of its own,
whatever the blob's level. The backgrounds are images of the tuning half of the
real set; each string is rendered as the validation's repeated-digit check
renders it there.
"""

from __future__ import annotations

import pytest

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, BurnedInConfig, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import render_on_background
from validation.burned_in import graphic_sources, text_free_image

from ._burned_in_checks import missed_and_reported


def _render(image: str, seed: int, text: str) -> GeneratedSource:
    background = text_free_image(image).display
    source = render_on_background(
        background, seed, carrier="png8", font_px=9, contrast=0.2, pitch=11, texts=[text]
    )
    assert source is not None
    return source


@pytest.mark.parametrize(
    ("image", "seed", "text"),
    [
        # Both were missed silently under B before (A masked them).
        ("RG1_UNCR.dcm:tile11", 613, "1111"),
        ("MR_small.dcm", 185, "0000"),
    ],
)
def test_a_run_beside_anatomy_is_masked_by_a_and_masked_or_reported_by_b(
    image: str, seed: int, text: str
) -> None:
    source = _render(image, seed, text)
    assert missed_and_reported(source, CONFIG_A)[0] is False
    missed, reported = missed_and_reported(source, CONFIG_B)
    assert not missed or reported


@pytest.mark.parametrize("image", ["RG1_UNCR.dcm:tile11", "MR_small.dcm"])
@pytest.mark.parametrize("config", [CONFIG_A, CONFIG_B], ids=["A", "B"])
def test_the_same_images_without_text_stay_unreported(image: str, config: BurnedInConfig) -> None:
    """The anatomy beside the text is not regular: alone, it raises no ``privacy``."""
    output = run(text_free_image(image).asset, config)
    assert "privacy" not in output.safety_failures


def test_a_step_wedge_at_the_image_edge_is_no_run_of_stems() -> None:
    """The overshoots of a wedge's bars are ridges of one height at a regular pitch, but
    the plateaus between them step: B reports no text on a generated wedge of the tuning
    seeds (it did while the ridge search ignored the steps)."""
    sources = dict(graphic_sources("step_wedge", 0))
    output = run(sources["step_wedge:gradient:3:11px:dicom8"].asset, CONFIG_B)
    assert "privacy" not in output.safety_failures
