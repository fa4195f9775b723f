"""forms on real paper: a real photographed page's shading, grain and bleed-through.

No real filled-in form with checkboxes ships in any installed package, so the
generated forms are laid on the paper of a real one: scikit-image's ``page``
(a photographed page of printed text, the ``dev`` extra; read from the
installed package, never downloaded). Its shading falls to about half the
paper level across the page. Before the reader flattened the page, a shaded
corner read as ink from one global paper level: pages went unregistered and
``CONFIG_B`` read empty boxes as checked or filled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from skimage import data

from pytest_openmed.components.forms import CONFIG_A, CONFIG_B, run
from pytest_openmed.development.sources.forms import generate_form_grounding

PAGE: Any = data.page()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize(
    ("seed", "ink", "acquisition"),
    [
        (1000, "dark", "scan"),
        (1001, "light_blue", "scan"),
        (1002, "light_blue", "scan"),
        (1000, "pencil", "clean"),
        (1002, "pencil", "clean"),
        (1002, "pencil", "scan"),
    ],
)
def test_a_form_on_real_shaded_paper_is_registered_and_never_confidently_wrong(
    seed: int, ink: str, acquisition: str
) -> None:
    source = generate_form_grounding(
        seed, "nominal", ink=ink, acquisition=acquisition, paper_scan=PAGE
    )
    for config in (CONFIG_A, CONFIG_B):
        output = run(source.asset, config)
        assert output.abstain_reason != "page_unregistered"
        read = output.output["fields"]
        assert [
            name
            for name, truth in source.truth["fields"].items()
            if read[name]["state"] not in (truth["state"], "abstain")
        ] == []


def test_clean_dark_pages_on_real_paper_are_read_in_full() -> None:
    for seed in range(1000, 1004):
        source = generate_form_grounding(seed, "nominal", paper_scan=PAGE)
        output = run(source.asset, CONFIG_A)
        assert not output.abstained
        read = output.output["fields"]
        assert all(read[n]["state"] == t["state"] for n, t in source.truth["fields"].items())


def test_a_page_on_plain_paper_is_read_as_it_was() -> None:
    """Flattening only starts past a dozen grey levels of falloff: a flatbed scan's few
    levels leave the page's pixels, and so every earlier reading, unchanged."""
    from pytest_openmed.components.forms import _decode_png, _flat_field

    for acquisition in ("clean", "scan"):
        source = generate_form_grounding(7, "nominal", acquisition=acquisition)
        grey = _decode_png(source.asset)
        assert np.array_equal(_flat_field(grey), grey)
