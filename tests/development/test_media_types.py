"""A generated source declares the media type a pack gives its bytes.

One spelling per carrier: the ECG waveform is
``application/vnd.openmed.waveform+json`` (``MediaType.WAVEFORM_JSON``, the
pack schemas) everywhere, never a second label such as ``application/json``.
"""

from __future__ import annotations

import pytest

from pytest_openmed.development import development_source
from pytest_openmed.development.sources.ecg import (
    DICOM_MEDIA_TYPE,
    JSON_MEDIA_TYPE,
    generate_ecg_quality,
)
from pytest_openmed.multimodal import MediaType, SourceAsset, ValidationTask


@pytest.mark.parametrize("task", list(ValidationTask), ids=lambda task: task.value)
def test_each_development_unit_declares_the_media_type_its_bytes_are_sniffed_as(
    task: ValidationTask,
) -> None:
    source = development_source(task)
    assert source.media_type == SourceAsset(source.asset).media_type.value


@pytest.mark.parametrize(
    ("carrier", "declared", "expected"),
    [
        ("json", JSON_MEDIA_TYPE, MediaType.WAVEFORM_JSON),
        ("dicom", DICOM_MEDIA_TYPE, MediaType.DICOM),
    ],
)
def test_both_ecg_carriers_use_the_pack_media_type(
    carrier: str, declared: str, expected: MediaType
) -> None:
    source = generate_ecg_quality(1, "nominal", carrier=carrier)
    assert declared == expected.value == source.media_type
    assert SourceAsset(source.asset).media_type is expected
