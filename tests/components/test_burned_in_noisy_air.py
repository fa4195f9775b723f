"""burned_in beside noisy air next to a black display frame: found, not missed silently.

Issue 27: on a magnitude MR image the air is Rayleigh noise and the display frame
around the field of view is exactly black. The frame fills the image's quieter
half, so the image's levels were set by it: the noisy air lay above the extent
level and joined text printed on the frame beside it into one blob whose rows
all cross strokes, so the lines touching the air were no text line whatever
their contrast, and were missed with neither a ``privacy`` failure nor an
abstention. A blob with a band too tall for a line is now parted at its own
noise level. The backgrounds are the generated MR-like ones of
``validation/burned_in.py --only mr-like`` (tuning seeds only).
"""

from __future__ import annotations

import pytest

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources.burned_in import (
    MISS_FRACTION,
    identifier_coverage,
    render_on_background,
)
from validation.burned_in import mr_like_image

CONFIGS = {"A": CONFIG_A, "B": CONFIG_B}

#: (MR-like seed, render seed, font px, lines, contrast, carrier): text on the frame.
CASES = {
    # A block on the left frame whose upper lines reach into the air's rows: the air
    # joined them in one blob, and two of its five lines were lost at contrast 0.6.
    "block beside the air": (8, 68, 16, 5, 0.6, "dicom16"),
}


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_text_on_a_black_frame_beside_noisy_air_is_masked(case: str, config: str) -> None:
    seed, render_seed, font_px, lines, contrast, carrier = CASES[case]
    source = render_on_background(
        mr_like_image(seed).display,
        render_seed,
        carrier=carrier,
        font_px=font_px,
        contrast=contrast,
        lines=lines,
        pitch=font_px + 1,
    )
    assert source is not None
    output = run(source.asset, CONFIGS[config])
    assert min(identifier_coverage(source.truth, output.output["regions"])) >= MISS_FRACTION
    assert not output.abstained


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("seed", [6, 8])
def test_the_noisy_air_and_its_frame_alone_are_not_text(seed: int, config: str) -> None:
    """Parting a blob at its own noise level finds no text line in the air itself."""
    output = run(mr_like_image(seed).asset, CONFIGS[config])
    assert output.output["regions"] == []
    assert not output.safety_failures and not output.abstained
