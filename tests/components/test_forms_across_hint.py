"""forms: an entry written across a printed placeholder hint is never read as empty in ink.

Issue 27: with the placeholder declared in the template as documented, entries
written over the hints of most text boxes made the "print level" (the median
peak of the placeholder boxes) read as ink, so every entry inside a hint box
was set aside as print and the field read **empty**, a confident wrong answer.
The print is now measured only on boxes that read grey (lighter than half the
ink); when no box does, ink-dark marks in a hint box abstain instead. On a page
written in a light ink (pencil, a light ballpoint: its marks outside the hint
boxes read lighter than the page's black print), print-like marks in a hint box
abstain too: the entry may hide in the print.
"""

from __future__ import annotations

import dataclasses
import io

import numpy as np
from PIL import Image

from pytest_openmed.components.forms import (
    CONFIG_A,
    CONFIG_B,
    DEFAULT_TEMPLATE,
    INTERIOR_INSET_PX,
    FormField,
    run,
)
from pytest_openmed.development.sources.forms import generate_form_grounding

CONFIGS = {"A": CONFIG_A, "B": CONFIG_B}


def _readings(seeds: range, ink: str) -> list[tuple[str, str]]:
    pairs = []
    for seed in seeds:
        source = generate_form_grounding(seed, "adverse_acquisition", ink=ink, across_hint=True)
        for config in CONFIGS.values():
            fields = run(source.asset, config).output["fields"]
            for name, truth in source.truth["fields"].items():
                pairs.append((truth["state"], fields[name]["state"]))
    return pairs


def test_entries_across_the_hint_in_pen_are_never_read_empty() -> None:
    pairs = _readings(range(8), "dark")
    filled = [read for truth, read in pairs if truth == "filled"]
    assert filled and "empty" not in filled
    assert sum(read == "filled" for read in filled) >= len(filled) // 2
    assert all(read in (truth, "abstain") for truth, read in pairs)


def test_entries_across_the_hint_in_a_light_ink_are_never_read_empty() -> None:
    """Pencil or a light ballpoint over a hint can read no darker than the print, and
    when every hint is written over the lightest entry was taken for the print: such
    entries read **empty** (seeds 0, 2 in pencil and 3 in light blue did). The page's pen,
    measured on its marks outside the hint boxes, is lighter than its black print, so
    print-like marks in a hint box may hide an entry: the field abstains."""
    for ink in ("pencil", "light_blue"):
        pairs = _readings(range(4), ink)
        filled = [read for truth, read in pairs if truth == "filled"]
        assert filled and "empty" not in filled
        assert all(read in (truth, "abstain") for truth, read in pairs)


def test_a_blank_hint_on_a_light_ink_page_abstains_rather_than_reads_empty() -> None:
    """What the light-pen rule costs: an empty hint box on a pencil page cannot be told
    from one written over in that pencil, so it is not claimed empty; empty boxes without
    a hint still are."""
    hinted = {f.name for f in DEFAULT_TEMPLATE.fields if f.placeholder is not None}
    seen = set()
    for seed in range(6):
        source = generate_form_grounding(seed, "adverse_acquisition", ink="pencil")
        fields = run(source.asset, CONFIG_B).output["fields"]
        for name, truth in source.truth["fields"].items():
            if truth["state"] == "empty":
                seen.add(name in hinted)
                assert fields[name]["state"] == ("abstain" if name in hinted else "empty")
    assert seen == {True, False}


def test_the_adverse_slice_writes_across_the_hint_on_some_pages() -> None:
    flags = [
        generate_form_grounding(seed, "adverse_acquisition").truth["across_hint"]
        for seed in range(12)
    ]
    assert any(flags) and not all(flags)
    assert not generate_form_grounding(0, "nominal").truth["across_hint"]


def test_a_template_whose_only_hint_is_written_over_abstains_rather_than_reads_empty() -> None:
    """One placeholder, written over: no box shows the grey print, so nothing in it can be
    told from print, and the field is not claimed empty."""
    fields = list(DEFAULT_TEMPLATE.fields)
    keep = "reason_for_visit"
    fields = [f if f.name == keep else dataclasses.replace(f, placeholder=None) for f in fields]
    template = dataclasses.replace(DEFAULT_TEMPLATE, fields=tuple(fields))
    for seed in range(8):
        source = generate_form_grounding(seed, "nominal", template=template, across_hint=True)
        truth = source.truth["fields"][keep]["state"]
        for config in CONFIGS.values():
            config = dataclasses.replace(config, template=template)
            read = run(source.asset, config).output["fields"][keep]["state"]
            assert read == truth or (truth == "filled" and read == "abstain")
            assert not (truth == "filled" and read == "empty")


def test_blank_hints_still_read_empty() -> None:
    source = generate_form_grounding(3, "nominal")
    output = run(source.asset, CONFIG_A).output["fields"]
    empties = [n for n, t in source.truth["fields"].items() if t["state"] == "empty"]
    assert empties and all(output[name]["state"] == "empty" for name in empties)
    assert np.all([not output[n]["state"] == "abstain" for n in output])


def test_a_blank_form_shows_no_pen_so_its_hint_boxes_abstain() -> None:
    """A form with nothing written on it has no marks to measure its pen on: a light entry
    over a hint could not be ruled out, so the hint boxes abstain; boxes without a hint
    still read empty."""
    source = generate_form_grounding(3, "nominal")  # nominal: an integer offset, no rotation
    fields = source.truth["fields"]
    printed = np.asarray(Image.open(io.BytesIO(source.asset)).convert("L"))
    page = printed.copy()
    paper = int(np.median(page))
    hinted = [f for f in DEFAULT_TEMPLATE.fields if f.placeholder is not None]

    def where(form_field: FormField) -> tuple[slice, slice]:
        assert form_field.placeholder is not None
        x0, y0 = fields[form_field.name]["box"][:2]
        dx, dy = x0 - form_field.box[0], y0 - form_field.box[1]
        px0, py0, px1, py1 = form_field.placeholder
        return slice(py0 + dy, py1 + dy), slice(px0 + dx, px1 + dx)

    # A blank box's hint as it came from the printer, printed in every hint box.
    stamp = printed[where(next(f for f in hinted if fields[f.name]["state"] == "empty"))]
    inset = INTERIOR_INSET_PX
    for form_field in DEFAULT_TEMPLATE.fields:
        x0, y0, x1, y1 = fields[form_field.name]["box"]
        page[y0 + inset : y1 - inset, x0 + inset : x1 - inset] = paper
    for form_field in hinted:
        page[where(form_field)] = stamp
    buffer = io.BytesIO()
    Image.fromarray(page).save(buffer, format="PNG")
    for config in CONFIGS.values():
        read = run(buffer.getvalue(), config).output["fields"]
        assert {name: read[name]["state"] for name in fields} == {
            f.name: "abstain" if f.placeholder is not None else "empty"
            for f in DEFAULT_TEMPLATE.fields
        }
