"""The ECG waveform carrier: lead names and codes, the JSON check, one decode to :class:`Waveform`.

PYTEST_DONT_REWRITE

Two carriers are read, told apart by content (never by name):

* ``openmed.waveform.v1`` JSON: :func:`check_waveform_json` accepts exactly
  the documents the shipped ``schemas/waveform.v1.schema.json`` accepts that
  also keep the reader rules its description states (each lead named once,
  leads of equal length, every sample a finite float64), written as UTF-8
  JSON without a repeated name in any object.  The multimodal engine sniffs
  with the same check, so a pack admits exactly the waveforms a component
  reads.  The check is written by hand, not run through a schema validator:
  the envelope (a few hundred bytes) is parsed with :mod:`json`, and the
  samples arrays are checked against the JSON number grammar as whole byte
  runs with numpy, with no Python call per sample;
* native (uncompressed) DICOM 12-lead / General ECG waveforms, decoded with
  pydicom's ``Dataset.waveform_array(0)`` (the first multiplex group), at any
  sampling rate, with units taken from each channel's sensitivity and
  sensitivity-units code.

Both give the same immutable value: a sampling rate, the standard lead names
present (in the standard order I, II, III, aVR, aVL, aVF, V1..V6) and float64
samples in millivolts.  Declared sizes are checked before anything is decoded;
every failure is a :class:`ComponentError` subclass with a fixed message.
numpy and pydicom load only when a check or a decode runs.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_openmed._validate import refuse_constant, unique_names
from pytest_openmed.carriers.boundary import parse_boundary
from pytest_openmed.carriers.dicom import has_dicom_prefix, quiet_pydicom, read_native_dicom
from pytest_openmed.errors import (
    ComponentError,
    CorruptAsset,
    InputRefused,
    InvalidArgument,
    UnsupportedAsset,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "MAX_DICOM_CHANNELS",
    "MAX_JSON_LEADS",
    "MAX_SAMPLES_PER_LEAD",
    "MAX_SAMPLING_RATE_HZ",
    "MDC_CODES",
    "MIN_SAMPLING_RATE_HZ",
    "SCPECG_CODES",
    "STANDARD_LEADS",
    "WAVEFORM_FORMAT",
    "WAVEFORM_UNITS",
    "Waveform",
    "WaveformJson",
    "check_waveform_json",
    "is_waveform_json",
    "read_waveform",
]

#: The closed set of lead names, in the order every :class:`Waveform` keeps them.
STANDARD_LEADS = ("I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6")
#: The ``format`` value of the JSON carrier.
WAVEFORM_FORMAT = "openmed.waveform.v1"
#: The ``units`` of the JSON carrier, and the factor of each to millivolts.
WAVEFORM_UNITS = {"mV": 1.0, "uV": 1e-3}
#: Sampling-rate bounds of either carrier (Hz).
MIN_SAMPLING_RATE_HZ = 100.0
MAX_SAMPLING_RATE_HZ = 2000.0
#: Most samples per lead (60 s at the highest rate); checked before decoding.
MAX_SAMPLES_PER_LEAD = 120_000
#: Most leads of the JSON carrier (each standard lead once).
MAX_JSON_LEADS = len(STANDARD_LEADS)
#: Most channels a DICOM multiplex group may declare; checked before decoding.
MAX_DICOM_CHANNELS = 64

#: Channel source codes of the standard leads (DICOM CID 3001), by coding scheme.
SCPECG_CODES = {
    "5.6.3-9-1": "I",
    "5.6.3-9-2": "II",
    "5.6.3-9-61": "III",
    "5.6.3-9-62": "aVR",
    "5.6.3-9-63": "aVL",
    "5.6.3-9-64": "aVF",
    **{f"5.6.3-9-{k + 2}": f"V{k}" for k in range(1, 7)},
}
MDC_CODES = {
    "2:1": "I",
    "2:2": "II",
    "2:61": "III",
    "2:62": "aVR",
    "2:63": "aVL",
    "2:64": "aVF",
    **{f"2:{k + 2}": f"V{k}" for k in range(1, 7)},
}

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
_CODES_BY_SCHEME = {"SCPECG": SCPECG_CODES, "MDC": MDC_CODES}
_NAMES_BY_FOLDED = {name.casefold(): name for name in STANDARD_LEADS}
_WHITESPACE_RUN = re.compile(rb"[ \t\n\r]+")


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
        import numpy as np

        rate = self.sampling_rate_hz
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            raise InvalidArgument("sampling_rate_hz must be a number")
        if not MIN_SAMPLING_RATE_HZ <= float(rate) <= MAX_SAMPLING_RATE_HZ:
            raise InputRefused("sampling_rate_hz is outside 100..2000 Hz")
        names = self.lead_names
        if type(names) is not tuple or not names or any(type(n) is not str for n in names):
            raise InvalidArgument("lead_names must be a non-empty tuple of str")
        if any(n not in STANDARD_LEADS for n in names):
            raise InputRefused("lead names must be drawn from the standard 12-lead set")
        order = [STANDARD_LEADS.index(n) for n in names]
        if order != sorted(set(order)):
            raise InputRefused("lead names must be unique and in standard order")
        if not isinstance(self.samples, np.ndarray):
            raise InvalidArgument("samples must be a numpy array")
        data = np.array(self.samples, dtype=np.float64, copy=True)
        if data.ndim != 2 or data.shape[0] != len(names):
            raise InputRefused("samples must have one row per lead")
        if not 1 <= data.shape[1] <= MAX_SAMPLES_PER_LEAD:
            raise InputRefused("samples per lead are outside the supported range")
        if not np.isfinite(data).all():
            raise InputRefused("samples must be finite")
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
    import numpy as np

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

_PARSE = "waveform JSON could not be parsed"
_NOT_V1 = "JSON document is not an openmed.waveform.v1 waveform"
_SCHEMA = "waveform JSON does not match the openmed.waveform.v1 schema"
_TWICE = "waveform JSON names a lead twice"
_LENGTHS = "ECG leads have different lengths"
_FINITE = "ECG samples must be finite numbers"

_TOP_KEYS = frozenset({"format", "sampling_rate_hz", "units", "leads"})
_LEAD_KEYS = frozenset({"name", "samples"})
_JSON_WHITESPACE = b" \t\n\r"
#: A number of at most this many bytes (sign, digits, point) and no exponent is
#: below 1e300, so finite as a float64 without being converted.
_SHORT_NUMBER = 300


@dataclass(frozen=True, slots=True)
class WaveformJson:
    """A checked ``openmed.waveform.v1`` document, samples still as JSON text.

    ``leads`` pairs each lead name (document order) with the text between the
    brackets of its ``samples`` array, proved a list of ``n_samples`` JSON
    numbers, each a finite float64.
    """

    sampling_rate_hz: float
    units: str
    leads: tuple[tuple[str, bytes], ...]
    n_samples: int

    def __repr__(self) -> str:
        return (
            f"WaveformJson(leads={len(self.leads)}, samples={self.n_samples}, "
            f"sampling_rate_hz={self.sampling_rate_hz:g})"
        )


def is_waveform_json(data: bytes) -> bool:
    """The sniff of the JSON carrier: whether :func:`check_waveform_json` accepts ``data``."""
    try:
        check_waveform_json(data)
    except ComponentError:
        return False
    return True


def check_waveform_json(data: bytes) -> WaveformJson:
    """Accept exactly a ``waveform.v1``-valid document that keeps the reader rules.

    Raises ``CorruptAsset`` for text that is not JSON, JSON that breaks the
    schema or a reader rule; ``UnsupportedAsset`` for a JSON document whose
    ``format`` is not ``openmed.waveform.v1``.  One pass over the bytes finds
    every bracketed run of number characters (in a valid document: exactly the
    ``samples`` arrays) and puts a numbered placeholder in its place; what is
    left, a few hundred bytes, is parsed with :mod:`json` and checked against
    the schema by hand, and the runs are checked as JSON number lists.
    """
    fast = _split_numbers(data)
    if fast is None:
        # A valid document always takes the fast route; this one only needs its refusal.
        document = _parse_json(data)
        if type(document) is not dict or document.get("format") != WAVEFORM_FORMAT:
            raise UnsupportedAsset(_NOT_V1)
        raise CorruptAsset(_SCHEMA)
    document, arrays, counts, longest = fast
    if type(document) is not dict or document.get("format") != WAVEFORM_FORMAT:
        raise UnsupportedAsset(_NOT_V1)
    rate, units, leads = _envelope(document, counts)
    names = [name for name, _ in leads]
    if len(set(names)) != len(names):
        raise CorruptAsset(_TWICE)
    if len({counts[index] for _, index in leads}) != 1:
        raise CorruptAsset(_LENGTHS)
    texts = tuple((name, arrays[index]) for name, index in leads)
    if not all(_finite(text, longest) for _, text in texts):
        raise CorruptAsset(_FINITE)
    return WaveformJson(rate, units, texts, counts[leads[0][1]])


def _envelope(
    document: dict[str, Any], counts: list[int]
) -> tuple[float, str, list[tuple[str, int]]]:
    """The schema's rules, by hand, over the document whose number lists are placeholders."""
    if document.keys() != _TOP_KEYS:
        raise CorruptAsset(_SCHEMA)
    rate, units, leads = document["sampling_rate_hz"], document["units"], document["leads"]
    if type(rate) not in (int, float) or not MIN_SAMPLING_RATE_HZ <= rate <= MAX_SAMPLING_RATE_HZ:
        raise CorruptAsset(_SCHEMA)
    if type(units) is not str or units not in WAVEFORM_UNITS:
        raise CorruptAsset(_SCHEMA)
    if type(leads) is not list or not 1 <= len(leads) <= MAX_JSON_LEADS:
        raise CorruptAsset(_SCHEMA)
    checked: list[tuple[str, int]] = []
    for lead in leads:
        if type(lead) is not dict or lead.keys() != _LEAD_KEYS:
            raise CorruptAsset(_SCHEMA)
        name, samples = lead["name"], lead["samples"]
        if type(name) is not str or name not in STANDARD_LEADS:
            raise CorruptAsset(_SCHEMA)
        # Every list of numbers became a placeholder [index]; any other list holds a non-number.
        if type(samples) is not list or len(samples) != 1 or type(samples[0]) is not int:
            raise CorruptAsset(_SCHEMA)
        if not 1 <= counts[samples[0]] <= MAX_SAMPLES_PER_LEAD:
            raise CorruptAsset(_SCHEMA)
        checked.append((name, samples[0]))
    return rate, units, checked


