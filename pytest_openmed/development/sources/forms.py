"""Generated PNG forms with known per-field states, for the form-grounding component.

A form is rendered with Pillow from a :class:`~pytest_openmed.components.forms.FormTemplate`
(four solid corner marks, outlined checkboxes and text boxes with printed
labels, grey pre-printed hint text in every declared placeholder box), then
some checkboxes get a check stroke and some text boxes handwriting-like strokes
or rendered words, long or short ("5 mg", "nil": a short entry spans well under
a fifth of the box). Nothing drawn is a real identifier.

Each page has an *ink* (how entries are written) and an *acquisition* (how the
page was scanned):

* inks — ``dark`` (black/blue-black pen), ``light_blue`` (a light-blue ballpoint:
  the page is stored as RGB), ``pencil`` (neutral grey graphite with grain);
* acquisitions — ``clean``, ``skew`` (rotation up to 2.5 degrees),
  ``blur`` (Gaussian, radius 0.3-1.5 px), ``noise`` (additive, sigma 1-6 grey
  levels), ``jpeg`` (a JPEG round trip through Pillow, quality 40-85), and
  ``scan`` (all four, plus uneven illumination).

Slices choose them: ``nominal`` is dark ink, clean, integer offset of at most
4 px; ``adverse_acquisition`` is any of the three inks, scanned (rotation up to
3 degrees, sub-pixel offset up to 12 px); ``ambiguity_conflict`` is like
nominal, plus half marks (short dashes), faint marks and a stray stroke across
fields, and every field such a mark touches has truth state ``ambiguous``. On
about half the ``adverse_acquisition`` pages every text entry is written
**across the printed hint** (from just before the placeholder box to the end of
the field: writers use whatever space a box has), drawn from a stream of its
own so the other pages are unchanged; ``across_hint`` forces it either way.
``ink`` and ``acquisition`` override the slice's choice (the validation
script sweeps them); ``font`` renders the entries with a TrueType file instead
of Pillow's bundled font (the default, so the bytes are the same on every
machine).

``paper_scan`` puts the form on real paper: a caller's real scanned or
photographed page (grey, 2-D; the validation script passes scikit-image's
``page``) lends the form its **illumination** (the page's paper level, its
printed text closed away, stretched over the form: a shading up to the page's
own), its **grain** (the paper's fine texture at its own scale, tiled by
reflection) and **bleed-through** (the page's print, mirrored as seen through
the sheet, blurred and faint, over boxes and all). None of it changes a field's
truth: print showing through an empty box leaves it empty.

Truth: ``fields`` {name: {``state``: checked / filled / empty / ambiguous,
``box``: [x0, y0, x1, y1], ``entry``: long / short / none}} (the outline's
axis-aligned box in the image), the applied ``transform``, ``ink``,
``acquisition`` and ``across_hint``.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from scipy import ndimage

from pytest_openmed.components.forms import (
    DEFAULT_TEMPLATE,
    INTERIOR_INSET_PX,
    RING_INNER_PX,
    FormTemplate,
)
from pytest_openmed.development.sources import GeneratedSource, check_slice
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = ["ACQUISITIONS", "INKS", "TRUTH_STATES", "generate_form_grounding"]

#: Closed vocabulary of a field's true state.
TRUTH_STATES = ("checked", "filled", "empty", "ambiguous")

#: How entries are written.
INKS = ("dark", "light_blue", "pencil")

#: How the page was scanned.
ACQUISITIONS = ("clean", "skew", "blur", "noise", "jpeg", "scan")

#: The largest scan skew of the ``skew`` acquisition (degrees).
MAX_SKEW_DEG = 2.5

_SLICE_INDEX = {"nominal": 0, "adverse_acquisition": 1, "ambiguity_conflict": 2}
#: A stray stroke closer than this to a field it does not clearly cross is re-drawn.
_STRAY_CLEARANCE = 24
_MAX_STRAY_ATTEMPTS = 64
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: Short entries: a dose, a frequency, a "none" (never an identifier).
_SHORT_ENTRIES = ("5 mg", "nil", "none", "n/a", "2x/d", "10 ml", "PRN", "yes", "no", "0.5 g")
#: Grey hint text a blank form prints in its placeholder boxes.
_HINTS = ("if any", "optional", "dose, frequency", "block capitals", "see overleaf", "or none")

#: Bleed-through strength (a share of the real print's darkness: office paper is about
#: 90 % opaque) and blur (px).
_BLEED_STRENGTH = (0.04, 0.12)
_BLEED_BLUR_PX = 1.2
#: Shading strength: the share of the real page's illumination falloff laid on the form.
_SHADING_STRENGTH = (0.5, 1.0)
#: Closing window (px) that removes the real page's print to leave its paper.
_PAPER_CLOSING_PX = 9

Point = tuple[float, float]
Layer = NDArray[np.float64]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def _font(size: int, path: str | None = None) -> Font:
    if path is None:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size=size)


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _draw_page(
    template: FormTemplate,
    draw: ImageDraw.ImageDraw,
    ink: int,
    print_grey: int,
    rng: np.random.Generator,
) -> None:
    half = template.mark_size // 2
    for cx, cy in template.marks:
        draw.rectangle(
            (
                cx - half,
                cy - half,
                cx - half + template.mark_size - 1,
                cy - half + template.mark_size - 1,
            ),
            fill=ink,
        )
    draw.text((90, 56), "SYNTHETIC TEST FORM - NOT A RECORD", fill=ink, font=_font(16))
    label_font = _font(14)
    hint_font = _font(12)
    for form_field in template.fields:
        x0, y0, x1, y1 = form_field.box
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=ink, width=2)
        if form_field.kind == "checkbox":
            draw.text(
                (x1 + 16, y0 + (y1 - y0) / 2 - 8),
                _label(form_field.name),
                fill=ink,
                font=label_font,
            )
        else:
            draw.text((x0, y0 - 34), _label(form_field.name), fill=ink, font=label_font)
        if form_field.placeholder is not None:
            px0, py0, px1, py1 = form_field.placeholder
            hint = _HINTS[int(rng.integers(0, len(_HINTS)))]
            while draw.textlength(hint, font=hint_font) > px1 - px0 - 2 and " " in hint:
                hint = hint.rsplit(" ", 1)[0]
            draw.text(
                (px1 - 1, (py0 + py1) / 2), hint, fill=print_grey, font=hint_font, anchor="rm"
            )


def _across_hint(
    box: tuple[int, int, int, int], placeholder: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    """Where an entry written across the printed hint goes: the field's rows, from a little
    before the placeholder box to the field's end (so it starts at or just before the hint)."""
    x0, y0, x1, y1 = box
    return (max(x0, placeholder[0] - INTERIOR_INSET_PX - 8), y0, x1, y1)


