"""burned_in on plain backgrounds: no silent miss where the background is uniform.

Issue 27: white identifier lines on a plain black image (an ultrasound margin, a
secondary capture) were missed silently: a short identifier covers less than
0.1 % of such an image, so the display range (the 0.1 and 99.9 percentiles)
clipped it away. Content reaching well past the percentiles is now kept, and a
near-uniform image is not stretched to its noise.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, BurnedInConfig, run
from pytest_openmed.development.sources import GeneratedSource
from pytest_openmed.development.sources.burned_in import (
    BACKGROUNDS,
    MISS_FRACTION,
    generate_burned_in_identifier_coverage,
    identifier_coverage,
    plain_background,
    render_on_background,
)

CONFIGS = {"A": CONFIG_A, "B": CONFIG_B}


def _missed_silently(source: GeneratedSource, config: BurnedInConfig) -> int:
    output = run(source.asset, config)
    covered = identifier_coverage(source.truth, output.output["regions"])
    if "privacy" in output.safety_failures or output.abstained:
        return 0
    return sum(c < MISS_FRACTION for c in covered)


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("carrier", ["png16", "dicom8"])
@pytest.mark.parametrize("kind", BACKGROUNDS[1:])
def test_a_short_line_on_a_plain_512_px_background_is_masked(
    kind: str, carrier: str, config: str
) -> None:
    """A 9-px identifier covers about 0.05 % of a 512 x 512 image: under the old percentile
    range it vanished (coverage 0, no privacy failure, no abstention)."""
    background = plain_background(np.random.default_rng(7), kind, (512, 512))
    source = render_on_background(background, 1, carrier=carrier, font_px=9, contrast=0.2)
    assert source is not None
    output = run(source.asset, CONFIGS[config])
    assert min(identifier_coverage(source.truth, output.output["regions"])) >= MISS_FRACTION
    assert not output.safety_failures and not output.abstained


@pytest.mark.parametrize(
    "lines, font_px, pitch", [(4, 12, 14), (4, 12, 15), (3, 16, 17), (3, 16, 18)]
)
def test_stacked_white_lines_on_plain_black_are_masked_line_by_line(
    lines: int, font_px: int, pitch: int
) -> None:
    background = np.zeros((512, 512))
    source = render_on_background(
        background, 3, carrier="dicom16", font_px=font_px, contrast=0.6, lines=lines, pitch=pitch
    )
    assert source is not None
    for config in CONFIGS.values():
        covered = identifier_coverage(source.truth, run(source.asset, config).output["regions"])
        assert min(covered) >= MISS_FRACTION


def test_a_plain_background_without_text_raises_nothing() -> None:
    """Keeping the sparse content must not turn a plain image's noise into text."""
    for kind in BACKGROUNDS[1:]:
        rng = np.random.default_rng(11)
        image = np.clip(
            plain_background(rng, kind, (512, 512)) + rng.normal(0, 0.004, (512, 512)), 0, 1
        )
        values = np.rint(image * 255).astype(np.uint8)
        out = io.BytesIO()
        Image.fromarray(values).save(out, format="PNG")
        for config in CONFIGS.values():
            output = run(out.getvalue(), config)
            assert output.output["regions"] == [] and not output.safety_failures


@pytest.fixture(scope="module")
def plain_adverse() -> list[GeneratedSource]:
    """The adverse slice's plain-background sources among its first 64 seeds."""
    sources = [generate_burned_in_identifier_coverage(s, "adverse_acquisition") for s in range(64)]
    return [s for s in sources if s.truth["background"] != "acquisition"]


def test_the_adverse_slice_draws_every_plain_background_kind(
    plain_adverse: list[GeneratedSource],
) -> None:
    kinds = {source.truth["background"] for source in plain_adverse}
    assert kinds == set(BACKGROUNDS[1:])
    for source in plain_adverse:
        assert min(source.truth["shape"]) >= 448


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_no_identifier_of_the_adverse_plain_backgrounds_is_missed_silently(
    plain_adverse: list[GeneratedSource], config: str
) -> None:
    assert sum(_missed_silently(source, CONFIGS[config]) for source in plain_adverse) == 0
