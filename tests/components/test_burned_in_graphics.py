"""burned_in and burned-in graphics that are not text: a step wedge is not an identifier line.

Issue 27: the half-resolution radiograph of the validation set carries a step
wedge (a calibration grey scale) along its top edge; halved, its bars are as
narrow and regular as glyph stems, so ``CONFIG_B`` reported the band as text
left unmasked (``privacy``) and ``CONFIG_A`` masked it (harmless; it still does). Across a glyph stem the
ground is at one level; across each "stem" of a wedge (the overshoot the
imaging chain's edge enhancement puts at every step) it changes by a whole
step. The generator's ``render_graphic`` draws wedges from that physics; text
beside a wedge, and text whose stems are as regular as a ruler's ("1111",
"0000"), must still be found.
"""

from __future__ import annotations

import numpy as np
import pytest

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, BurnedInConfig, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import (
    BACKGROUNDS,
    MISS_FRACTION,
    identifier_coverage,
    plain_background,
    render_graphic,
    render_on_background,
)
from validation.burned_in import text_free_image

CONFIGS = {"A": CONFIG_A, "B": CONFIG_B}


def _wedge(background: str, seed: int, scale_px: int, carrier: str) -> GeneratedSource:
    plain = plain_background(np.random.default_rng([seed, 5]), background, (512, 512))
    return render_graphic(plain, seed, kind="step_wedge", carrier=carrier, scale_px=scale_px)


def _missed(source: GeneratedSource, config: BurnedInConfig) -> tuple[int, bool]:
    """Identifiers missed, and whether the run reported it (privacy or abstention)."""
    output = run(source.asset, config)
    covered = identifier_coverage(source.truth, output.output["regions"])
    reported = "privacy" in output.safety_failures or output.abstained
    return sum(c < MISS_FRACTION for c in covered), reported


@pytest.mark.parametrize(
    ("background", "seed", "scale_px", "carrier"),
    [
        # Each was reported as text left unmasked by B (privacy) before the wedge rule.
        ("black", 1, 8, "png8"),
        ("grey", 2, 8, "dicom8"),
        ("grey", 9, 5, "png8"),
        ("gradient", 9, 5, "png8"),
    ],
)
def test_a_generated_step_wedge_is_not_reported_as_text_left_unmasked(
    background: str, seed: int, scale_px: int, carrier: str
) -> None:
    """B masks only clear text lines, so it left the wedge unmasked and reported it; A
    masks the wedge as it did (harmless: text beside it may lie in that region)."""
    source = _wedge(background, seed, scale_px, carrier)
    assert source.truth["identifiers"] == []
    for config in (CONFIG_A, CONFIG_B):
        output = run(source.asset, config)
        assert not output.safety_failures and not output.abstained
        assert output.output["coverage"] == 1.0


def test_the_step_wedge_of_the_half_resolution_radiograph_is_not_text() -> None:
    """The real wedge of the validation set's check half (measured there, never tuned on)."""
    image = text_free_image("RG1_UNCR.dcm:half")
    assert not run(image.asset, CONFIG_B).safety_failures
    assert not run(image.asset, CONFIG_A).safety_failures


TEXTS = (
    ["1111"],
    ["0000"],
    ["11111111"],
    ["00000000"],
    ["ID ZZ111111"],
    ["11-11-1111"],
    ["1111", "0000", "1111"],
)


@pytest.mark.parametrize("texts", TEXTS, ids="/".join)
@pytest.mark.parametrize("beside", ["right", "below"])
def test_text_beside_a_step_wedge_is_still_found(texts: list[str], beside: str) -> None:
    """Text on the wedge's rows adds ridges to its line (which then stays text); text
    below it is a line of its own. A masks it; B masks it or reports it."""
    plain = plain_background(np.random.default_rng([3, 5]), "grey", (512, 512))
    for scale_px, font_px in ((5, 12), (8, 16)):
        source = render_graphic(
            plain,
            3,
            kind="step_wedge",
            carrier="dicom16",
            scale_px=scale_px,
            texts=texts,
            font_px=font_px,
            contrast=0.3,
            beside=beside,
        )
        assert len(source.truth["identifiers"]) == len(texts)
        assert _missed(source, CONFIG_A)[0] == 0
        missed, reported = _missed(source, CONFIG_B)
        assert missed == 0 or reported


@pytest.mark.parametrize("texts", TEXTS, ids="/".join)
@pytest.mark.parametrize("kind", BACKGROUNDS[1:])
def test_repeated_digits_are_text(texts: list[str], kind: str) -> None:
    """A run of "1" is as regular as a ruler's ticks and "0000" as a wedge's bars; neither
    has a ground that steps from stem to stem, so both stay text under A and B."""
    plain = plain_background(np.random.default_rng([11, 5]), kind, (512, 512))
    for font_px, contrast in ((9, 0.12), (12, 0.2), (20, 0.6)):
        source = render_on_background(
            plain, 4, carrier="png16", font_px=font_px, contrast=contrast, texts=texts
        )
        assert source is not None
        for label, config in CONFIGS.items():
            missed, reported = _missed(source, config)
            assert missed == 0 or reported, (label, font_px)
        assert _missed(source, CONFIG_A)[0] == 0
