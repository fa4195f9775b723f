"""burned_in and faint text whose level is set by something else in the image.

Issue 27: two silent misses had one cause, a level measured over more than the
text. A blob's strokes are its pixels above half its 90th-percentile response,
so faint text joined to bone in one blob drew no stroke at all (a 20-px
"11-11-1111" at contrast 0.12 beside a CT's skull); and a faint line printed on
an exactly black display frame was measured against the image's sensitive level,
which the step from the frame to the noisy air beside it raises above the
line's energy. Now the parts of a blob beyond one energy window of its strong
strokes are searched against their own strokes, and an exactly constant margin
takes its own sensitive and masking levels (its extent level stays the image's,
so no blob grows and no region shrinks).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from pytest_openmed.components.burned_in import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources.burned_in import (
    MISS_FRACTION,
    identifier_coverage,
    identifier_masks,
    render_on_background,
)
from validation.burned_in import mr_like_image

CONFIGS = {"A": CONFIG_A, "B": CONFIG_B}


def _beside_bone(seed: int, gap: int) -> tuple[bytes, dict[str, object]]:
    """A faint "11-11-1111" on a black image with a bright bone edge passing ``gap`` px
    below its end, rising to the right (as a skull's rim passes a CT's corner text)."""
    source = render_on_background(
        np.zeros((256, 256)),
        seed,
        carrier="png16",
        font_px=20,
        contrast=0.12,
        pitch=22,
        texts=["11-11-1111"],
    )
    assert source is not None
    rows, cols = np.nonzero(np.any(identifier_masks(source.truth), axis=0))
    pixels = np.array(Image.open(io.BytesIO(source.asset))).astype(np.float64)
    yy, xx = np.mgrid[0:256, 0:256]
    distance = np.abs((yy - rows.max() - gap) + 0.5 * (xx - cols.max())) / np.hypot(1.0, 0.5)
    pixels[distance < 2.0] = 0.9 * 65535
    buffer = io.BytesIO()
    Image.fromarray(np.rint(pixels).astype(np.uint16)).save(buffer, format="PNG")
    return buffer.getvalue(), source.truth


@pytest.mark.parametrize("gap", [4, 8])
@pytest.mark.parametrize("seed", [0, 3])
def test_faint_text_beside_bone_is_masked_by_a_and_reported_by_b(seed: int, gap: int) -> None:
    """Missed silently by A and B before: the bone set the blob's stroke level."""
    asset, truth = _beside_bone(seed, gap)
    output = run(asset, CONFIG_A)
    assert min(identifier_coverage(truth, output.output["regions"])) >= MISS_FRACTION
    output = run(asset, CONFIG_B)
    covered = min(identifier_coverage(truth, output.output["regions"]))
    assert covered >= MISS_FRACTION or "privacy" in output.safety_failures


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_a_faint_line_on_an_exactly_black_frame_is_masked(config: str) -> None:
    """MR-like tuning seed 6: a 12-px line at contrast 0.12 on the frame above the air,
    missed silently by A and B before (its energy 0.05, the image's level 0.051)."""
    source = render_on_background(
        mr_like_image(6).display, 55, carrier="png16", font_px=12, contrast=0.12, pitch=13
    )
    assert source is not None
    output = run(source.asset, CONFIGS[config])
    assert min(identifier_coverage(source.truth, output.output["regions"])) >= MISS_FRACTION
    assert not output.abstained


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_a_bone_edge_alone_is_not_text(config: str) -> None:
    """The faint parts of a blob meet the same text-line tests: a bone edge on black
    (its fringe lies beyond its strong strokes) is neither masked nor reported."""
    pixels = np.zeros((256, 256))
    yy, xx = np.mgrid[0:256, 0:256]
    pixels[np.abs((yy - 180) + 0.5 * (xx - 128)) / np.hypot(1.0, 0.5) < 2.0] = 0.9 * 65535
    buffer = io.BytesIO()
    Image.fromarray(np.rint(pixels).astype(np.uint16)).save(buffer, format="PNG")
    output = run(buffer.getvalue(), CONFIGS[config])
    assert output.output["regions"] == []
    assert not output.safety_failures and not output.abstained
