"""Form grounding: per-field checked / filled / empty state, grounded to a pixel box.

The form's template (page size, four registration marks, field names, kinds and
nominal boxes) travels in the configuration, so the pinned call
``run(asset, config)`` stays two-argument: a caller with its own form passes
``dataclasses.replace(CONFIG_A, template=FormTemplate.from_mapping(doc))``.
The component registers the page on its four solid corner marks (a similarity
transform: rotation, uniform scale, offset), resamples the page into the
template frame, and reads ink (in the darkest colour channel) inside each
field's interior and in a thin ring just outside it. Grey hint text the blank
form prints in a declared placeholder box is measured on the page and set
aside. A field is empty only when it holds no evidence at all; a field whose
marks are ambiguous (too little or too faint ink, or ink crossing the field
boundary) abstains instead of guessing; the component as a whole abstains when
any field abstains, the page is too blurred, or it cannot be registered.
Outputs are candidates for review, not clinical facts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import ndimage

from pytest_openmed.carriers.png import PNG_SIGNATURE, read_png
from pytest_openmed.components._base import (
    ComponentOutput,
    UnsupportedAsset,
    check_asset,
    check_bounds,
)
from pytest_openmed.errors import InputRefused, InvalidArgument

__all__ = [
    "ABSTAIN_REASONS",
    "CONFIG_A",
    "CONFIG_B",
    "DEFAULT_TEMPLATE",
    "FIELD_KINDS",
    "FIELD_STATES",
    "INTERIOR_INSET_PX",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "RING_INNER_PX",
    "RING_OUTER_PX",
    "FormField",
    "FormTemplate",
    "FormsConfig",
    "run",
]

#: Closed vocabulary of a field's state.
FIELD_STATES = ("checked", "filled", "empty", "abstain")

#: Closed vocabulary of template field kinds.
FIELD_KINDS = ("checkbox", "text")

#: Closed vocabulary of component-level abstain reasons.
ABSTAIN_REASONS = ("page_unregistered", "page_too_blurred", "ambiguous_marks")

#: Decoding limits checked from the PNG header before any pixel is decoded.
MAX_IMAGE_SIDE = 4096
MAX_IMAGE_PIXELS = 8 * 1024 * 1024

MAX_TEMPLATE_FIELDS = 128
MAX_TEMPLATE_SIDE = 4096

_PNG_MODES = frozenset({"1", "L", "LA", "P", "RGB", "RGBA"})
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
#: Bounds of a configuration's pixel counts and of its registration tolerances.
_MAX_PX = 4096
_MAX_TOLERANCE = 45.0

Box = tuple[int, int, int, int]
FieldKind = Literal["checkbox", "text"]
FloatImage = NDArray[np.float64]
GreyImage = NDArray[np.uint8]
BoolImage = NDArray[np.bool_]


def _check_box(box: object, width: int, height: int) -> Box:
    if (
        not isinstance(box, tuple | list)
        or len(box) != 4
        or any(type(value) is not int for value in box)
    ):
        raise InputRefused("a template box must be four integers [x0, y0, x1, y1]")
    x0, y0, x1, y1 = (int(value) for value in box)
    if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
        raise InputRefused("a template box must lie inside the page with x0 < x1 and y0 < y1")
    return (x0, y0, x1, y1)


@dataclass(frozen=True, slots=True)
class FormField:
    """One template field: its name, kind, nominal outline box and printed placeholder.

    Boxes are ``[x0, y0, x1, y1]`` in pixel-edge coordinates: the outline covers
    columns ``x0 .. x1 - 1`` and rows ``y0 .. y1 - 1``. ``placeholder`` (optional)
    is the box, inside the field's interior, where the blank form prints grey
    hint text ("if any", "dose and frequency"): part of the template, not an entry.
    """

    name: str
    kind: FieldKind
    box: Box
    placeholder: Box | None = None

    def __post_init__(self) -> None:
        if type(self.name) is not str or _NAME.fullmatch(self.name) is None:
            raise InputRefused("a field name must match [a-z][a-z0-9_]{0,63}")
        if self.kind not in FIELD_KINDS:
            raise InputRefused("a field kind must be 'checkbox' or 'text'")
        object.__setattr__(self, "box", _check_box(self.box, MAX_TEMPLATE_SIDE, MAX_TEMPLATE_SIDE))
        x0, y0, x1, y1 = self.box
        if min(x1 - x0, y1 - y0) < 2 * INTERIOR_INSET_PX + 4:
            raise InputRefused("a field box is too small to read its interior")
        if self.placeholder is not None:
            px0, py0, px1, py1 = _check_box(self.placeholder, MAX_TEMPLATE_SIDE, MAX_TEMPLATE_SIDE)
            inset = INTERIOR_INSET_PX
            if not (
                x0 + inset <= px0 and y0 + inset <= py0 and px1 <= x1 - inset and py1 <= y1 - inset
            ):
                raise InputRefused("a placeholder box must lie inside its field's interior")
            object.__setattr__(self, "placeholder", (px0, py0, px1, py1))


def _field_mapping(form_field: FormField) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "name": form_field.name,
        "kind": form_field.kind,
        "box": list(form_field.box),
    }
    if form_field.placeholder is not None:
        mapping["placeholder"] = list(form_field.placeholder)
    return mapping


@dataclass(frozen=True, slots=True)
class FormTemplate:
    """The printed layout a form image is registered against.

    ``marks`` are the centres of four solid square registration marks of side
    ``mark_size`` (template pixels), in the order top-left, top-right,
    bottom-left, bottom-right.
    """

    name: str
    width: int
    height: int
    mark_size: int
    marks: tuple[tuple[int, int], ...]
    fields: tuple[FormField, ...]

    def __post_init__(self) -> None:
        if type(self.name) is not str or _NAME.fullmatch(self.name) is None:
            raise InputRefused("a template name must match [a-z][a-z0-9_]{0,63}")
        for value in (self.width, self.height, self.mark_size):
            if type(value) is not int:
                raise InvalidArgument("template sizes must be integers")
        if not (64 <= self.width <= MAX_TEMPLATE_SIDE and 64 <= self.height <= MAX_TEMPLATE_SIDE):
            raise InputRefused(
                f"template page sides must be between 64 and {MAX_TEMPLATE_SIDE} pixels"
            )
        if not 8 <= self.mark_size <= 128:
            raise InputRefused("mark_size must be between 8 and 128 pixels")
        marks = tuple(tuple(m) for m in self.marks)
        if len(marks) != 4 or any(len(m) != 2 or any(type(v) is not int for v in m) for m in marks):
            raise InputRefused("a template needs exactly four integer mark centres")
        if any(not (0 <= x < self.width and 0 <= y < self.height) for x, y in marks):
            raise InputRefused("mark centres must lie inside the page")
        fields = tuple(self.fields)
        if not 1 <= len(fields) <= MAX_TEMPLATE_FIELDS:
            raise InputRefused(f"a template needs between 1 and {MAX_TEMPLATE_FIELDS} fields")
        if any(type(f) is not FormField for f in fields):
            raise InvalidArgument("template fields must be FormField instances")
        if len({f.name for f in fields}) != len(fields):
            raise InputRefused("template field names must be unique")
        for f in fields:
            _check_box(f.box, self.width, self.height)
        object.__setattr__(self, "marks", marks)
        object.__setattr__(self, "fields", fields)

    @classmethod
    def from_mapping(cls, document: Mapping[str, Any]) -> FormTemplate:
        """Build a template from its JSON form (schema ``form-template``)."""
        if not isinstance(document, Mapping):
            raise InvalidArgument("a template document must be a mapping")
        expected = {"name", "width", "height", "mark_size", "marks", "fields"}
        if set(document) != expected:
            raise InputRefused(
                "a template document has exactly the keys: " + ", ".join(sorted(expected))
            )
        raw_fields = document["fields"]
        raw_marks = document["marks"]
        if type(raw_fields) is not list or type(raw_marks) is not list:
            raise InputRefused("template 'fields' and 'marks' must be lists")
        if len(raw_fields) > MAX_TEMPLATE_FIELDS or len(raw_marks) != 4:
            raise InputRefused(
                f"a template needs between 1 and {MAX_TEMPLATE_FIELDS} fields and four marks"
            )
        fields = []
        for raw in raw_fields:
            if not isinstance(raw, Mapping) or not (
                {"name", "kind", "box"} <= set(raw) <= {"name", "kind", "box", "placeholder"}
            ):
                raise InputRefused(
                    "a template field has the keys box, kind, name and optionally placeholder"
                )
            fields.append(
                FormField(
                    name=raw["name"],
                    kind=raw["kind"],
                    box=raw["box"],
                    placeholder=raw.get("placeholder"),
                )
            )
        marks = []
        for raw_mark in raw_marks:
            if type(raw_mark) is not list or len(raw_mark) != 2:
                raise InputRefused("a template needs exactly four integer mark centres")
            marks.append((raw_mark[0], raw_mark[1]))
        return cls(
            name=document["name"],
            width=document["width"],
            height=document["height"],
            mark_size=document["mark_size"],
            marks=tuple(marks),
            fields=tuple(fields),
        )

    def to_mapping(self) -> dict[str, Any]:
        """The JSON form of the template (schema ``form-template``)."""
        return {
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "mark_size": self.mark_size,
            "marks": [list(m) for m in self.marks],
            "fields": [_field_mapping(f) for f in self.fields],
        }

    def __repr__(self) -> str:
        return f"FormTemplate(fields={len(self.fields)}, width={self.width}, height={self.height})"


#: Interior inset (template pixels) that excludes the printed 2-px outline.
INTERIOR_INSET_PX = 6
#: A thin printed stroke reading lighter than this share of the ink means the page is
#: too blurred to read (Gaussian radius about 2.5 px): the outline's blur reaches into
#: the interior, and thresholds scaled any lower would read that blur as marks.
_MIN_STROKE_REFERENCE = 0.4
#: Paper and ink must differ by at least this many grey levels (of 255).
_MIN_CONTRAST = 48.0
#: More dark blobs than this is not a form page.
_MAX_MARK_CANDIDATES = 4096
#: A placeholder box is widened by this many pixels: blur spreads the print past it.
_PLACEHOLDER_MARGIN_PX = 3
#: The print level of a placeholder box is this quantile of its darkness (its peak).
_PRINT_QUANTILE = 0.995
#: Placeholder hints are printed grey: a box whose peak reads darker than this share of
#: the ink (the page's stroke reference) has been written over, or its hint is no grey print.
_GREY_PRINT_MAX = 0.5
#: Set-aside print reading this much darker than the page's print leaves the box in doubt:
#: an entry over the hint in a light ink (pencil, a light ballpoint) reads little darker.
_PRINT_DOUBT = 0.075
#: Entries whose darkest strokes (this quantile of a field's marks outside its placeholder
#: box) read at least this share of the page's black print (the stroke reference) are written
#: in a dark pen; lighter ones (pencil, a light ballpoint) can hide inside grey print.
_PEN_QUANTILE = 0.95
_DARK_PEN_SHARE = 0.99
#: A field's marks outside its placeholder box measure the page's pen only from this many pixels.
_PEN_SAMPLE_PX = 24
#: Flat-fielding: the paper level is measured per block of this side (px), as a high
#: quantile of its grey levels (a block is mostly paper), then median-filtered over
#: this many blocks (a block inside a registration mark or dense ink is an outlier).
_PAPER_BLOCK_PX = 16
_PAPER_QUANTILE = 90.0
_PAPER_FILTER_BLOCKS = 5
#: A page whose paper level varies by more than this many grey levels across it (a
#: photographed or shaded scan) is flattened before it is read; a flatbed scan's
#: few levels of falloff are left as they are.
_MAX_PAPER_VARIATION = 12.0
#: The boundary ring runs from this many pixels outside the outline ...
RING_INNER_PX = 4
#: ... to this many; nothing is printed there, so ink in it crossed the boundary.
RING_OUTER_PX = 10


def _default_template() -> FormTemplate:
    checkbox = 32
    checkboxes = (
        ("consent_signed", 80, 110),
        ("allergy_reported", 80, 170),
        ("interpreter_needed", 80, 230),
        ("fasting_confirmed", 350, 110),
        ("follow_up_requested", 350, 170),
        ("transport_required", 350, 230),
    )
    texts = (
        ("reason_for_visit", 330),
        ("current_medication", 420),
        ("contact_note", 510),
        ("additional_comments", 600),
    )
    fields = [
        FormField(name, "checkbox", (x, y, x + checkbox, y + checkbox)) for name, x, y in checkboxes
    ]
    # Each text box prints a grey hint at its right end, as many real forms do.
    fields += [
        FormField(name, "text", (80, y, 560, y + 40), placeholder=(420, y + 9, 552, y + 31))
        for name, y in texts
    ]
    return FormTemplate(
        name="openmed_synthetic_intake_v2",
        width=640,
        height=800,
        mark_size=20,
        marks=((40, 40), (600, 40), (40, 760), (600, 760)),
        fields=tuple(fields),
    )


#: The template the development generator renders (see ``docs/components/forms.md``).
DEFAULT_TEMPLATE = _default_template()


@dataclass(frozen=True, slots=True)
class FormsConfig:
    """Thresholds of the form reader.

    Darkness is ``(paper - pixel) / (paper - ink)`` in the page's darkest
    channel, with paper and ink levels measured on the page (ink from the
    registration marks). *Evidence* is anything at least ``faint_darkness``
    dark that is neither a speck nor the page's printed placeholder text;
    *ink* is evidence at least ``ink_darkness`` dark. ``faint_darkness`` is the
    same for both configurations: "empty" claims nothing was written, so it
    needs the most sensitive level that still clears paper noise and JPEG
    ringing, however permissive the reading of what was written. Pixel counts and extents
    are in template pixels; fractions and spans are of the field interior.
    """

    template: FormTemplate = DEFAULT_TEMPLATE
    ink_darkness: float = 0.5
    faint_darkness: float = 0.12
    min_component_px: int = 6
    checked_min_fraction: float = 0.06
    checked_min_span: float = 0.5
    filled_min_ink_px: int = 24
    filled_min_extent_px: int = 16
    print_margin: float = 0.15
    abstain_on_boundary_ink: bool = True
    boundary_ink_min_px: int = 8
    max_rotation_deg: float = 4.0
    max_mark_residual_px: float = 2.0
    search_radius_px: int = 64

    def __post_init__(self) -> None:
        if type(self.template) is not FormTemplate:
            raise InvalidArgument("template must be a FormTemplate")
        counts = (
            "min_component_px",
            "boundary_ink_min_px",
            "search_radius_px",
            "filled_min_ink_px",
        )
        check_bounds(
            self, counts, int, 1, _MAX_PX, f"integer thresholds must be between 1 and {_MAX_PX}"
        )
        check_bounds(
            self,
            ("filled_min_extent_px",),
            int,
            0,
            _MAX_PX,
            f"integer thresholds must be between 0 and {_MAX_PX}",
        )
        fractions = (
            "ink_darkness",
            "faint_darkness",
            "checked_min_fraction",
            "checked_min_span",
            "print_margin",
        )
        check_bounds(
            self, fractions, float, 0.0, 1.0, "fractional thresholds must be floats in [0, 1]"
        )
        if self.faint_darkness > self.ink_darkness:
            raise InputRefused("faint_darkness must not exceed ink_darkness")
        if type(self.abstain_on_boundary_ink) is not bool:
            raise InvalidArgument("abstain_on_boundary_ink must be a bool")
        check_bounds(
            self,
            ("max_rotation_deg", "max_mark_residual_px"),
            float,
            0.0,
            _MAX_TOLERANCE,
            f"registration tolerances must be floats in (0, {_MAX_TOLERANCE:g}]",
            above_low=True,
        )

    def __repr__(self) -> str:
        return f"FormsConfig(template={self.template!r})"


#: Conservative: strong ink only; abstains on marks too small, faint or crossing a boundary.
CONFIG_A = FormsConfig()

#: Permissive: faint ink counts, any mark is read as checked/filled, boundary ink is ignored.
CONFIG_B = FormsConfig(
    ink_darkness=0.2,
    min_component_px=4,
    checked_min_fraction=0.01,
    checked_min_span=0.0,
    filled_min_ink_px=4,
    filled_min_extent_px=0,
    abstain_on_boundary_ink=False,
    max_rotation_deg=6.0,
    max_mark_residual_px=3.0,
    search_radius_px=96,
)


# --------------------------------------------------------------------------- decoding


def _decode_png(asset: bytes) -> GreyImage:
    """Decode a PNG to its darkest channel 0..255, refusing bombs before decoding.

    The darkest channel, not luminance: luminance weights blue at 11 %, so a
    light-blue ballpoint would lose most of its contrast; in the red channel it
    keeps it. On a grey page both are the same.
    """
    if not asset.startswith(PNG_SIGNATURE):
        raise UnsupportedAsset("the forms component reads PNG images only")
    rgb = read_png(
        asset,
        modes=_PNG_MODES,
        max_side=MAX_IMAGE_SIDE,
        max_pixels=MAX_IMAGE_PIXELS,
        unsupported="unsupported PNG pixel mode or animation",
        corrupt="the PNG image could not be decoded",
        convert="RGB",
    )
    rgb = np.asarray(rgb, dtype=np.uint8)
    # Element-wise over the three planes: a reduction along the short last axis is slow.
    darkest: GreyImage = np.minimum(np.minimum(rgb[..., 0], rgb[..., 1]), rgb[..., 2])
    return darkest


def _flat_field(grey: GreyImage) -> GreyImage:
    """The page with uneven illumination divided out, if its paper level varies much.

    Shading scales paper and ink alike (a reflectance seen under less light), so the
    page is divided by its paper level, measured block by block and interpolated
    bilinearly, and scaled back to the median paper level. Without this a shaded
    corner reads as ink everywhere (darkness is measured from one paper level) and
    its registration marks drown in it.
    """
    block = _PAPER_BLOCK_PX
    height, width = grey.shape
    rows, cols = height // block, width // block
    if rows < 3 or cols < 3:
        return grey
    blocks = (
        grey[: rows * block, : cols * block]
        .reshape(rows, block, cols, block)
        .transpose(0, 2, 1, 3)
        .reshape(rows, cols, block * block)
    )
    level = ndimage.median_filter(
        np.percentile(blocks, _PAPER_QUANTILE, axis=2), size=_PAPER_FILTER_BLOCKS, mode="nearest"
    )
    if float(level.max() - level.min()) <= _MAX_PAPER_VARIATION:
        return grey
    # Block centres -> pixel centres, bilinear, held constant past the outer centres.
    y = np.clip((np.arange(height) + 0.5) / block - 0.5, 0.0, rows - 1.0)
    x = np.clip((np.arange(width) + 0.5) / block - 0.5, 0.0, cols - 1.0)
    field = ndimage.map_coordinates(
        level, np.meshgrid(y, x, indexing="ij"), order=1, mode="nearest"
    )
    flat = grey * (float(np.median(level)) / np.maximum(field, 1.0))
    flattened: GreyImage = np.clip(np.rint(flat), 0, 255).astype(np.uint8)
    return flattened


# --------------------------------------------------------------------------- registration


@dataclass(frozen=True, slots=True)
class _Registration:
    """Similarity transform template -> image in pixel-edge coordinates."""

    a: float
    b: float
    tx: float
    ty: float
    ink: float
    paper: float

    def apply(self, x: float, y: float) -> tuple[float, float]:
        return (self.a * x - self.b * y + self.tx, self.b * x + self.a * y + self.ty)


def _grey_quantile(histogram: NDArray[np.int64], q: float) -> float:
    """The grey level below which a share ``q`` of the pixels lie (from a 256-bin histogram)."""
    cumulative = np.cumsum(histogram)
    return float(np.searchsorted(cumulative, q * cumulative[-1]))


def _register(grey: GreyImage, config: FormsConfig) -> _Registration | None:
    """Find the four corner marks and fit a similarity transform, or ``None``."""
    template = config.template
    height, width = grey.shape
    sx, sy = width / template.width, height / template.height
    if not 0.5 <= sx <= 2.0 or abs(sx - sy) > 0.05 * sx:
        return None
    scale = (sx + sy) / 2.0
    histogram = np.bincount(grey.ravel(), minlength=256)
    paper = _grey_quantile(histogram, 0.5)
    darkest = _grey_quantile(histogram, 0.002)
    if paper - darkest < _MIN_CONTRAST:
        return None
    dark = (grey < (paper + darkest) / 2.0).astype(np.uint8)
    side = template.mark_size * scale
    # Grey opening with a flat square is separable (fast) and equals the binary
    # opening here: it keeps solid blobs at least half a mark wide, drops strokes.
    opened = ndimage.grey_opening(dark, size=(max(3, round(side / 2)),) * 2)
    labels, count = ndimage.label(opened)
    if count == 0 or count > _MAX_MARK_CANDIDATES:
        return None
    areas = np.bincount(labels.ravel(), minlength=count + 1)
    candidates: list[tuple[float, float, int]] = []
    for label, found_slice in enumerate(ndimage.find_objects(labels), start=1):
        if found_slice is None or not 0.5 * side * side <= areas[label] <= 1.6 * side * side:
            continue
        rows, cols = np.nonzero(labels[found_slice] == label)
        # Pixel-index centroid + 0.5 gives pixel-edge coordinates.
        candidates.append(
            (
                float(cols.mean() + found_slice[1].start + 0.5),
                float(rows.mean() + found_slice[0].start + 0.5),
                label,
            )
        )
    found: list[tuple[float, float]] = []
    chosen: list[int] = []
    for mx, my in template.marks:
        ex, ey = mx * sx, my * sy
        nearest = min(candidates, key=lambda c: math.hypot(c[0] - ex, c[1] - ey), default=None)
        if nearest is None or nearest[2] in chosen:
            return None
        if math.hypot(nearest[0] - ex, nearest[1] - ey) > config.search_radius_px * scale:
            return None
        chosen.append(nearest[2])
        found.append((nearest[0], nearest[1]))
    design = []
    observed = []
    for (mx, my), (fx, fy) in zip(template.marks, found, strict=True):
        design += [(mx, -my, 1.0, 0.0), (my, mx, 0.0, 1.0)]
        observed += [fx, fy]
    design_matrix = np.asarray(design, dtype=np.float64)
    target = np.asarray(observed, dtype=np.float64)
    solution, *_ = np.linalg.lstsq(design_matrix, target, rcond=None)
    a, b, tx, ty = (float(v) for v in solution)
    residual = float(np.max(np.abs(design_matrix @ solution - target)))
    rotation = math.degrees(math.atan2(b, a))
    if (
        residual > config.max_mark_residual_px * scale
        or abs(rotation) > config.max_rotation_deg
        or abs(math.hypot(a, b) / scale - 1.0) > 0.05
    ):
        return None
    ink = min(float(np.median(grey[labels == label])) for label in chosen)
    if paper - ink < _MIN_CONTRAST:
        return None
    return _Registration(a=a, b=b, tx=tx, ty=ty, ink=ink, paper=paper)


def _field_darkness(grey: GreyImage, reg: _Registration, box: Box) -> FloatImage:
    """Darkness in [0, 1] of the field box plus its ring, resampled into the template frame.

    The crop's pixel (0, 0) is template pixel (y0 - RING_OUTER_PX, x0 - RING_OUTER_PX).
    """
    x0, y0, x1, y1 = box
    origin = np.array([y0 - RING_OUTER_PX, x0 - RING_OUTER_PX], dtype=np.float64)
    # Template pixel index (r, c) -> image pixel index; both are pixel-edge
    # coordinates minus 0.5.
    matrix = np.array([[reg.a, reg.b], [-reg.b, reg.a]])
    offset = matrix @ (origin + 0.5) + np.array([reg.ty, reg.tx]) - 0.5
    warped = ndimage.affine_transform(
        grey,
        matrix,
        offset=offset,
        output_shape=(y1 - y0 + 2 * RING_OUTER_PX, x1 - x0 + 2 * RING_OUTER_PX),
        output=np.float64,
        order=1,
        mode="constant",
        cval=reg.paper,
    )
    result: FloatImage = np.clip((reg.paper - warped) / (reg.paper - reg.ink), 0.0, 1.0)
    return result


# --------------------------------------------------------------------------- reading fields


def _without_specks(mask: BoolImage, min_px: int) -> BoolImage:
    labels, count = ndimage.label(mask, structure=np.ones((3, 3), bool))
    if count == 0:
        return mask
    sizes = np.bincount(labels.ravel())
    keep = sizes >= min_px
    keep[0] = False
    result: BoolImage = keep[labels]
    return result


def _span(mask: BoolImage) -> tuple[float, float]:
    if not mask.any():
        return (0.0, 0.0)
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    return (
        (cols[-1] - cols[0] + 1) / mask.shape[1],
        (rows[-1] - rows[0] + 1) / mask.shape[0],
    )


def _stroke_reference(crops: list[FloatImage]) -> float:
    """Peak darkness of the printed 2-px outlines: how dark a thin stroke reads on this page.

    Blur lowers the peak of every thin stroke alike, so thresholds scale with it;
    a clean page reads about 1.0. Measured on each field's top edge.
    """
    r, inset = RING_OUTER_PX, INTERIOR_INSET_PX
    peaks = [
        float(np.max(np.median(c[r - 3 : r + 5, r + inset : -r - inset], axis=1))) for c in crops
    ]
    return min(float(np.median(peaks)), 1.0)


def _placeholder_slices(form_field: FormField) -> tuple[slice, slice] | None:
    """The field's placeholder box, widened by a margin, in its crop's coordinates."""
    if form_field.placeholder is None:
        return None
    x0, y0 = form_field.box[:2]
    px0, py0, px1, py1 = form_field.placeholder
    r, m = RING_OUTER_PX, _PLACEHOLDER_MARGIN_PX
    return (
        slice(max(py0 - y0 + r - m, 0), py1 - y0 + r + m),
        slice(max(px0 - x0 + r - m, 0), px1 - x0 + r + m),
    )


def _print_level(
    fields: tuple[FormField, ...], crops: list[FloatImage], grey_max: float
) -> float | None:
    """How dark the page's printed placeholder text reads, or ``None`` when no box shows it.

    Every placeholder on a page is printed alike in grey, lighter than ink (the
    peaks of a page's blank hint boxes differ by under 0.05 of the ink): the
    print is the *lightest* peak of the placeholder boxes, measured on this very
    page (blur and toner included), since a box written over holds the print and
    more (a light pencil entry reads darker than the print, if only a little). A
    box darker than ``grey_max`` (:data:`_GREY_PRINT_MAX` of the page's ink) is
    no grey print: when every box is such, the print cannot be told from an
    entry (``None``). 0 without placeholders.
    """
    peaks = []
    for form_field, crop in zip(fields, crops, strict=True):
        region = _placeholder_slices(form_field)
        if region is not None:
            peaks.append(float(np.quantile(crop[region], _PRINT_QUANTILE)))
    if not peaks:
        return 0.0
    grey = [peak for peak in peaks if peak < grey_max]
    return min(grey) if grey else None


def _interior(crop: FloatImage) -> FloatImage:
    r, inset = RING_OUTER_PX, INTERIOR_INSET_PX
    return crop[r + inset : -r - inset, r + inset : -r - inset]


def _dark_pen(
    fields: tuple[FormField, ...], crops: list[FloatImage], config: FormsConfig, reference: float
) -> bool:
    """Whether the page's entries are written in a dark pen, measured on its marks outside
    every placeholder box (checks, entries beside the hints).

    One page is filled in with one pen. A dark pen reads as dark as the page's black
    print; an entry over a grey hint in it stands out from the print. A lighter pen
    (pencil, a light ballpoint) can read no darker than the print, so a hint box on its
    page holding only print-like marks may hold an entry too. ``False`` when the page
    has no marks to measure the pen on: nothing shows it is dark.
    """
    darkest = 0.0
    for form_field, crop in zip(fields, crops, strict=True):
        marks = crop.copy()
        region = _placeholder_slices(form_field)
        if region is not None:
            marks[region] = 0.0
        interior = _interior(marks)
        evidence = _without_specks(
            interior >= config.faint_darkness * reference, config.min_component_px
        )
        if int(evidence.sum()) >= _PEN_SAMPLE_PX:
            darkest = max(darkest, float(np.quantile(interior[evidence], _PEN_QUANTILE)))
    return darkest >= _DARK_PEN_SHARE * reference


def _field_state(
    crop: FloatImage,
    form_field: FormField,
    config: FormsConfig,
    reference: float,
    print_level: float | None,
    dark_pen: bool,
) -> str:
    r = RING_OUTER_PX
    ink_level = config.ink_darkness * reference
    if config.abstain_on_boundary_ink:
        ring = _without_specks(crop >= ink_level, config.min_component_px)
        inner = r - RING_INNER_PX
        ring[inner:-inner, inner:-inner] = False
        if int(ring.sum()) >= config.boundary_ink_min_px:
            return "abstain"
    # Printed placeholder text is part of the blank form: inside its box only
    # what is clearly darker than the print is someone's mark. Where the print
    # could not be measured, nothing in the box can be told from it.
    marked = crop.copy()
    region = _placeholder_slices(form_field)
    set_aside = False
    if region is not None:
        printed = marked[region]
        hidden = printed <= (1.0e9 if print_level is None else print_level + config.print_margin)
        doubt = _GREY_PRINT_MAX * reference if print_level is None else print_level + _PRINT_DOUBT
        set_aside = float(np.quantile(printed, _PRINT_QUANTILE)) >= doubt
        if not dark_pen:
            # A light pen's entry over the hint reads like the print: print-like marks
            # set aside on such a page may hide an entry.
            set_aside = set_aside or bool(
                _without_specks(
                    _interior(marked) >= config.faint_darkness * reference,
                    config.min_component_px,
                ).any()
            )
        printed[hidden] = 0.0
    interior = _interior(marked)
    evidence = _without_specks(
        interior >= config.faint_darkness * reference, config.min_component_px
    )
    if not evidence.any():
        # Marks were set aside as print that may hide an entry (ink-dark marks over a
        # print never measured, a light pen's marks over any print): an entry over the
        # hint and the hint look alike, so the field is not "empty".
        return "abstain" if set_aside else "empty"
    ink = _without_specks(interior >= ink_level, config.min_component_px)
    span_x, span_y = _span(ink)
    if form_field.kind == "checkbox":
        confident = (
            float(ink.mean()) >= config.checked_min_fraction
            and min(span_x, span_y) >= config.checked_min_span
        )
        return "checked" if confident else "abstain"
    # A short entry ("5 mg") is as much an entry as a long one: what makes a
    # mark doubtful is too little ink or too small an extent, not a narrow span.
    extent = max(span_x * ink.shape[1], span_y * ink.shape[0])
    confident = int(ink.sum()) >= config.filled_min_ink_px and extent >= config.filled_min_extent_px
    return "filled" if confident else "abstain"


def _image_box(reg: _Registration, box: Box, width: int, height: int) -> list[int]:
    """Axis-aligned pixel box of the transformed outline, clipped to the image."""
    x0, y0, x1, y1 = box
    corners = [reg.apply(x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return [
        min(max(round(min(xs)), 0), width),
        min(max(round(min(ys)), 0), height),
        min(max(round(max(xs)), 0), width),
        min(max(round(max(ys)), 0), height),
    ]


def run(asset: bytes, config: FormsConfig = CONFIG_A) -> ComponentOutput:
    """Read every template field of a PNG form: state and grounding box."""
    check_asset(asset)
    if type(config) is not FormsConfig:
        raise InvalidArgument("config must be a FormsConfig")
    grey = _flat_field(_decode_png(asset))
    template = config.template
    registration = _register(grey, config)
    if registration is None:
        unread = {f.name: {"state": "abstain", "box": None} for f in template.fields}
        return ComponentOutput(
            output={"fields": unread}, abstained=True, abstain_reason="page_unregistered"
        )
    crops = [_field_darkness(grey, registration, f.box) for f in template.fields]
    reference = _stroke_reference(crops)
    height, width = grey.shape
    if reference < _MIN_STROKE_REFERENCE:
        blurred = {
            f.name: {"state": "abstain", "box": _image_box(registration, f.box, width, height)}
            for f in template.fields
        }
        return ComponentOutput(
            output={"fields": blurred}, abstained=True, abstain_reason="page_too_blurred"
        )
    print_level = _print_level(template.fields, crops, _GREY_PRINT_MAX * reference)
    dark_pen = _dark_pen(template.fields, crops, config, reference)
    fields: dict[str, dict[str, Any]] = {}
    for form_field, crop in zip(template.fields, crops, strict=True):
        fields[form_field.name] = {
            "state": _field_state(crop, form_field, config, reference, print_level, dark_pen),
            "box": _image_box(registration, form_field.box, width, height),
        }
    ambiguous = any(entry["state"] == "abstain" for entry in fields.values())
    return ComponentOutput(
        output={"fields": fields},
        abstained=ambiguous,
        abstain_reason="ambiguous_marks" if ambiguous else None,
    )
