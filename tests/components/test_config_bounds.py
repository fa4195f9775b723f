"""Every component configuration checks its thresholds' bounds with one rule.

``components._base.check_bounds``: a named field is exactly the declared type
(a bool is not an int, an int is not a float) from its lower to its upper
bound; NaN is outside every range; the caller's fixed message is the error.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

import pytest_openmed.components as components
from pytest_openmed.components import burned_in, dicom_frames, ecg_quality, forms
from pytest_openmed.components._base import check_bounds
from pytest_openmed.errors import InputRefused


@dataclasses.dataclass(frozen=True)
class _Config:
    a: object = 1.0
    b: object = 2.0


@pytest.mark.parametrize("value", [0.0, 0.5, 2.0])
def test_a_value_of_the_type_inside_the_closed_range_passes(value: float) -> None:
    check_bounds(_Config(a=value), ("a", "b"), float, 0.0, 2.0, "bad")


@pytest.mark.parametrize("value", [-0.1, 2.1, math.nan, math.inf, 1, True, "1.0", None])
def test_a_value_outside_the_range_or_of_another_type_is_refused(value: object) -> None:
    with pytest.raises(InputRefused, match=r"^bad$"):
        check_bounds(_Config(b=value), ("a", "b"), float, 0.0, 2.0, "bad")


def test_an_int_field_takes_no_bool_and_above_low_leaves_the_bound_out() -> None:
    with pytest.raises(InputRefused):
        check_bounds(_Config(a=True), ("a",), int, 0, 2, "bad")
    check_bounds(_Config(a=2), ("a",), int, 0, 2, "bad")
    with pytest.raises(InputRefused):
        check_bounds(_Config(a=0.0), ("a",), float, 0.0, 2.0, "bad", above_low=True)
    check_bounds(_Config(a=2.0), ("a",), float, 0.0, 2.0, "bad", above_low=True)


@pytest.mark.parametrize(
    ("config", "field", "value", "message"),
    [
        (
            burned_in.CONFIG_A,
            "mask_floor",
            64.5,
            "real-valued thresholds must be floats in [0, 64]",
        ),
        (
            burned_in.CONFIG_A,
            "smooth_sigma",
            math.nan,
            "real-valued thresholds must be floats in [0, 64]",
        ),
        (burned_in.CONFIG_A, "pad_px", 513, "integer thresholds must be between 0 and 512"),
        (burned_in.CONFIG_A, "pad_px", True, "integer thresholds must be between 0 and 512"),
        (forms.CONFIG_A, "search_radius_px", 0, "integer thresholds must be between 1 and 4096"),
        (
            forms.CONFIG_A,
            "filled_min_extent_px",
            4097,
            "integer thresholds must be between 0 and 4096",
        ),
        (forms.CONFIG_A, "print_margin", 1.5, "fractional thresholds must be floats in [0, 1]"),
        (
            forms.CONFIG_A,
            "max_rotation_deg",
            0.0,
            "registration tolerances must be floats in (0, 45]",
        ),
        (dicom_frames.CONFIG_A, "stride", 4097, "stride must be an int in 1..4096"),
        (
            ecg_quality.CONFIG_A,
            "max_flagged_leads",
            13,
            "max_flagged_leads must be an int in 0..12",
        ),
    ],
)
def test_each_configuration_refuses_a_field_out_of_bounds(
    config: object, field: str, value: object, message: str
) -> None:
    with pytest.raises(InputRefused) as caught:
        dataclasses.replace(config, **{field: value})  # type: ignore[type-var]
    assert str(caught.value) == message


def test_no_component_writes_its_own_bound_loop() -> None:
    folder = Path(components.__file__).parent
    for path in folder.glob("*.py"):
        if path.name != "_base.py":
            assert "value = getattr(self, name)" not in path.read_text(encoding="utf-8"), path.name