def _drawable(box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """The inner area marks are drawn in: two pixels inside the read interior."""
    x0, y0, x1, y1 = box
    margin = INTERIOR_INSET_PX + 2
    return (x0 + margin, y0 + margin, x1 - margin, y1 - margin)


def _check_stroke(rng: np.random.Generator, box: tuple[int, int, int, int]) -> list[list[Point]]:
    left, top, right, bottom = _drawable(box)
    extent = rng.uniform(0.7, 1.0)
    w, h = (right - left) * extent, (bottom - top) * extent
    ox = left + rng.uniform(0, (right - left) - w)
    oy = top + rng.uniform(0, (bottom - top) - h)
    if rng.random() < 0.6:  # a tick
        return [[(ox, oy + 0.55 * h), (ox + 0.38 * w, oy + h), (ox + w, oy)]]
    return [[(ox, oy), (ox + w, oy + h)], [(ox + w, oy), (ox, oy + h)]]  # a cross


def _handwriting(
    rng: np.random.Generator, box: tuple[int, int, int, int], *, short: bool
) -> list[list[Point]]:
    left, top, right, bottom = _drawable(box)
    if short:  # a scrawled word at the start of the box, as writers begin there
        width = rng.uniform(24.0, 60.0)
        start = left + rng.uniform(0, 12)
    else:
        width = (right - left) * rng.uniform(0.35, 0.9)
        start = left + rng.uniform(0, (right - left) - width)
    mid, amplitude = (top + bottom) / 2, (bottom - top) * rng.uniform(0.2, 0.45)
    n = max(8, int(width / 4))
    xs = start + np.linspace(0.0, width, n) + rng.normal(0.0, 0.8, n)
    phase = rng.uniform(0, 2 * math.pi)
    ys = mid + amplitude * np.sin(np.linspace(0, width / 9.0, n) + phase) + rng.normal(0.0, 1.0, n)
    ys = np.clip(ys, top, bottom)
    return [[(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]]


def _short_mark(
    rng: np.random.Generator, box: tuple[int, int, int, int], kind: str
) -> list[list[Point]]:
    left, top, right, bottom = _drawable(box)
    length = rng.uniform(3.0, 5.0) if kind == "checkbox" else rng.uniform(4.0, 10.0)
    angle = rng.uniform(0, math.pi)
    dx, dy = length * math.cos(angle), length * math.sin(angle)
    ox = rng.uniform(left + abs(dx) / 2, right - abs(dx) / 2)
    oy = rng.uniform(top + abs(dy) / 2, bottom - abs(dy) / 2)
    return [[(ox - dx / 2, oy - dy / 2), (ox + dx / 2, oy + dy / 2)]]


def _draw_strokes(
    draw: ImageDraw.ImageDraw, strokes: list[list[Point]], fill: int, width: int
) -> None:
    for stroke in strokes:
        draw.line(stroke, fill=fill, width=width, joint="curve")


def _write_words(
    rng: np.random.Generator,
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    *,
    short: bool,
    font_path: str | None,
) -> None:
    left, top, right, bottom = _drawable(box)
    size = int(rng.integers(15, 19))
    font = _font(size, font_path)
    if short:
        text = _SHORT_ENTRIES[int(rng.integers(0, len(_SHORT_ENTRIES)))]
    else:
        words = [
            "".join(_LETTERS[int(i)] for i in rng.integers(0, 26, int(rng.integers(3, 8))))
            for _ in range(int(rng.integers(2, 5)))
        ]
        text = "synthetic " + " ".join(words)
    while draw.textlength(text, font=font) > right - left and " " in text:
        text = text.rsplit(" ", 1)[0]
    draw.text(
        (left + rng.uniform(0, 6), (top + bottom) / 2), text, fill=255, font=font, anchor="lm"
    )


def _expanded(
    box: tuple[int, int, int, int], by: int, shape: tuple[int, int]
) -> tuple[slice, slice]:
    x0, y0, x1, y1 = box
    return (
        slice(max(0, y0 - by), min(shape[0], y1 + by)),
        slice(max(0, x0 - by), min(shape[1], x1 + by)),
    )


def _stray_stroke(
    rng: np.random.Generator, template: FormTemplate
) -> tuple[list[list[Point]], set[str]] | None:
    """A stroke from inside one field to inside another, clear of every other field."""
    shape = (template.height, template.width)
    for _ in range(_MAX_STRAY_ATTEMPTS):
        a, b = rng.choice(len(template.fields), size=2, replace=False)
        points = []
        for index in (a, b):
            left, top, right, bottom = _drawable(template.fields[int(index)].box)
            points.append((rng.uniform(left, right), rng.uniform(top, bottom)))
        canvas = Image.new("L", (template.width, template.height), 0)
        ImageDraw.Draw(canvas).line(points, fill=255, width=3)
        line = np.asarray(canvas) > 0
        touched = set()
        clear = True
        for form_field in template.fields:
            core = line[_expanded(form_field.box, RING_INNER_PX, shape)].any()
            halo = line[_expanded(form_field.box, _STRAY_CLEARANCE, shape)].any()
            if core:
                touched.add(form_field.name)
            elif halo:
                clear = False
        if clear:
            return [points], touched
    return None


def _transform(
    rng: np.random.Generator, slice_name: str, acquisition: str
) -> tuple[float, float, float]:
    if slice_name == "adverse_acquisition":
        return (
            float(rng.uniform(-3.0, 3.0)),
            float(rng.uniform(-12, 12)),
            float(rng.uniform(-12, 12)),
        )
    theta = 0.0
    if acquisition in ("skew", "scan"):
        theta = float(rng.uniform(-MAX_SKEW_DEG, MAX_SKEW_DEG))
    return (theta, float(rng.integers(-4, 5)), float(rng.integers(-4, 5)))


def _forward(
    theta_deg: float, dx: float, dy: float, template: FormTemplate, x: float, y: float
) -> Point:
    c, s = math.cos(math.radians(theta_deg)), math.sin(math.radians(theta_deg))
    cx, cy = template.width / 2, template.height / 2
    return (c * (x - cx) - s * (y - cy) + cx + dx, s * (x - cx) + c * (y - cy) + cy + dy)


def _image_box(
    theta: float, dx: float, dy: float, template: FormTemplate, box: tuple[int, int, int, int]
) -> list[int]:
    x0, y0, x1, y1 = box
    corners = [
        _forward(theta, dx, dy, template, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))
    ]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return [
        _clip(min(xs), template.width),
        _clip(min(ys), template.height),
        _clip(max(xs), template.width),
        _clip(max(ys), template.height),
    ]


def _clip(value: float, limit: int) -> int:
    return min(max(round(value), 0), limit)


def _check_choice(value: str | None, allowed: tuple[str, ...], what: str) -> None:
    if value is not None and value not in allowed:
        raise InputRefused(f"{what} must be one of: " + ", ".join(allowed))


def _ink_colour(
    rng: np.random.Generator, ink_style: str, paper: int, ink: int
) -> tuple[tuple[float, float, float], float]:
    """The colour entries are written in, and the weakest share of it a pixel may get."""
    if ink_style == "light_blue":  # a light-blue ballpoint: bright in green and blue
        colour = (rng.uniform(70, 125), rng.uniform(125, 175), rng.uniform(205, 245))
        return colour, 1.0
    if ink_style == "pencil":  # graphite: neutral grey, grainy
        grey = paper - rng.uniform(0.45, 0.7) * (paper - ink)
        return (grey, grey, grey), 0.55
    return (float(ink),) * 3, 1.0


def _composite(
    page: Layer, coverage: Layer, colour: tuple[float, float, float], grain: Layer
) -> Layer:
    """Lay ink of ``colour`` over ``page`` where ``coverage`` (0..1) says, scaled by grain."""
    alpha = (coverage * grain)[..., None]
    result: Layer = page * (1.0 - alpha) + np.asarray(colour)[None, None, :] * alpha
    return result


def _reflect_tile(layer: Layer, shape: tuple[int, int]) -> Layer:
    """``layer`` repeated by reflection (no seams) to cover ``shape``, at its own scale."""
    rows = -(-shape[0] // layer.shape[0])
    cols = -(-shape[1] // layer.shape[1])
    row_blocks = [
        np.concatenate([_flip(layer, i, j) for j in range(cols)], axis=1) for i in range(rows)
    ]
    tiled: Layer = np.concatenate(row_blocks, axis=0)[: shape[0], : shape[1]]
    return tiled


def _flip(layer: Layer, i: int, j: int) -> Layer:
    flipped: Layer = layer[:: -1 if i % 2 else 1, :: -1 if j % 2 else 1]
    return flipped


def _paper_scan(value: object) -> Layer | None:
    """A caller's real page as floats, checked: 2-D, at least 32 px a side, values 0-255."""
    if value is None:
        return None
    if not isinstance(value, np.ndarray) or value.ndim != 2 or min(value.shape) < 32:
        raise InputRefused("paper_scan must be a grey (2-D) image at least 32 px a side")
    scan = value.astype(np.float64)
    if not np.isfinite(scan).all() or scan.min() < 0.0 or scan.max() > 255.0:
        raise InputRefused("paper_scan values must lie between 0 and 255")
    return scan


def _on_real_paper(page: Image.Image, scan: Layer, rng: np.random.Generator) -> Image.Image:
    """The page laid on the real paper of ``scan``: its shading, grain and bleed-through."""
    paper = ndimage.grey_closing(scan, size=(_PAPER_CLOSING_PX, _PAPER_CLOSING_PX))
    level = float(np.percentile(paper, 99))
    smooth = ndimage.gaussian_filter(paper, 4.0)
    width, height = page.size
    falloff = np.asarray(
        Image.fromarray(smooth / level).resize((width, height), Image.Resampling.BILINEAR),
        dtype=np.float64,
    )
    shading = 1.0 - rng.uniform(*_SHADING_STRENGTH) * (1.0 - np.clip(falloff, 0.0, 1.0))
    grain = _reflect_tile(paper / np.maximum(smooth, 1.0), (height, width))
    show = ndimage.gaussian_filter(np.maximum(paper - scan, 0.0)[:, ::-1], _BLEED_BLUR_PX)
    bleed = rng.uniform(*_BLEED_STRENGTH) * _reflect_tile(show, (height, width))
    values = np.asarray(page, dtype=np.float64)
    light = shading * grain
    if values.ndim == 3:
        values = values * light[..., None] - bleed[..., None]
    else:
        values = values * light - bleed
    return Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8))


def _acquire(
    page: Image.Image, rng: np.random.Generator, acquisition: str, paper: int
) -> Image.Image:
    """Blur, noise, illumination and JPEG of a scanner, as the acquisition says."""
    if acquisition in ("blur", "scan"):
        page = page.filter(ImageFilter.GaussianBlur(radius=float(rng.uniform(0.3, 1.5))))
    if acquisition == "scan":  # uneven illumination across the platen
        gradient = np.linspace(0.0, 1.0, page.size[0])[None, :] * rng.uniform(-6.0, 6.0)
        lit = np.asarray(page, dtype=np.float64) + (
            gradient[..., None] if page.mode == "RGB" else gradient
        )
        page = Image.fromarray(np.clip(np.rint(lit), 0, 255).astype(np.uint8))
    if acquisition in ("noise", "scan"):
        array = np.asarray(page, dtype=np.float64)
        noisy = array + rng.normal(0.0, rng.uniform(1.0, 6.0), array.shape)
        page = Image.fromarray(np.clip(np.rint(noisy), 0, 255).astype(np.uint8))
    if acquisition in ("jpeg", "scan"):
        jpeg = io.BytesIO()
        page.save(jpeg, format="JPEG", quality=int(rng.integers(40, 86)))
        page = Image.open(io.BytesIO(jpeg.getvalue()))
        page.load()
    return page


def generate_form_grounding(
    seed: int,
    slice: str,
    *,
    template: FormTemplate = DEFAULT_TEMPLATE,
    rotation_deg: float | None = None,
    ink: str | None = None,
    acquisition: str | None = None,
    font: str | None = None,
    paper_scan: NDArray[Any] | None = None,
    across_hint: bool | None = None,
) -> GeneratedSource:
    """Render one synthetic form PNG and the truth of every field.

    ``rotation_deg`` overrides the slice's rotation (for probing registration
    limits); ``ink`` and ``acquisition`` override the slice's choice; ``font``
    is a TrueType file for the written entries; ``paper_scan`` a real grey page
    whose paper the form is laid on (see the module docstring).
    """
    slice_name = check_slice(slice)
    if type(seed) is not int or seed < 0:
        raise InputRefused("seed must be a non-negative integer")
    if type(template) is not FormTemplate:
        raise InvalidArgument("template must be a FormTemplate")
    if rotation_deg is not None and (
        type(rotation_deg) is not float or not -45.0 <= rotation_deg <= 45.0
    ):
        raise InputRefused("rotation_deg must be a float between -45 and 45")
    _check_choice(ink, INKS, "ink")
    _check_choice(acquisition, ACQUISITIONS, "acquisition")
    if font is not None and type(font) is not str:
        raise InvalidArgument("font must be the path of a TrueType file")
    scan = _paper_scan(paper_scan)
    if across_hint is None:
        across = np.random.default_rng([seed, _SLICE_INDEX[slice_name], 7]).random() < 0.5
        across_hint = slice_name == "adverse_acquisition" and bool(across)
    elif type(across_hint) is not bool:
        raise InvalidArgument("across_hint must be a bool")
    rng = np.random.default_rng([seed, _SLICE_INDEX[slice_name]])
    paper = int(rng.integers(240, 253))
    ink_level = int(rng.integers(10, 45))
    print_grey = round(paper - rng.uniform(0.22, 0.35) * (paper - ink_level))
    if slice_name == "adverse_acquisition":
        ink_style = ink or INKS[int(rng.integers(0, len(INKS)))]
        acquisition_name = acquisition or "scan"
    else:
        ink_style = ink or "dark"
        acquisition_name = acquisition or "clean"
    colour, weakest = _ink_colour(rng, ink_style, paper, ink_level)

    page = Image.new("L", (template.width, template.height), paper)
    draw = ImageDraw.Draw(page)
    _draw_page(template, draw, ink_level, print_grey, rng)
    # Entries are drawn as coverage (255 = full stroke) and laid over the page
    # in their ink afterwards, so the same strokes can be pen, ballpoint or pencil.
    entries = Image.new("L", page.size, 0)
    pen = ImageDraw.Draw(entries)

    states: dict[str, str] = {}
    kinds: dict[str, str] = {}
    ambiguous: set[str] = set()
    if slice_name == "ambiguity_conflict":
        count = int(rng.integers(1, 4))
        ambiguous = {
            template.fields[int(i)].name
            for i in rng.choice(len(template.fields), count, replace=False)
        }
    for form_field in template.fields:
        kinds[form_field.name] = "none"
        if form_field.name in ambiguous:
            states[form_field.name] = "ambiguous"
            if rng.random() < 0.5:
                _draw_strokes(draw, _short_mark(rng, form_field.box, form_field.kind), ink_level, 3)
            else:
                faint = round(paper - rng.uniform(0.25, 0.38) * (paper - ink_level))
                strokes = (
                    _check_stroke(rng, form_field.box)
                    if form_field.kind == "checkbox"
                    else _handwriting(rng, form_field.box, short=False)
                )
                _draw_strokes(draw, strokes, faint, 3)
            continue
        if form_field.kind == "checkbox":
            marked = rng.random() < 0.5
            states[form_field.name] = "checked" if marked else "empty"
            if marked:
                kinds[form_field.name] = "long"
                _draw_strokes(pen, _check_stroke(rng, form_field.box), 255, 3)
        else:
            marked = rng.random() < 0.6
            states[form_field.name] = "filled" if marked else "empty"
            if not marked:
                continue
            short = rng.random() < 0.4
            kinds[form_field.name] = "short" if short else "long"
            where = form_field.box
            if across_hint and form_field.placeholder is not None:
                where = _across_hint(form_field.box, form_field.placeholder)
            if rng.random() < 0.5:
                strokes = _handwriting(rng, where, short=short)
                _draw_strokes(pen, strokes, 255, int(rng.integers(2, 4)))
            else:
                _write_words(rng, pen, where, short=short, font_path=font)
    if slice_name == "ambiguity_conflict" and rng.random() < 0.6:
        stray = _stray_stroke(rng, template)
        if stray is not None:
            strokes, touched = stray
            _draw_strokes(draw, strokes, ink_level, 3)
            for name in touched:
                states[name] = "ambiguous"

    coverage = np.asarray(entries, dtype=np.float64) / 255.0
    grain = rng.uniform(weakest, 1.0, coverage.shape) if weakest < 1.0 else np.ones_like(coverage)
    base = np.repeat(np.asarray(page, dtype=np.float64)[..., None], 3, axis=2)
    rgb = np.clip(np.rint(_composite(base, coverage, colour, grain)), 0, 255).astype(np.uint8)
    page = Image.fromarray(rgb, "RGB")
    if ink_style != "light_blue":
        page = page.convert("L")  # neutral ink: a grey scan, as before

    theta, dx, dy = _transform(rng, slice_name, acquisition_name)
    if rotation_deg is not None:
        theta = rotation_deg
    c, s = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    cx, cy = template.width / 2, template.height / 2
    # Pillow wants the inverse map (output pixel -> input pixel), pixel-edge coordinates.
    inverse = (
        c,
        s,
        cx - c * (cx + dx) - s * (cy + dy),
        -s,
        c,
        cy + s * (cx + dx) - c * (cy + dy),
    )
    page = page.transform(
        page.size,
        Image.Transform.AFFINE,
        inverse,
        resample=Image.Resampling.BILINEAR,
        fillcolor=paper if page.mode == "L" else (paper,) * 3,
    )
    if scan is not None:
        page = _on_real_paper(page, scan, rng)
    page = _acquire(page, rng, acquisition_name, paper)
    out = io.BytesIO()
    page.save(out, format="PNG")
    truth: dict[str, Any] = {
        "template": template.name,
        "transform": {"rotation_deg": round(theta, 6), "dx": round(dx, 6), "dy": round(dy, 6)},
        "ink": ink_style,
        "acquisition": acquisition_name,
        "across_hint": across_hint,
        "fields": {
            form_field.name: {
                "state": states[form_field.name],
                "box": _image_box(theta, dx, dy, template, form_field.box),
                "entry": kinds[form_field.name],
            }
            for form_field in template.fields
        },
    }
    return GeneratedSource(
        asset=out.getvalue(), media_type="image/png", slice=slice_name, truth=truth
    )
