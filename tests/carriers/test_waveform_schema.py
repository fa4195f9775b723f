"""The JSON waveform check accepts exactly what the shipped ``waveform.v1`` schema accepts.

Plus the reader rules the schema's description states (each lead once, equal
lengths, finite float64 samples) and JSON without repeated names.  The check
writes the schema's rules out (a validator is a heavy import); these properties
hold it to ``jsonschema`` on generated documents, valid and invalid, written in
varied JSON layouts and with number literals spliced in as raw text.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_openmed.carriers.ecg import (
    MAX_SAMPLES_PER_LEAD,
    MAX_SAMPLING_RATE_HZ,
    MIN_SAMPLING_RATE_HZ,
    STANDARD_LEADS,
)
from pytest_openmed.carriers.waveform import (
    MAX_JSON_LEADS,
    WAVEFORM_FORMAT,
    WAVEFORM_UNITS,
    check_waveform_json,
    is_waveform_json,
)
from pytest_openmed.errors import CorruptAsset, UnsupportedAsset
from pytest_openmed.multimodal import MediaType, SourceAsset
from pytest_openmed.multimodal.errors import MediaTypeRefused
from pytest_openmed.schemas import load_schema
from tests._imports import modules_after

SCHEMA = load_schema("waveform.v1")
VALIDATOR = Draft202012Validator(SCHEMA)


def _expected(text: bytes) -> bool:
    """The reference: ``json`` parses it (no repeated name), the schema accepts it, the rules hold."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({name for name, _ in pairs}) != len(pairs):
            raise ValueError("repeated name")
        return dict(pairs)

    def refuse(_: str) -> None:
        raise ValueError("constant")

    try:
        document = json.loads(text.decode("utf-8"), object_pairs_hook=unique, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False
    if not VALIDATOR.is_valid(document):
        return False
    names = [lead["name"] for lead in document["leads"]]
    lengths = {len(lead["samples"]) for lead in document["leads"]}
    samples = [value for lead in document["leads"] for value in lead["samples"]]
    return len(set(names)) == len(names) and len(lengths) == 1 and all(map(_finite, samples))


def _finite(value: float) -> bool:
    """Whether the sample is a finite float64 (a huge integer overflows)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def test_the_carrier_constants_are_the_schemas() -> None:
    properties = SCHEMA["properties"]
    assert properties["format"]["const"] == WAVEFORM_FORMAT
    assert properties["units"]["enum"] == list(WAVEFORM_UNITS)
    assert properties["sampling_rate_hz"]["minimum"] == MIN_SAMPLING_RATE_HZ
    assert properties["sampling_rate_hz"]["maximum"] == MAX_SAMPLING_RATE_HZ
    assert properties["leads"]["maxItems"] == MAX_JSON_LEADS
    assert SCHEMA["$defs"]["lead_name"]["enum"] == list(STANDARD_LEADS)
    assert SCHEMA["$defs"]["samples"]["maxItems"] == MAX_SAMPLES_PER_LEAD


_numbers = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -0.0, 1e-7, 2.5e300, 10**400, -(10**309)]),
)
_anything = st.one_of(
    st.booleans(), st.none(), st.text(max_size=3), st.just([1]), st.just({"a": 1}), _numbers
)


@st.composite
def _documents(draw: st.DrawFn) -> dict[str, Any]:
    """Near-valid documents: each part drawn valid or, now and then, broken."""
    length = draw(st.integers(0, 4))
    leads = []
    for _ in range(draw(st.integers(0, 4))):
        size = length + draw(st.sampled_from([0, 0, 0, 1]))
        samples: Any = draw(st.lists(_numbers, min_size=size, max_size=size))
        if samples and draw(st.integers(0, 9)) == 0:
            samples[draw(st.integers(0, len(samples) - 1))] = draw(_anything)
        lead: dict[str, Any] = {
            "name": draw(st.sampled_from([*STANDARD_LEADS, "V7", "ii", ""])),
            "samples": samples if draw(st.integers(0, 19)) else draw(_anything),
        }
        if draw(st.integers(0, 19)) == 0:
            lead["extra"] = 1
        if draw(st.integers(0, 19)) == 0:
            del lead[draw(st.sampled_from(["name", "samples"]))]
        leads.append(lead)
    document: dict[str, Any] = {
        "format": draw(st.sampled_from([WAVEFORM_FORMAT] * 8 + ["openmed.waveform.v2"])),
        "sampling_rate_hz": draw(
            st.one_of(
                st.floats(MIN_SAMPLING_RATE_HZ, MAX_SAMPLING_RATE_HZ),
                st.sampled_from([100, 2000, 99.999, 2000.5, True, "500", 1e400]),
            )
        ),
        "units": draw(st.sampled_from(["mV", "uV", "V", "mv", ""])),
        "leads": leads if draw(st.integers(0, 19)) else draw(_anything),
    }
    if draw(st.integers(0, 19)) == 0:
        document["note"] = "x"
    if draw(st.integers(0, 19)) == 0:
        del document[draw(st.sampled_from(sorted(document)))]
    return document


_layouts = st.sampled_from(
    [
        {},
        {"separators": (",", ":")},
        {"indent": 2},
        {"indent": "\t"},
        {"separators": (" ,\n ", " :\r\n")},
    ]
)


@settings(max_examples=400, deadline=None)
@given(document=_documents(), layout=_layouts)
def test_check_agrees_with_the_schema_on_generated_documents(
    document: dict[str, Any], layout: dict[str, Any]
) -> None:
    text = json.dumps(document, **layout).encode()
    assert is_waveform_json(text) is _expected(text)


#: Number literals as raw text: JSON's grammar, its edge cases and near misses.
_LITERALS = [
    "0",
    "-0",
    "0.0",
    "-0.5",
    "10",
    "1.5e3",
    "1E+3",
    "1e-05",
    "0e0",
    "-1.25E-2",
    "1e400",
    "9" * 400,
    "01",
    "-01",
    "00",
    "1.",
    ".5",
    "-.5",
    "+1",
    "1e",
    "1e+",
    "--1",
    "1-2",
    "1.2.3",
    "1e5e5",
    "1e5.5",
    "-",
    "e5",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "null",
    '"1"',
    "1 2",
    "",
    " ",
    "0x1",
    "1_0",
    "\u0661",
    # A '.' or 'e' after a long run of digits.
    "1" * 40 + ".5",
    "1." + "2" * 40 + ".3",
    "0." + "5" * 40 + "e5",
    "1e" + "5" * 40 + "e5",
    "-0." + "0" * 320 + "1",
    "1" * 320,
    "1.5e3.2",
    "- 1",
    "1 .5",
    "1e 5",
    "1e+-5",
]


@settings(max_examples=400, deadline=None)
@given(
    names=st.lists(st.sampled_from(STANDARD_LEADS), min_size=1, max_size=3, unique=True),
    literals=st.lists(st.sampled_from(_LITERALS), min_size=1, max_size=4),
    spaces=st.lists(st.sampled_from(["", " ", "  ", "\n", "\t ", "\r\n"]), min_size=4, max_size=4),
)
def test_check_agrees_with_the_schema_on_raw_number_text(
    names: list[str], literals: list[str], spaces: list[str]
) -> None:
    before, after, left, right = spaces
    row = f"{left},{right}".join(literals)
    leads = ", ".join(f'{{"name": "{name}", "samples": [{before}{row}{after}]}}' for name in names)
    text = (
        f'{{"format": "{WAVEFORM_FORMAT}", "sampling_rate_hz": 500, "units": "uV", '
        f'"leads": [{leads}]}}'
    ).encode()
    assert is_waveform_json(text) is _expected(text)


@settings(max_examples=300, deadline=None)
@given(literals=st.lists(st.text(alphabet="0123456789-+.eE ,", max_size=8), min_size=1, max_size=6))
def test_check_agrees_with_the_schema_on_arbitrary_number_characters(
    literals: list[str],
) -> None:
    row = ",".join(literals)
    text = (
        f'{{"format": "{WAVEFORM_FORMAT}", "sampling_rate_hz": 500, "units": "mV", '
        f'"leads": [{{"name": "I", "samples": [{row}]}}]}}'
    ).encode()
    assert is_waveform_json(text) is _expected(text)


@pytest.mark.parametrize(
    "layout", [{}, {"indent": 2}, {"indent": "\t"}, {"separators": (" ,\n ", ":")}]
)
def test_every_lead_is_counted_and_read_in_any_layout(layout: dict[str, Any]) -> None:
    leads = [{"name": name, "samples": [0.5] * (40 + k)} for k, name in enumerate(("I", "II"))]
    uneven = {"format": WAVEFORM_FORMAT, "sampling_rate_hz": 500, "units": "mV", "leads": leads}
    with pytest.raises(CorruptAsset, match="different lengths"):
        check_waveform_json(json.dumps(uneven, **layout).encode())
    even = {**uneven, "leads": [{**lead, "samples": [0.5] * 40} for lead in leads]}
    checked = check_waveform_json(json.dumps(even, **layout).encode())
    assert checked.n_samples == 40
    assert [name for name, _ in checked.leads] == ["I", "II"]
    for _, samples in checked.leads:
        assert samples.tolist() == [0.5] * 40
        assert not samples.flags.writeable


@pytest.mark.parametrize(
    "change",
    [
        {"leads": [{"name": f"L{k}", "samples": [0.1, 0.2]} for k in range(64)]},
        {"leads": [{"name": name, "samples": [0.1, 0.2]} for name in [*STANDARD_LEADS, "V4R"]]},
        {"units": "V"},
        {"units": "counts"},
        {"sampling_rate_hz": 50},
        {"sampling_rate_hz": 10_000},
        {"leads": [{"name": "II", "samples": [0.1] * (MAX_SAMPLES_PER_LEAD + 1)}]},
    ],
)
def test_what_no_component_reads_is_no_waveform(change: dict[str, Any]) -> None:
    """Leads, units and rates the components cannot read: no pack admits them (packs used to)."""
    document = {
        "format": WAVEFORM_FORMAT,
        "sampling_rate_hz": 500,
        "units": "mV",
        "leads": [{"name": "II", "samples": [0.1, 0.2]}],
    }
    text = json.dumps({**document, **change}).encode()
    assert not VALIDATOR.is_valid(json.loads(text))
    assert not is_waveform_json(text)
    with pytest.raises(CorruptAsset):
        check_waveform_json(text)
    with pytest.raises(MediaTypeRefused):
        SourceAsset(text)
    valid = json.dumps(document).encode()
    assert is_waveform_json(valid)
    assert SourceAsset(valid).media_type is MediaType.WAVEFORM_JSON


def test_refusals_say_which_kind() -> None:
    with pytest.raises(UnsupportedAsset):
        check_waveform_json(b'{"format": "other", "samples": [1, 2]}')
    with pytest.raises(CorruptAsset, match="could not be parsed"):
        check_waveform_json(b'{"format": "openmed.waveform.v1", "leads": [1,,2]}')
    with pytest.raises(CorruptAsset, match="does not match"):
        check_waveform_json(b'{"format": "openmed.waveform.v1", "leads": ["[1]"]}')


def test_the_check_loads_no_schema_validator() -> None:
    code = (
        "import json; from pytest_openmed.carriers import waveform as w;"
        "d = {'format': w.WAVEFORM_FORMAT, 'sampling_rate_hz': 500, 'units': 'mV',"
        " 'leads': [{'name': 'I', 'samples': [1, 2]}]};"
        "assert w.is_waveform_json(json.dumps(d).encode())"
    )
    assert "jsonschema" not in modules_after(code)
