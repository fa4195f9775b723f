"""Audit findings: lookalike carriers and mutable bound values that the engine accepted.

Each test pins one bypass found in the audit of the multimodal engine against
seed 000 and DESIGN §6; the fix lives in the module that owns the rule.
"""

from __future__ import annotations

import json
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed._canonical import sha256_digest
from pytest_openmed.multimodal import (
    Observation,
    ReviewOrigin,
    ValidationTask,
    assess_validation,
)
from pytest_openmed.multimodal.errors import (
    AdjudicatorWasReviewer,
    MediaTypeRefused,
    QualificationChanged,
    StaleConflict,
)
from pytest_openmed.multimodal.jsonvalue import FrozenJson, freeze_object
from pytest_openmed.multimodal.media import MediaType, sniff_media_type
from pytest_openmed.multimodal.suppression import is_small_cell

from ._helpers import (
    GOOD,
    KEY,
    Scores,
    adjudicate,
    complete,
    conflict_digests,
    d,
    dicom_bytes,
    make_pack,
    png_bytes,
    replaced,
    reviewer,
    reviews,
    waveform_document,
)

# --- PNG: a well-formed IHDR and a chunk sequence that walks to IEND --------------------------

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _ihdr(width: int = 4, height: int = 4, depth: int = 8, colour: int = 0, *rest: int) -> bytes:
    compression, filtering, interlace = rest or (0, 0, 0)
    body = struct.pack(">IIBBBBB", width, height, depth, colour, compression, filtering, interlace)
    return _chunk(b"IHDR", body)


_IDAT = _chunk(b"IDAT", zlib.compress(bytes(4 * 5)))
_IEND = _chunk(b"IEND", b"")


def test_handmade_minimal_png_is_accepted() -> None:
    assert sniff_media_type(_SIGNATURE + _ihdr() + _IDAT + _IEND) is MediaType.PNG


@pytest.mark.parametrize(
    "header",
    [
        _ihdr(depth=3),  # no such bit depth
        _ihdr(depth=16, colour=3),  # palette images are at most 8 bits
        _ihdr(colour=5),  # no such colour type
        _ihdr(4, 4, 8, 0, 1, 0, 0),  # compression method other than 0
        _ihdr(4, 4, 8, 0, 0, 1, 0),  # filter method other than 0
        _ihdr(4, 4, 8, 0, 0, 0, 2),  # interlace method other than 0/1
        _ihdr(width=2**31),  # dimensions are at most 2^31 - 1
    ],
    ids=["depth", "palette-depth", "colour", "compression", "filter", "interlace", "width"],
)
def test_png_header_with_invalid_fields_is_refused(header: bytes) -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + header + _IDAT + _IEND)


def test_png_without_image_data_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + _IEND)


def test_png_signature_and_header_around_foreign_bytes_are_refused() -> None:
    foreign = b"PK\x03\x04" + bytes(range(256)) * 4  # e.g. an archive between IHDR and IEND
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + foreign + _IDAT + _IEND)