def _split_numbers(data: bytes) -> tuple[Any, list[bytes], list[int], int] | None:
    """The document with each number list replaced by ``[index]``, the lists, their lengths
    and the length in bytes of the longest number.

    A number list here is a ``[`` whose next bracket is ``]``.  ``None`` when
    the rest is no JSON or some such run is not a list of JSON numbers: a
    document that is no valid waveform (in a valid one the runs are exactly the
    ``samples`` arrays, and no string holds a bracket).
    """
    pieces: list[bytes] = []
    arrays: list[bytes] = []
    find = data.find
    last = position = 0
    close = -1
    while (start := find(b"[", position)) >= 0:
        if close < start and (close := find(b"]", start)) < 0:
            break
        inner = find(b"[", start + 1, close)
        if inner >= 0:
            position = inner
            continue
        pieces += (data[last:start], b"[%d]" % len(arrays))
        arrays.append(data[start + 1 : close])
        last = position = close + 1
    pieces.append(data[last:])
    numbers = _number_counts(arrays)
    if numbers is None:
        return None
    try:
        document = _parse_json(b"".join(pieces))
    except CorruptAsset:
        return None
    return document, arrays, *numbers


def _parse_json(text: bytes) -> Any:
    try:
        return json.loads(
            text.decode("utf-8"), parse_constant=refuse_constant, object_pairs_hook=unique_names
        )
    except Exception:  # any decoder failure, including recursion and int-size limits
        raise CorruptAsset(_PARSE) from None


