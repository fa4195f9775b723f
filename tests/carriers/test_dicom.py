"""The shared native-DICOM parse boundary: transfer syntax first, typed errors, nothing logged."""

from __future__ import annotations

import io
import logging
import tracemalloc
import warnings
import zlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.carriers.dicom import (
    EXPLICIT_VR_BIG_ENDIAN,
    EXPLICIT_VR_LITTLE_ENDIAN,
    NATIVE_TRANSFER_SYNTAXES,
    is_native_dicom,
    quiet_pydicom,
    read_native_dicom,
)
from pytest_openmed.carriers.waveform import read_waveform
from pytest_openmed.components import burned_in, dicom_frames, ecg_quality
from pytest_openmed.components._base import ComponentError, CorruptAsset, UnsupportedAsset
from pytest_openmed.development.sources.dicom import generate_dicom_frames
from pytest_openmed.development.sources.ecg import synthesise_ecg, waveform_dicom
from tests._imports import modules_after
from tests.components._corruption import corrupted
from tests.components._dicom_files import as_big_endian, dataset_of, edited, pydicom_sample

#: Not a valid UID, so pydicom's value check logs it verbatim when it converts it.
CANARY = "CANARY-8d2c-dicom-uid"
DEFLATED = "1.2.840.10008.1.2.1.99"
UNSUPPORTED = "fixed: transfer syntax refused"
CORRUPT = "fixed: unreadable DICOM"


def _read(asset: bytes) -> object:
    return read_native_dicom(asset, unsupported=UNSUPPORTED, corrupt=CORRUPT)


#: Every reader of native DICOM, through the shared boundary.
READERS: dict[str, Callable[[bytes], object]] = {
    "read_native_dicom": _read,
    "dicom_frames": dicom_frames.run,
    "burned_in": burned_in.run,
    "waveform": read_waveform,
    "ecg_quality": ecg_quality.run,
}


def _file(syntax: str | None, body: bytes) -> bytes:
    """Preamble, prefix and a file meta group declaring ``syntax`` (or none), then ``body``."""
    from pydicom.dataset import FileMetaDataset
    from pydicom.filebase import DicomBytesIO
    from pydicom.filewriter import write_file_meta_info
    from pydicom.uid import UID

    meta = FileMetaDataset()
    buffer = DicomBytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the canary is not a valid UID
        meta.FileMetaInformationVersion = b"\x00\x01"
        meta.MediaStorageSOPClassUID = UID("1.2.840.10008.5.1.4.1.1.7")
        meta.MediaStorageSOPInstanceUID = UID("2.25.1")
        if syntax is not None:
            meta.TransferSyntaxUID = UID(syntax)
        write_file_meta_info(buffer, meta, enforce_standard=False)
    return bytes(128) + b"DICM" + buffer.getvalue() + body


@pytest.fixture(scope="module")
def frames() -> bytes:
    return generate_dicom_frames(7, "nominal", frames=16, rows=64, cols=64).asset


@pytest.fixture(scope="module")
def ecg() -> bytes:
    return waveform_dicom(synthesise_ecg(10, "nominal", duration_s=5.0), seed=10)


@pytest.fixture(scope="module")
def planted_syntax(frames: bytes) -> bytes:
    """A file meta group whose transfer syntax is the canary; the data set follows."""
    return _file(CANARY, frames[144 + int.from_bytes(frames[140:144], "little") :])


