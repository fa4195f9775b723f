"""The ECG carrier reader shared by the ECG components: bytes in, one :class:`Waveform` out.

PYTEST_DONT_REWRITE

Two carriers are read, told apart by content (never by name):

* ``openmed.waveform.v1`` JSON, validated against
  ``schemas/waveform.v1.schema.json``, with samples in ``mV`` or ``uV``;
* native (uncompressed) DICOM 12-lead / General ECG waveforms, decoded with
  pydicom's ``Dataset.waveform_array(0)`` (the first multiplex group), at any
  sampling rate, with units taken from each channel's sensitivity and
  sensitivity-units code.

Both give the same immutable value: a sampling rate, the standard lead names
present (in the standard order I, II, III, aVR, aVL, aVF, V1..V6) and float64
samples in millivolts.  Declared sizes are checked before anything is decoded;
every failure is a :class:`ComponentError` subclass with a fixed message.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_openmed.components._base import CorruptAsset, UnsupportedAsset, parse_boundary
from pytest_openmed.components._dicom import has_dicom_prefix, quiet_pydicom, read_native_dicom

__all__ = [
    "MAX_DICOM_CHANNELS",
    "MAX_SAMPLES_PER_LEAD",
    "MAX_SAMPLING_RATE_HZ",
    "MIN_SAMPLING_RATE_HZ",
    "STANDARD_LEADS",
    "WAVEFORM_FORMAT",
    "Waveform",
    "read_waveform",
]

#: The closed set of lead names, in the order every :class:`Waveform` keeps them.
STANDARD_LEADS = ("I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6")
#: The ``format`` value of the JSON carrier.
WAVEFORM_FORMAT = "openmed.waveform.v1"
#: Sampling-rate bounds of either carrier (Hz).
MIN_SAMPLING_RATE_HZ = 100.0
MAX_SAMPLING_RATE_HZ = 2000.0
#: Most samples per lead (60 s at the highest rate); checked before decoding.
MAX_SAMPLES_PER_LEAD = 120_000
#: Most channels a DICOM multiplex group may declare; checked before decoding.
MAX_DICOM_CHANNELS = 64

_UNIT_TO_MV = {"mV": 1.0, "uV": 1e-3}
_DICOM_UNIT_TO_MV = {"nV": 1e-6, "uV": 1e-3, "mV": 1.0, "V": 1e3}
_ECG_SOP_CLASSES = frozenset(
    {
        "1.2.840.10008.5.1.4.1.1.9.1.1",  # 12-lead ECG Waveform Storage
        "1.2.840.10008.5.1.4.1.1.9.1.2",  # General ECG Waveform Storage
    }
)
#: (bits allocated, sample interpretation) pairs decoded as plain integers.
#: Mu-law / A-law (MB, AB) are companded and are refused, not misread.
_SAMPLE_FORMATS = {
    (8, "SB"): 1,
    (8, "UB"): 1,
    (16, "SS"): 2,
    (16, "US"): 2,
    (32, "SL"): 4,
    (32, "UL"): 4,
}
_SCPECG_CODES = {
    "5.6.3-9-1": "I",
    "5.6.3-9-2": "II",
    "5.6.3-9-61": "III",
    "5.6.3-9-62": "aVR",
    "5.6.3-9-63": "aVL",
    "5.6.3-9-64": "aVF",
    **{f"5.6.3-9-{k + 2}": f"V{k}" for k in range(1, 7)},
}
_MDC_CODES = {
    "2:1": "I",
    "2:2": "II",
    "2:61": "III",
    "2:62": "aVR",
    "2:63": "aVL",
    "2:64": "aVF",
    **{f"2:{k + 2}": f"V{k}" for k in range(1, 7)},
}
_CODES_BY_SCHEME = {"SCPECG": _SCPECG_CODES, "MDC": _MDC_CODES}
_NAMES_BY_FOLDED = {name.casefold(): name for name in STANDARD_LEADS}


@dataclass(frozen=True, slots=True, eq=False)
class Waveform:
    """One multi-lead ECG recording in millivolts, read-only.

    ``samples`` has shape ``(len(lead_names), n)``; row ``k`` is lead
    ``lead_names[k]``.  Lead names are unique, standard and in standard order.
    """

    sampling_rate_hz: float
    lead_names: tuple[str, ...]
    samples: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        rate = self.sampling_rate_hz
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            raise TypeError("sampling_rate_hz must be a number")
        if not MIN_SAMPLING_RATE_HZ <= float(rate) <= MAX_SAMPLING_RATE_HZ:
            raise ValueError("sampling_rate_hz is outside 100..2000 Hz")
        names = self.lead_names
        if type(names) is not tuple or not names or any(type(n) is not str for n in names):
            raise TypeError("lead_names must be a non-empty tuple of str")
        if any(n not in STANDARD_LEADS for n in names):
            raise ValueError("lead names must be drawn from the standard 12-lead set")
        order = [STANDARD_LEADS.index(n) for n in names]
        if order != sorted(set(order)):
            raise ValueError("lead names must be unique and in standard order")
        if not isinstance(self.samples, np.ndarray):
            raise TypeError("samples must be a numpy array")
        data = np.array(self.samples, dtype=np.float64, copy=True)
        if data.ndim != 2 or data.shape[0] != len(names):
            raise ValueError("samples must have one row per lead")
        if not 1 <= data.shape[1] <= MAX_SAMPLES_PER_LEAD:
            raise ValueError("samples per lead are outside the supported range")
        if not np.isfinite(data).all():
            raise ValueError("samples must be finite")
        data.flags.writeable = False
        object.__setattr__(self, "sampling_rate_hz", float(rate))
        object.__setattr__(self, "samples", data)

    @property
    def n_samples(self) -> int:
        return int(self.samples.shape[1])

    @property
    def duration_s(self) -> float:
        return self.n_samples / self.sampling_rate_hz

    def lead(self, name: str) -> npt.NDArray[np.float64]:
        """The read-only samples (mV) of lead ``name``; ``KeyError`` if absent."""
        if name not in self.lead_names:
            raise KeyError("lead not present in this recording")
        row: npt.NDArray[np.float64] = self.samples[self.lead_names.index(name)]
        return row

    def __repr__(self) -> str:
        return (
            f"Waveform(leads={len(self.lead_names)}, samples={self.n_samples}, "
            f"sampling_rate_hz={self.sampling_rate_hz:g})"
        )


def read_waveform(asset: bytes) -> Waveform:
    """Decode an ECG carrier, recognised by its content, into a :class:`Waveform`."""
    if has_dicom_prefix(asset):
        return _read_dicom(asset)
    if asset.lstrip(b" \t\r\n")[:1] == b"{":
        return _read_json(asset)
    raise UnsupportedAsset("asset is neither an openmed.waveform.v1 document nor a DICOM ECG")


def _build(rate: float, named: dict[str, npt.NDArray[np.float64]]) -> Waveform:
    """Assemble a :class:`Waveform` in standard lead order, refusing bad values."""
    names = tuple(name for name in STANDARD_LEADS if name in named)
    lengths = {int(named[name].shape[0]) for name in names}
    if len(lengths) != 1:
        raise CorruptAsset("ECG leads have different lengths")
    samples = np.stack([named[name] for name in names])
    if not np.isfinite(samples).all():
        raise CorruptAsset("ECG samples must be finite numbers")
    try:
        return Waveform(sampling_rate_hz=rate, lead_names=names, samples=samples)
    except (TypeError, ValueError):
        raise CorruptAsset("ECG recording is outside the supported limits") from None


# -- JSON carrier -------------------------------------------------------------


def _refuse_constant(_name: str) -> float:
    raise ValueError("non-finite constant")


@functools.lru_cache(maxsize=1)
def _envelope_validator() -> Any:
    """Validator for everything in the schema except the per-sample type rule.

    jsonschema checks every array item one Python call at a time (about 0.25 s
    for 60,000 samples); the ``items: number`` rule of ``$defs/samples`` is
    therefore applied by :func:`_samples_array` with the same meaning, and a
    property test shows the two agree.
    """
    import jsonschema

    from pytest_openmed.schemas import load_schema

    schema = copy.deepcopy(load_schema("waveform.v1"))
    del schema["$defs"]["samples"]["items"]
    return jsonschema.Draft202012Validator(schema)


def _samples_array(values: list[Any]) -> npt.NDArray[np.float64]:
    """The schema's ``items: {"type": "number"}`` rule, then conversion to float64."""
    for value in values:
        kind = type(value)
        if kind is not float and kind is not int:
            raise CorruptAsset("waveform JSON does not match the openmed.waveform.v1 schema")
    try:
        return np.asarray(values, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        raise CorruptAsset("ECG samples must be finite numbers") from None


def _read_json(asset: bytes) -> Waveform:
    try:
        document = json.loads(asset.decode("utf-8"), parse_constant=_refuse_constant)
    except Exception:  # any decoder failure, including recursion and int-size limits
        raise CorruptAsset("waveform JSON could not be parsed") from None
    if type(document) is not dict or document.get("format") != WAVEFORM_FORMAT:
        raise UnsupportedAsset("JSON document is not an openmed.waveform.v1 waveform")
    if not _envelope_validator().is_valid(document):
        raise CorruptAsset("waveform JSON does not match the openmed.waveform.v1 schema")
    rate = float(document["sampling_rate_hz"])
    if not math.isfinite(rate):
        raise CorruptAsset("ECG recording is outside the supported limits")
    scale = _UNIT_TO_MV[document["units"]]
    named: dict[str, npt.NDArray[np.float64]] = {}
    for lead in document["leads"]:
        if lead["name"] in named:
            raise CorruptAsset("waveform JSON names a lead twice")
        named[lead["name"]] = _samples_array(lead["samples"]) * scale
    return _build(rate, named)


# -- DICOM carrier ------------------------------------------------------------


def _lead_name(channel: Any) -> str | None:
    """Standard lead name of a channel from its source code, or ``None`` if not a standard lead."""
    sources = channel.get("ChannelSourceSequence")
    if not sources:
        return None
    code = sources[0]
    table = _CODES_BY_SCHEME.get(str(code.get("CodingSchemeDesignator", "")).strip())
    if table is not None:
        name = table.get(str(code.get("CodeValue", "")).strip())
        if name is not None:
            return name
    meaning = str(code.get("CodeMeaning", "")).strip()
    if meaning.casefold().startswith("lead "):
        meaning = meaning[5:].strip()
    if meaning.endswith(")") and "(" in meaning:
        meaning = meaning[: meaning.index("(")].strip()
    return _NAMES_BY_FOLDED.get(meaning.casefold())


def _channel_scale_to_mv(channel: Any) -> float:
    """Factor from the sensitivity-applied channel value to millivolts."""
    if "ChannelSensitivity" not in channel:
        raise UnsupportedAsset("DICOM ECG channel does not declare its sensitivity units")
    sensitivity = float(channel.ChannelSensitivity)
    units = channel.get("ChannelSensitivityUnitsSequence")
    if not units:
        raise UnsupportedAsset("DICOM ECG channel does not declare its sensitivity units")
    unit = str(units[0].get("CodeValue", "")).strip()
    if unit not in _DICOM_UNIT_TO_MV:
        raise UnsupportedAsset("DICOM ECG channel units are not a voltage this reader converts")
    correction = float(channel.get("ChannelSensitivityCorrectionFactor", 1.0))
    baseline = float(channel.get("ChannelBaseline", 0.0))
    if not all(math.isfinite(v) for v in (sensitivity, correction, baseline)):
        raise CorruptAsset("DICOM ECG channel calibration is not finite")
    if sensitivity == 0.0 or correction == 0.0:
        raise CorruptAsset("DICOM ECG channel calibration is zero")
    return _DICOM_UNIT_TO_MV[unit]


def _check_multiplex_group(group: Any) -> tuple[int, int]:
    """Refuse a multiplex group whose declared size is out of bounds, before decoding."""
    channels = int(group.NumberOfWaveformChannels)
    n_samples = int(group.NumberOfWaveformSamples)
    bits = int(group.WaveformBitsAllocated)
    interpretation = str(group.WaveformSampleInterpretation).strip()
    if not 1 <= channels <= MAX_DICOM_CHANNELS or not 1 <= n_samples <= MAX_SAMPLES_PER_LEAD:
        raise CorruptAsset("ECG recording is outside the supported limits")
    width = _SAMPLE_FORMATS.get((bits, interpretation))
    if width is None:
        raise UnsupportedAsset("DICOM ECG sample format is not plain integers")
    if len(group.WaveformData) < channels * n_samples * width:
        raise CorruptAsset("DICOM ECG waveform data is shorter than declared")
    if len(group.ChannelDefinitionSequence) != channels:
        raise CorruptAsset("DICOM ECG channel definitions do not match the channel count")
    return channels, n_samples


def _read_dicom(asset: bytes) -> Waveform:
    with quiet_pydicom():
        dataset = read_native_dicom(
            asset,
            unsupported="only native (uncompressed) DICOM ECG waveforms are read",
            corrupt="DICOM dataset could not be parsed",
        )
        with parse_boundary("DICOM dataset could not be parsed"):
            sop_class = str(dataset.get("SOPClassUID", "")).strip()
        if sop_class not in _ECG_SOP_CLASSES:
            raise UnsupportedAsset("DICOM object is not a 12-lead or General ECG waveform")
        with parse_boundary("DICOM ECG waveform could not be decoded"):
            waveform = _decode_ecg(dataset)
    return waveform


def _decode_ecg(dataset: Any) -> Waveform:
    sequence = dataset.get("WaveformSequence")
    if not sequence:
        raise CorruptAsset("DICOM ECG has no waveform sequence")
    group = sequence[0]
    channels, _ = _check_multiplex_group(group)
    rate = float(group.SamplingFrequency)
    if not math.isfinite(rate) or not MIN_SAMPLING_RATE_HZ <= rate <= MAX_SAMPLING_RATE_HZ:
        raise CorruptAsset("ECG recording is outside the supported limits")
    leads: list[tuple[int, str, float]] = []
    seen: set[str] = set()
    for index, channel in enumerate(group.ChannelDefinitionSequence):
        name = _lead_name(channel)
        if name is None:
            continue  # not one of the standard 12 leads (e.g. V4R, Frank leads)
        if name in seen:
            raise CorruptAsset("DICOM ECG names a lead twice")
        seen.add(name)
        leads.append((index, name, _channel_scale_to_mv(channel)))
    if not leads:
        raise UnsupportedAsset("DICOM ECG carries none of the standard 12 leads")
    data = np.asarray(dataset.waveform_array(0), dtype=np.float64)
    if data.shape[1] != channels:
        raise CorruptAsset("DICOM ECG waveform data is shorter than declared")
    named = {name: data[:, index] * scale for index, name, scale in leads}
    return _build(rate, named)
