"""The synthetic form generator: format, determinism and the truth it promises."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import font_intuitive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pytest_openmed._canonical import canonical_json
from pytest_openmed.components.forms import DEFAULT_TEMPLATE, INTERIOR_INSET_PX
from pytest_openmed.development.sources import SLICES, GeneratedSource
from pytest_openmed.development.sources.forms import (
    INKS,
    MAX_SKEW_DEG,
    TRUTH_STATES,
    generate_form_grounding,
)


@pytest.fixture(scope="module")
def sources() -> dict[str, GeneratedSource]:
    return {name: generate_form_grounding(5, name) for name in SLICES}


def _grey(source: GeneratedSource) -> np.ndarray[Any, Any]:
    with Image.open(io.BytesIO(source.asset)) as image:
        assert image.format == "PNG" and image.mode == "L"
        assert image.size == (DEFAULT_TEMPLATE.width, DEFAULT_TEMPLATE.height)
        return np.asarray(image)


def test_asset_is_a_grey_png_of_the_template_page(sources: dict[str, GeneratedSource]) -> None:
    for name, source in sources.items():
        assert source.media_type == "image/png" and source.slice == name
        _grey(source)
        assert set(source.truth["fields"]) == {f.name for f in DEFAULT_TEMPLATE.fields}
        assert source.truth["template"] == DEFAULT_TEMPLATE.name
        canonical_json(dict(source.truth))  # JSON-able


def test_same_arguments_give_identical_bytes_and_others_differ(
    sources: dict[str, GeneratedSource],
) -> None:
    again = generate_form_grounding(5, "adverse_acquisition")
    assert again.asset == sources["adverse_acquisition"].asset
    assert dict(again.truth) == dict(sources["adverse_acquisition"].truth)
    assert generate_form_grounding(6, "adverse_acquisition").asset != again.asset
    assert sources["nominal"].asset != sources["ambiguity_conflict"].asset


def test_nominal_truth_boxes_sit_on_the_printed_outlines(
    sources: dict[str, GeneratedSource],
) -> None:
    grey = _grey(sources["nominal"])
    paper = float(np.median(grey))
    for name, truth in sources["nominal"].truth["fields"].items():
        x0, y0, x1, y1 = truth["box"]
        assert grey[y0, x0 + 3 : x1 - 3].mean() < paper - 100  # top outline row is ink
        assert grey[y1 - 1, x0 + 3 : x1 - 3].mean() < paper - 100  # so is the bottom one
        assert grey[y0 - 3, x0:x1].mean() > paper - 10  # and just outside is paper
        inset = INTERIOR_INSET_PX
        interior = grey[y0 + inset : y1 - inset, x0 + inset : x1 - inset]
        inked = int((interior < paper - 100).sum())
        assert (inked == 0) == (truth["state"] == "empty"), name


def test_adverse_pages_are_rotated_and_degraded(sources: dict[str, GeneratedSource]) -> None:
    transform = sources["adverse_acquisition"].truth["transform"]
    assert abs(transform["rotation_deg"]) <= 3.0
    assert max(abs(transform["dx"]), abs(transform["dy"])) <= 12.0
    grey = _grey(sources["adverse_acquisition"])
    assert np.unique(grey).size > 100  # blur, noise and JPEG leave many grey levels
    assert np.unique(_grey(sources["nominal"])).size < np.unique(grey).size


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_ambiguity_page_holds_an_ambiguous_field(seed: int) -> None:
    source = generate_form_grounding(seed, "ambiguity_conflict")
    states = [truth["state"] for truth in source.truth["fields"].values()]
    assert set(states) <= set(TRUTH_STATES)
    assert "ambiguous" in states
    assert source.truth["transform"]["rotation_deg"] == 0.0


def test_rotation_can_be_forced_and_is_validated() -> None:
    source = generate_form_grounding(2, "nominal", rotation_deg=5.0)
    assert source.truth["transform"]["rotation_deg"] == 5.0
    with pytest.raises(ValueError):
        generate_form_grounding(2, "nominal", rotation_deg=90.0)
    with pytest.raises(ValueError):
        generate_form_grounding(2, "nominal", rotation_deg=5)  # an int, not a float


def test_a_custom_template_is_rendered() -> None:
    subset = dataclasses.replace(
        DEFAULT_TEMPLATE, name="single", fields=DEFAULT_TEMPLATE.fields[6:7]
    )
    source = generate_form_grounding(3, "nominal", template=subset)
    assert set(source.truth["fields"]) == {"reason_for_visit"}


@pytest.mark.parametrize(
    ("seed", "slice_name", "error"),
    [(-1, "nominal", ValueError), (True, "nominal", ValueError), (0, "edge", ValueError)],
)
def test_bad_arguments_are_refused(seed: Any, slice_name: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        generate_form_grounding(seed, slice_name)
    with pytest.raises(TypeError):
        generate_form_grounding(0, "nominal", template=DEFAULT_TEMPLATE.to_mapping())  # type: ignore[arg-type]


def test_every_declared_placeholder_is_printed_grey_inside_its_box(
    sources: dict[str, GeneratedSource],
) -> None:
    grey = _grey(sources["nominal"])
    paper = float(np.median(grey))
    ink = float(grey.min())  # the marks' and outlines' ink
    dx, dy = (
        sources["nominal"].truth["transform"]["dx"],
        sources["nominal"].truth["transform"]["dy"],
    )
    printed = 0
    for form_field in DEFAULT_TEMPLATE.fields:
        state = sources["nominal"].truth["fields"][form_field.name]["state"]
        if form_field.placeholder is None or state != "empty":
            continue
        x0, y0, x1, y1 = (round(v) for v in form_field.placeholder)
        region = grey[y0 + int(dy) : y1 + int(dy), x0 + int(dx) : x1 + int(dx)]
        darkest = float(region.min())
        # Visibly printed, but far lighter than the ink of the marks.
        assert paper - darkest >= 0.15 * (paper - ink)
        assert paper - darkest <= 0.4 * (paper - ink)
        printed += 1
    assert printed >= 1


@pytest.mark.parametrize("ink", INKS)
def test_each_ink_is_recorded_and_rendered(ink: str) -> None:
    source = generate_form_grounding(7, "nominal", ink=ink)
    assert source.truth["ink"] == ink and source.truth["acquisition"] == "clean"
    with Image.open(io.BytesIO(source.asset)) as image:
        assert image.mode == ("RGB" if ink == "light_blue" else "L")
        pixels = np.asarray(image.convert("RGB"), dtype=np.int32)
    marked = [
        truth["box"]
        for truth in source.truth["fields"].values()
        if truth["state"] in ("checked", "filled")
    ]
    assert marked
    x0, y0, x1, y1 = marked[0]
    inside = pixels[y0 + 8 : y1 - 8, x0 + 8 : x1 - 8].reshape(-1, 3)
    darkest = inside[np.argmin(inside.min(axis=1))]
    if ink == "light_blue":
        assert darkest[2] - darkest[0] > 60  # blue, not grey
    else:
        assert abs(int(darkest[2]) - int(darkest[0])) <= 2  # neutral
    if ink == "pencil":
        assert darkest.min() > 60  # graphite never reaches the pen's black


def test_short_entries_and_skew_are_generated() -> None:
    entries = {
        truth["entry"]
        for seed in range(6)
        for truth in generate_form_grounding(seed, "nominal").truth["fields"].values()
    }
    assert entries == {"long", "short", "none"}
    skews = [
        generate_form_grounding(seed, "nominal", acquisition="skew").truth["transform"][
            "rotation_deg"
        ]
        for seed in range(8)
    ]
    assert max(abs(s) for s in skews) > 1.0 and all(abs(s) <= MAX_SKEW_DEG for s in skews)


@pytest.mark.parametrize("acquisition", ["blur", "noise", "jpeg", "scan"])
def test_scanner_effects_change_the_pixels_but_not_the_truth(acquisition: str) -> None:
    clean = generate_form_grounding(8, "nominal")
    scanned = generate_form_grounding(8, "nominal", acquisition=acquisition)
    assert scanned.truth["acquisition"] == acquisition
    assert {n: t["state"] for n, t in scanned.truth["fields"].items()} == {
        n: t["state"] for n, t in clean.truth["fields"].items()
    }
    assert float((_grey(scanned) != _grey(clean)).mean()) > 0.05


def test_the_adverse_slice_draws_every_ink() -> None:
    inks = {generate_form_grounding(seed, "adverse_acquisition").truth["ink"] for seed in range(8)}
    assert inks == set(INKS)


def test_a_truetype_font_renders_the_entries() -> None:
    changed = 0
    for seed in range(6):
        bundled = generate_form_grounding(seed, "nominal")
        hand = generate_form_grounding(seed, "nominal", font=str(font_intuitive.Intuitive))
        assert bundled.truth == hand.truth
        changed += bundled.asset != hand.asset
    assert changed >= 3


@pytest.mark.parametrize(
    "kwargs",
    [{"ink": "red"}, {"acquisition": "fax"}, {"ink": ""}],
)
def test_unknown_inks_and_acquisitions_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        generate_form_grounding(0, "nominal", **kwargs)
    with pytest.raises(TypeError):
        generate_form_grounding(0, "nominal", font=b"/no/such/font")  # type: ignore[arg-type]


def _real_paper() -> np.ndarray[Any, Any]:
    from skimage import data

    page: np.ndarray[Any, Any] = data.page()  # type: ignore[no-untyped-call]
    return page


def test_a_form_on_real_paper_keeps_its_truth_and_gains_shading_and_bleed_through() -> None:
    plain = generate_form_grounding(3, "nominal")
    real = generate_form_grounding(3, "nominal", paper_scan=_real_paper())
    assert real.truth == plain.truth
    assert real.asset == generate_form_grounding(3, "nominal", paper_scan=_real_paper()).asset
    grey, before = _grey(real).astype(float), _grey(plain).astype(float)
    # Shading: the real page's falloff darkens whole regions of paper, not a few levels.
    blocks = grey[:784, :624].reshape(49, 16, 39, 16).max(axis=(1, 3))
    assert blocks.max() - blocks.min() > 40
    # Bleed-through: faint structure where the plain page is blank paper.
    blank = before == np.median(before)
    assert np.std(grey[blank]) > np.std(before[blank]) + 2.0


@pytest.mark.parametrize(
    "scan",
    [
        np.zeros((10, 400)),
        np.zeros((64, 64, 3)),
        np.full((64, 64), 300.0),
        np.full((64, 64), np.nan),
        [[0] * 64] * 64,
    ],
)
def test_an_unusable_paper_scan_is_refused(scan: Any) -> None:
    with pytest.raises(ValueError, match="paper_scan"):
        generate_form_grounding(1, "nominal", paper_scan=scan)
