"""A waveform sniffed by a pack and read by a component is parsed once, and refusals stay exact."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from pytest_openmed.carriers.ecg import STANDARD_LEADS
from pytest_openmed.carriers.waveform import check_waveform_json, is_waveform_json, read_waveform
from pytest_openmed.components._base import CorruptAsset
from pytest_openmed.multimodal.media import MediaType, sniff_media_type


def _asset(offset: float) -> bytes:
    leads = [{"name": name, "samples": [offset, offset + 0.5, -offset]} for name in STANDARD_LEADS]
    document = {"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV"}
    return json.dumps({**document, "leads": leads}).encode("utf-8")


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the documents :mod:`json` parses while the test runs."""
    count = [0]
    real = json.loads

    def counting(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    return count


def test_sniff_then_two_reads_of_one_asset_parse_it_once(parses: list[int]) -> None:
    asset = _asset(0.123456789)
    assert sniff_media_type(asset) is MediaType.WAVEFORM_JSON
    first = read_waveform(asset)
    second = read_waveform(bytes(bytearray(asset)))  # equal bytes, another object
    assert parses[0] == 1
    np.testing.assert_array_equal(first.samples, second.samples)


def test_another_asset_is_parsed_and_read_as_itself(parses: list[int]) -> None:
    one, other = _asset(0.25), _asset(0.75)
    assert is_waveform_json(one) and is_waveform_json(other)
    assert read_waveform(one).lead("II")[0] == 0.25
    assert parses[0] == 3


def test_kept_samples_are_read_only() -> None:
    checked = check_waveform_json(_asset(1.5))
    for _, samples in checked.leads:
        with pytest.raises(ValueError):
            samples[0] = 0.0


def test_a_refusal_is_raised_on_every_check(parses: list[int]) -> None:
    broken = _asset(0.5)[:-2]
    for _ in range(2):
        with pytest.raises(CorruptAsset, match=r"^waveform JSON could not be parsed$"):
            check_waveform_json(broken)
    assert parses[0] == 2