# Byte classes of a number list.  Codes from _COMMA up are the ones a number
# may hold at most once of each ('.' and 'e', in that order) between commas.
_OTHER, _SPACE, _ZERO, _DIGIT, _MINUS, _PLUS, _COMMA, _POINT, _EXP = range(9)
#: Verdict bits of a byte trigram.
_BAD, _FOLD = 1, 2


@functools.cache
def _tables() -> tuple[bytes, Any, Any]:
    """Byte classes, trigram verdicts and ('.', 'e', ',') pair verdicts of the JSON number grammar.

    ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?``, separated by commas
    with whitespace only around them.  An exponent's ``-`` is read as ``+``
    (the caller swaps it), so every ``-`` left is a leading sign.
    """
    import numpy as np

    classes = np.full(256, _OTHER, dtype=np.uint8)
    for byte in _JSON_WHITESPACE:
        classes[byte] = _SPACE
    classes[ord("0")] = _ZERO
    classes[list(b"123456789")] = _DIGIT
    for char, code in ((b"-", _MINUS), (b"+", _PLUS), (b",", _COMMA), (b".", _POINT)):
        classes[char[0]] = code
    classes[list(b"eE")] = _EXP
    digits = {_ZERO, _DIGIT}
    starts = digits | {_MINUS}
    follows = {
        _COMMA: starts | {_SPACE},
        _SPACE: starts | {_SPACE, _COMMA},
        _ZERO: digits | {_POINT, _EXP, _COMMA, _SPACE},
        _DIGIT: digits | {_POINT, _EXP, _COMMA, _SPACE},
        _MINUS: digits,
        _PLUS: digits,
        _POINT: digits,
        _EXP: digits | {_PLUS, _MINUS},
    }
    trigrams = np.zeros(16 * 16 * 16, dtype=np.uint8)
    for a in range(16):
        for b in range(16):
            for c in range(16):
                if b not in follows.get(a, ()) or c not in follows.get(b, ()):
                    verdict = _BAD
                elif b == _ZERO and a in (_COMMA, _SPACE, _MINUS) and c in digits:
                    verdict = _BAD  # a leading zero followed by a digit
                elif b == _SPACE and ((a in digits and c in starts) or a == c == _COMMA):
                    verdict = _BAD  # space inside a number, or an empty one
                elif a == b == _SPACE:
                    verdict = _FOLD  # a longer run of spaces: fold it and look again
                else:
                    verdict = 0
                trigrams[(a << 8) | (b << 4) | c] = verdict
    events = np.zeros(256, dtype=bool)
    for a, b in ((_POINT, _POINT), (_EXP, _EXP), (_EXP, _POINT)):
        events[(a << 4) | b] = True
    return bytes(classes.tolist()), trigrams, events