@pytest.fixture(scope="module")
def deflate_bomb() -> bytes:
    """A deflated data set of 64 MiB of zeros, in a file of about 64 KiB."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = bytes(1 << 20)
    body = b"".join(compressor.compress(block) for _ in range(64)) + compressor.flush()
    return _file(DEFLATED, body)


# -- the closed set ------------------------------------------------------------------------


def test_the_native_set_is_closed_and_uncompressed() -> None:
    assert NATIVE_TRANSFER_SYNTAXES == {
        "1.2.840.10008.1.2",
        "1.2.840.10008.1.2.1",
        "1.2.840.10008.1.2.2",
    }


def test_explicit_big_endian_is_read_like_its_little_endian_original() -> None:
    little, big = pydicom_sample("MR_small.dcm"), pydicom_sample("MR_small_bigendian.dcm")
    assert str(_read(big).file_meta.TransferSyntaxUID) == EXPLICIT_VR_BIG_ENDIAN  # type: ignore[attr-defined]
    np.testing.assert_array_equal(
        _read(big).pixel_array,  # type: ignore[attr-defined]
        _read(little).pixel_array,  # type: ignore[attr-defined]
    )


def _generated(reader: str) -> bytes:
    """A generated 16-bit native DICOM the component reads (multi-frame, or one frame)."""
    if reader == "dicom_frames":
        return generate_dicom_frames(3, "nominal", frames=16, rows=64, cols=64).asset
    from pytest_openmed.development.sources.burned_in import (
        generate_burned_in_identifier_coverage,
    )

    for seed in range(32):
        source = generate_burned_in_identifier_coverage(seed, "nominal")
        if source.truth["carrier"] == "dicom16":
            return source.asset
    raise AssertionError("no 16-bit DICOM carrier among the generated seeds")


@pytest.mark.parametrize("reader", ["dicom_frames", "burned_in"])
def test_image_components_give_the_same_output_for_big_endian(reader: str) -> None:
    run = READERS[reader]
    little, big = pydicom_sample("MR_small.dcm"), pydicom_sample("MR_small_bigendian.dcm")
    assert run(big).to_json() == run(little).to_json()  # type: ignore[attr-defined]
    original = _generated(reader)
    converted = as_big_endian(original)
    assert converted != original
    assert run(converted).to_json() == run(original).to_json()  # type: ignore[attr-defined]


def test_the_ecg_reader_gives_the_same_waveform_for_big_endian() -> None:
    little = waveform_dicom(synthesise_ecg(3, "nominal"), seed=11)
    big = as_big_endian(little)
    assert big != little
    np.testing.assert_array_equal(read_waveform(big).samples, read_waveform(little).samples)
    assert ecg_quality.run(big).to_json() == ecg_quality.run(little).to_json()


# -- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MR_small_RLE.dcm", "JPEG2000.dcm", "image_dfl.dcm"])
def test_compressed_and_deflated_files_are_refused_with_the_callers_message(name: str) -> None:
    with pytest.raises(UnsupportedAsset) as caught:
        _read(pydicom_sample(name))
    assert str(caught.value) == UNSUPPORTED


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_deflate_bomb_is_refused_without_inflating_it(deflate_bomb: bytes, reader: str) -> None:
    assert len(deflate_bomb) < 256 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(UnsupportedAsset):
            READERS[reader](deflate_bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024  # the 64 MiB data set was never inflated


@pytest.mark.parametrize(
    "asset",
    [b"", bytes(200), b"\x89PNG\r\n\x1a\n" + bytes(200), bytes(128) + b"DICM" + b"\x02\x00"],
    ids=["empty", "zeros", "png", "cut_meta"],
)
def test_unreadable_bytes_are_corrupt_with_the_callers_message(asset: bytes) -> None:
    with pytest.raises(CorruptAsset) as caught:
        _read(asset)
    assert str(caught.value) == CORRUPT
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None or caught.value.__suppress_context__


def test_a_file_meta_group_without_a_transfer_syntax_is_corrupt() -> None:
    with pytest.raises(CorruptAsset) as caught:
        _read(_file(None, b""))
    assert str(caught.value) == CORRUPT


@pytest.mark.parametrize("kept", range(4))
def test_a_file_meta_group_cut_inside_its_length_is_not_native(kept: int) -> None:
    """A header that ends inside the (0002,0000) value is refused, not a crash."""
    header = bytes(128) + b"DICM" + b"\x02\x00\x00\x00UL\x04\x00"
    assert not is_native_dicom(header + b"\xc8\x00\x00\x00"[:kept])


def test_a_file_meta_group_with_an_unknown_value_representation_is_corrupt() -> None:
    native = _file(EXPLICIT_VR_LITTLE_ENDIAN, b"")
    unknown_vr = b"\x02\x00\x00\x00XX\x04\x00" + bytes(4)  # (0002,0000) sorts first
    with pytest.raises(CorruptAsset):
        _read(native[:132] + unknown_vr + native[132:])
    assert _read(native) is not None


def test_a_native_file_is_read(frames: bytes) -> None:
    dataset = _read(frames)
    assert int(dataset.NumberOfFrames) == 16  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_corrupted_files_give_a_data_set_or_a_typed_error(
    frames: bytes, data: st.DataObject
) -> None:
    try:
        _read(data.draw(corrupted(frames, header=512)))
    except ComponentError:
        pass


# -- nothing is logged or warned -----------------------------------------------------------


def test_pydicom_alone_logs_the_planted_value(
    planted_syntax: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the boundary the canary does reach the log: the tests below can fail."""
    import pydicom

    with caplog.at_level(logging.DEBUG), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            pydicom.dcmread(io.BytesIO(planted_syntax))
        except Exception:
            pass
    assert CANARY in caplog.text


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_planted_transfer_syntax_is_neither_logged_nor_echoed(
    planted_syntax: bytes, reader: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG), pytest.raises(UnsupportedAsset) as caught:
        READERS[reader](planted_syntax)
    assert CANARY not in caplog.text
    assert CANARY not in str(caught.value) and CANARY not in repr(caught.value)