def test_png_with_iend_before_the_end_of_its_chunks_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_SIGNATURE + _ihdr() + _IEND + _IDAT + _IEND)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    size=st.integers(min_value=1, max_value=40),
    mode=st.sampled_from(["1", "L", "LA", "P", "RGB", "RGBA", "I;16"]),
)
def test_pillow_pngs_of_every_mode_are_accepted(seed: int, size: int, mode: str) -> None:
    import io

    from PIL import Image

    image = Image.new(mode, (size, size + seed % 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    assert sniff_media_type(buffer.getvalue()) is MediaType.PNG
    assert sniff_media_type(png_bytes(seed)) is MediaType.PNG


# --- JSON waveform: unambiguous content -------------------------------------------------------


def test_waveform_with_a_duplicate_top_level_key_is_refused() -> None:
    text = json.dumps(waveform_document(1)).encode()
    # Python keeps the last "format", other readers the first: the content is ambiguous.
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(b'{"format": "something-else", ' + text[1:])


def test_waveform_with_a_duplicate_key_inside_a_lead_is_refused() -> None:
    text = json.dumps(waveform_document(1)).encode()
    ambiguous = text.replace(b'"samples": [', b'"samples": [9, 9], "samples": [', 1)
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(ambiguous)


def test_waveform_holding_dicm_at_offset_128_is_still_a_waveform() -> None:
    prefix = '{"note": "'
    document = {"note": "x" * (128 - len(prefix)) + "DICM", **waveform_document(1)}
    data = json.dumps(document).encode()
    assert data[128:132] == b"DICM"
    assert sniff_media_type(data) is MediaType.WAVEFORM_JSON


# --- DICOM: the file meta group holds each element once, in ascending order --------------------


def _meta_elements(data: bytes) -> tuple[bytes, list[tuple[int, bytes]], bytes]:
    (length,) = struct.unpack("<I", data[140:144])
    meta, rest = data[144 : 144 + length], data[144 + length :]
    elements: list[tuple[int, bytes]] = []
    position = 0
    while position < len(meta):
        (element,) = struct.unpack_from("<H", meta, position + 2)
        if meta[position + 4 : position + 6] in (b"OB", b"UN", b"SQ", b"UT"):
            (size,) = struct.unpack_from("<I", meta, position + 8)
            end = position + 12 + size
        else:
            (size,) = struct.unpack_from("<H", meta, position + 6)
            end = position + 8 + size
        elements.append((element, meta[position:end]))
        position = end
    return data[:140], elements, rest


def _reassemble(head: bytes, raws: list[bytes], rest: bytes) -> bytes:
    meta = b"".join(raws)
    return head + struct.pack("<I", len(meta)) + meta + rest


_DEFLATED = b"1.2.840.10008.1.2.1.99"
_DEFLATED_ELEMENT = struct.pack("<HH2sH", 2, 0x10, b"UI", len(_DEFLATED)) + _DEFLATED


def test_dicom_meta_naming_two_transfer_syntaxes_is_refused() -> None:
    head, elements, rest = _meta_elements(dicom_bytes(1))
    # Deflated first, native second: pydicom keeps the last, other readers the first.
    raws = [(_DEFLATED_ELEMENT + raw if tag == 0x10 else raw) for tag, raw in elements]
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_reassemble(head, raws, rest))


def test_dicom_meta_elements_out_of_order_are_refused() -> None:
    head, elements, rest = _meta_elements(dicom_bytes(1))
    syntax = [raw for tag, raw in elements if tag == 0x10]
    raws = [raw for tag, raw in elements if tag != 0x10] + syntax
    with pytest.raises(MediaTypeRefused):
        sniff_media_type(_reassemble(head, raws, rest))


# --- bound JSON values stay bound ------------------------------------------------------------


def test_frozen_json_cannot_be_changed_after_its_digest_was_taken() -> None:
    value = FrozenJson({"instructions": "rate both"}, max_bytes=1024)
    with pytest.raises(AttributeError):
        value._canonical = '{"instructions":"swapped"}'
    with pytest.raises(AttributeError):
        del value._digest
    assert dict(value) == {"instructions": "rate both"}


def test_changed_context_cannot_ride_on_earlier_review_evidence() -> None:
    pack = make_pack(2)
    evidence = [complete(pack, reviewer(0)), complete(pack, reviewer(1))]
    context = pack.cases[0].context
    with pytest.raises(AttributeError):
        context._canonical = '{"instructions":"swapped"}'  # type: ignore[attr-defined]
    assert assess_validation(pack, pack.candidates[0], evidence, key=KEY).decision == (
        "rubric_satisfied"
    )


class _Forged(FrozenJson):
    """A FrozenJson whose digest claims other content."""

    @property
    def digest(self) -> str:
        return sha256_digest(b"someone else's output")


def test_a_frozen_json_subclass_is_fingerprinted_again() -> None:
    forged = _Forged({"answer": 1}, max_bytes=1024)
    honest = FrozenJson({"answer": 1}, max_bytes=1024)
    assert type(freeze_object(forged, max_bytes=1024)) is FrozenJson
    output = Observation("cand-a", forged).output
    assert isinstance(output, FrozenJson)
    assert output.digest == honest.digest


# --- regression probes that held: every field of a qualification, conflicts, cell boundaries ----


@pytest.mark.parametrize(
    "change",
    [
        {"task_scope": frozenset({ValidationTask.FORMS, ValidationTask.BURNED_IN})},
        {"qualification_evidence_digest": d("renewed")},
        {"conflict_screening_digest": d("rescreened")},
        {"origin": ReviewOrigin.ATTESTED},
    ],
    ids=["scope", "evidence", "screening", "origin"],
)
def test_any_qualification_field_changed_after_preparation_is_refused(
    change: dict[str, object],
) -> None:
    pack = make_pack(2)
    first, second = reviews(pack, lambda u, n: GOOD, lambda u, n: GOOD)
    changed = replaced(second, reviewer=replaced(second.reviewer, **change))
    with pytest.raises(QualificationChanged):
        assess_validation(pack, pack.candidates[0], [first, changed], key=KEY)


def _dispute(unit: int, name: str) -> Scores:
    return (False, True, True, True) if (unit, name) == (1, "cand-a") else GOOD


def test_adjudication_citing_a_superset_of_the_conflict_is_refused() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, lambda u, n: GOOD, _dispute)
    conflict = conflict_digests(pack, review_list, 1, "cand-a")
    unrelated = conflict_digests(pack, review_list, 0, "cand-a")
    adjudication = adjudicate(pack, reviewer(5), 1, "cand-a", GOOD, conflict | unrelated)
    with pytest.raises(StaleConflict):
        assess_validation(
            pack, pack.candidates[0], review_list, key=KEY, adjudications=[adjudication]
        )


def test_original_reviewer_adjudicating_under_another_origin_is_refused() -> None:
    pack = make_pack(3)
    review_list = reviews(pack, lambda u, n: GOOD, _dispute)
    conflict = conflict_digests(pack, review_list, 1, "cand-a")
    same_person = replaced(reviewer(0), origin=ReviewOrigin.ATTESTED)
    adjudication = adjudicate(pack, same_person, 1, "cand-a", GOOD, conflict)
    with pytest.raises(AdjudicatorWasReviewer):
        assess_validation(
            pack, pack.candidates[0], review_list, key=KEY, adjudications=[adjudication]
        )


@pytest.mark.parametrize("cell", [5, 7])
def test_small_cell_boundaries_for_numerator_and_complement(cell: int) -> None:
    n = 3 * cell
    assert is_small_cell(cell - 1, n, cell) and not is_small_cell(cell, n, cell)
    assert not is_small_cell(n - cell, n, cell) and is_small_cell(n - cell + 1, n, cell)