def _number_counts(arrays: list[bytes]) -> tuple[list[int], int] | None:
    """How many JSON numbers each text lists (between its brackets), and a bound on number size.

    ``None`` if a text is not a list of JSON numbers.  Every byte is classed
    (``bytes.translate``) and every byte trigram looked up in one table with
    numpy; the order of '.' and 'e' within each number is read from the short
    sequence of those bytes and the commas.  No Python runs per number.  The
    bound is the longest run of bytes without ',', '.' or 'e'.
    """
    import numpy as np

    filled = [(index, text.strip(_JSON_WHITESPACE)) for index, text in enumerate(arrays)]
    filled = [(index, text) for index, text in filled if text]
    if not filled:
        return [0] * len(arrays), 0
    classes, trigrams, events = _tables()
    codes = _classes(b",".join(text for _, text in filled), classes)
    wide = codes.astype(np.uint16)
    verdicts = trigrams.take((wide[:-2] << 8) | (wide[1:-1] << 4) | wide[2:])
    if verdicts.any():
        if (verdicts & _BAD).any():
            return None
        # Runs of two or more whitespace bytes: each becomes one space (rare in practice).
        filled = [(index, _WHITESPACE_RUN.sub(b" ", text)) for index, text in filled]
        codes = _classes(b",".join(text for _, text in filled), classes)
        wide = codes.astype(np.uint16)
        if trigrams.take((wide[:-2] << 8) | (wide[1:-1] << 4) | wide[2:]).any():
            return None
    marks = np.flatnonzero(codes >= _COMMA)
    kinds = codes.take(marks)
    if events.take((kinds[:-1] << 4) | kinds[1:]).any():
        return None
    # A text holds one number more than commas: count its commas with the
    # separator before it (every separator is a mark; the final pad is left out).
    separators = np.cumsum([0] + [len(text) + 1 for _, text in filled[:-1]])
    seats = np.searchsorted(marks, separators)
    commas = np.add.reduceat(kinds[:-1] == _COMMA, seats, dtype=np.int64)
    counts = [0] * len(arrays)
    for (index, _), number in zip(filled, commas.tolist(), strict=True):
        counts[index] = number
    return counts, int(np.diff(marks).max())


def _classes(joined: bytes, classes: bytes) -> Any:
    """The byte classes of ``,joined,`` as a numpy array, an exponent's '-' read as '+'."""
    import numpy as np

    if b"e" in joined or b"E" in joined:
        joined = joined.replace(b"e-", b"e+").replace(b"E-", b"E+")
    return np.frombuffer((b"," + joined + b",").translate(classes), dtype=np.uint8)


def _finite(text: bytes, longest: int) -> bool:
    """Whether every number of a checked number list is a finite float64.

    Numbers of at most :data:`_SHORT_NUMBER` bytes without an exponent are, by
    their size; otherwise each is converted (only documents that write
    exponents or huge numbers pay for it).
    """
    if longest <= _SHORT_NUMBER and b"e" not in text and b"E" not in text:
        return True
    return all(math.isfinite(float(number)) for number in text.split(b","))


def _samples(text: bytes) -> npt.NDArray[np.float64]:
    """The float64 values of a checked number list."""
    import numpy as np

    return np.fromiter(map(float, text.split(b",")), dtype=np.float64)


def _read_json(asset: bytes) -> Waveform:
    checked = check_waveform_json(asset)
    scale = WAVEFORM_UNITS[checked.units]
    named = {name: _samples(text) * scale for name, text in checked.leads}
    return _build(float(checked.sampling_rate_hz), named)


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
    import numpy as np

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