def test_values_the_component_reads_after_the_boundary_are_not_logged(
    ecg: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    planted = edited(ecg, SOPClassUID=CANARY)
    with caplog.at_level(logging.DEBUG), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        str(dataset_of(planted).SOPClassUID)
    assert CANARY in caplog.text  # pydicom logs the value when it converts it
    caplog.clear()
    with caplog.at_level(logging.DEBUG), pytest.raises(UnsupportedAsset):
        read_waveform(planted)
    assert CANARY not in caplog.text


@pytest.mark.parametrize("level", [logging.NOTSET, logging.DEBUG, logging.WARNING])
def test_the_pydicom_logger_and_warning_filters_are_restored(
    frames: bytes, planted_syntax: bytes, level: int
) -> None:
    logger = logging.getLogger("pydicom")
    child = logging.getLogger("pydicom.pixels.utils")
    before, filters = logger.level, list(warnings.filters)
    logger.setLevel(level)
    try:
        _read(frames)
        assert logger.level == level
        with pytest.raises(UnsupportedAsset):
            _read(planted_syntax)
        assert logger.level == level
        with quiet_pydicom():
            assert not logger.isEnabledFor(logging.CRITICAL)
            assert not child.isEnabledFor(logging.CRITICAL)  # children inherit the level
            with quiet_pydicom():
                pass
            assert not logger.isEnabledFor(logging.CRITICAL)  # the inner exit waits for the outer
        assert logger.level == level
        assert warnings.filters == filters
    finally:
        logger.setLevel(before)


def test_importing_the_boundary_loads_no_heavy_dependency() -> None:
    loaded = modules_after("import pytest_openmed.carriers.dicom")
    assert loaded.isdisjoint({"pydicom", "numpy", "PIL"})


def test_the_pack_media_sniffer_neither_logs_nor_accepts_a_planted_syntax(
    planted_syntax: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    from pytest_openmed.multimodal import MediaTypeRefused, SourceAsset

    with caplog.at_level(logging.DEBUG), pytest.raises(MediaTypeRefused):
        SourceAsset(planted_syntax)
    assert CANARY not in caplog.text
