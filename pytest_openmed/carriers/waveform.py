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

import json
import math
import re
import threading
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
#: A number without an exponent whose runs of digits are at most this long is
#: below 1e300, so finite as a float64 without being converted.
_SHORT_NUMBER = 300
#: The digit-run bound of number lists that write an exponent: it says nothing
#: of their size, so each of their numbers is converted to be checked.
_ANY_SIZE = 1 << 62


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
        _checked(data)
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
    rate, units, leads, n_samples = _checked(data)
    return WaveformJson(rate, units, tuple((name, bytes(text)) for name, text in leads), n_samples)


def _checked(data: bytes) -> tuple[float, str, list[tuple[str, memoryview]], int]:
    """:func:`check_waveform_json`, with each lead's samples a view of ``data`` (not copied)."""
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
    texts = [(name, arrays[index]) for name, index in leads]
    if not all(_finite(text, longest) for _, text in texts):
        raise CorruptAsset(_FINITE)
    return rate, units, texts, counts[leads[0][1]]


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


def _split_numbers(data: bytes) -> tuple[Any, list[memoryview], list[int], int] | None:
    """The document with each number list replaced by ``[index]``, the lists, their lengths
    and the length in bytes of the longest number.

    A number list here is a ``[`` whose next bracket is ``]``.  ``None`` when
    the rest is no JSON or some such run is not a list of JSON numbers: a
    document that is no valid waveform (in a valid one the runs are exactly the
    ``samples`` arrays, and no string holds a bracket).
    """
    pieces: list[bytes] = []
    arrays: list[memoryview] = []
    view = memoryview(data)
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
        arrays.append(view[start + 1 : close])
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


# -- the samples arrays: lists of JSON numbers, checked a whole byte run at a time --

#: One JSON number (RFC 8259 section 6): the exact grammar, used where the
#: byte masks below cannot decide alone (a '.' or 'e' after a long digit run).
_NUMBER = rb"-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+"
#: ``,`` + numbers separated by commas, each with at most one space either side + ``,``.
_NUMBER_LIST = re.compile(rb",(?: ?+" + _NUMBER + rb" ?+,)*+")
_DIGIT_RUN = re.compile(rb"[0-9]+")
_OTHER_WHITESPACE = bytes.maketrans(b"\t\n\r", b"   ")
_SPACE_RUN = re.compile(rb"  +")
#: Rounds of the look-back that pairs each '.' and 'e' with the mark before it:
#: it reaches over runs of up to ``2**_REACH - 1`` digits (a fraction before 'e'),
#: or ``2**_REACH_WITHOUT_EXPONENT - 1`` (an integer part before '.').
_REACH = 5
_REACH_WITHOUT_EXPONENT = 3


def _number_counts(arrays: list[memoryview]) -> tuple[list[int], int] | None:
    """How many JSON numbers each text lists (between its brackets), and a bound on digit runs.

    ``None`` if a text is not a comma-separated list of JSON numbers.  The texts
    are joined, with a comma before, between and after, and checked at once by
    :func:`_is_number_list`.  The bound is the length of the longest run of
    digits, or a number at least as large (:data:`_ANY_SIZE` when a number has
    an exponent).
    """
    import numpy as np

    filled = [(index, _stripped(text)) for index, text in enumerate(arrays)]
    filled = [(index, text) for index, text in filled if text]
    counts = [0] * len(arrays)
    if not filled:
        return counts, 0
    texts = [text for _, text in filled]
    size = sum(map(len, texts)) + len(texts) + 1  # ',' before, between and after
    joined = original = b",".join([b"", *texts, bytes(-size % _Packed.WIDTH)])  # see _Packed
    if b"\t" in joined or b"\n" in joined or b"\r" in joined:
        joined, size = _padded(_SPACE_RUN.sub(b" ", joined[:size].translate(_OTHER_WHITESPACE)))
    longest = _is_number_list(joined, size)
    if longest is None and b"  " in joined:  # a longer run of whitespace stands for one space
        longest = _is_number_list(*_padded(_SPACE_RUN.sub(b" ", joined[:size])))
    if longest is None:
        return None
    commas = _scratch_row(len(original))
    np.equal(np.frombuffer(original, dtype=np.uint8), ord(","), out=commas)
    start = 1  # each text follows a comma of its own
    for index, text in filled:
        counts[index] = int(np.count_nonzero(commas[start : start + len(text)])) + 1
        start += len(text) + 1
    return counts, longest


def _stripped(text: memoryview) -> memoryview:
    """``text`` without the JSON whitespace at either end (copied only when there is some)."""
    if text and (text[0] in _JSON_WHITESPACE or text[-1] in _JSON_WHITESPACE):
        return memoryview(bytes(text).strip(_JSON_WHITESPACE))
    return text


def _is_number_list(text: bytes, size: int) -> int | None:
    """A bound on the digit runs of ``text[:size]`` if it is a :data:`_NUMBER_LIST`, else ``None``.

    Each rule of the grammar is a comparison of byte masks shifted against each
    other, so numpy runs it over the whole text with no Python call per number.
    The masks are packed 64 bytes to a word (:class:`_Packed`; ``text`` is
    padded with zero bytes to whole words), so each rule costs a few operations
    on an eighth of the bytes:

    * every byte is followed by one that may follow it: a number starts with a
      digit or '-'; '-', '+' and '.' are followed by a digit; after 'e', a digit
      or a sign; after a digit, a digit, '.', 'e', ',' or ' '; '+' follows only
      'e'; a space stands between a comma and a number;
    * three- and four-byte rules: no space inside a number or between two
      commas; a number's leading 0 is not followed by a digit (``01``, ``-01``);
    * the order of '.' and 'e': looking back from a '.' over digits, the first
      other byte is no '.', 'e' or exponent sign; from an 'e', no 'e' or sign.
      The look-back reaches over up to ``2**_REACH - 1`` digits; a text where a
      '.' or 'e' follows a longer run is matched with the regular expression.
    """
    packed = _Packed(text, size)
    digit = packed.within(ord("0"), ord("9"))
    comma, space, minus, point, zero = (packed.equal(byte) for byte in b", -.0")
    # Most documents write no exponent: their 'e' and '+' masks are empty.
    has_exp = b"e" in text or b"E" in text
    has_plus = has_exp or b"+" in text
    exp = packed.letter(ord("e")) if has_exp else packed.none()
    plus = packed.equal(ord("+")) if has_plus else packed.none()
    later, earlier = packed.later, packed.earlier
    n_digit, n_minus, n_space, n_comma = later(digit), later(minus), later(space), later(comma)
    p_digit, p_comma, p_space = earlier(digit), earlier(comma), earlier(space)
    p_exp = earlier(exp) if has_exp else exp
    sign, n_start, between = minus | plus, n_digit | n_minus, p_comma | p_space
    bad = packed.inner(comma) & ~(n_start | n_space)  # a number starts with a digit or '-'
    bad |= space & ~(n_start | n_comma)
    bad |= digit & ~(n_digit | later(point | exp) | n_comma | n_space)
    bad |= (sign | point) & ~n_digit
    if has_exp:
        bad |= exp & ~(n_digit | later(sign))
        bad |= plus & ~p_exp
    elif has_plus:
        bad |= plus  # a '+' follows only an 'e'
    # Three and four bytes: a space inside a number or alone between commas; 01 and -01.
    bad |= space & ((p_digit & n_start) | (p_comma & n_comma))
    bad |= zero & between & n_digit
    bad |= minus & between & later(zero & n_digit)
    if bad.any():
        return None
    # Looking back from each byte over digits: has a '.' been seen, an 'e' or its sign?
    # Without any 'e' only the '.'s are followed, over the shorter integer parts.
    seen_point = earlier(point)
    seen_exp = p_exp | earlier(sign & p_exp) if has_exp else None
    reach = p_digit  # where the bytes looked back over are all digits
    for round_ in range(_REACH if has_exp else _REACH_WITHOUT_EXPONENT):
        step = 1 << round_
        seen_point |= earlier(seen_point, step) & reach
        if seen_exp is not None:
            seen_exp |= earlier(seen_exp, step) & reach
        reach = reach & earlier(reach, step)
    if (reach & (point | exp)).any():
        return _exact_number_list(text[:size])
    if seen_exp is not None:
        seen_point |= seen_exp
        if (exp & seen_exp).any():
            return None
    if (point & seen_point).any():
        return None
    if has_exp:
        return _ANY_SIZE
    if (digit == _Packed.FULL).any():  # a run of 64 aligned digits: measure the runs
        return max(map(len, _DIGIT_RUN.findall(text)))
    return 2 * _Packed.WIDTH - 2


def _exact_number_list(text: bytes) -> int | None:
    """:func:`_is_number_list` by the regular expression (a '.' or 'e' after a long digit run)."""
    if _NUMBER_LIST.fullmatch(text) is None:
        return None
    if b"e" in text or b"E" in text:
        return _ANY_SIZE
    return max(map(len, _DIGIT_RUN.findall(text)))


def _padded(text: bytes) -> tuple[bytes, int]:
    """``text`` with zero bytes up to a whole number of words (:class:`_Packed`), and its size."""
    return text + bytes(-len(text) % _Packed.WIDTH), len(text)


class _Packed:
    """Byte masks of one text packed into 64-bit words: bit ``i % 64`` of word ``i // 64``.

    The text is padded with zero bytes (in no mask) to a whole number of words;
    ``size`` is its length without them.  Each mask is computed into a reused
    scratch row and packed at once (:func:`_scratch_row`), so a check allocates
    no array as large as the text.

    ``later(m, k)`` holds at byte ``i`` what ``m`` holds at ``i + k``, and
    ``earlier`` what it holds at ``i - k`` (false beyond either end).  A run of
    at least ``2 * WIDTH - 1`` equal bits fills a whole word.
    """

    WIDTH = 64
    FULL = (1 << 64) - 1

    def __init__(self, text: bytes, size: int) -> None:
        import numpy as np

        self.bytes = np.frombuffer(text, dtype=np.uint8)
        self.size = size

    def equal(self, value: int) -> Any:
        """Where the byte is ``value``."""
        import numpy as np

        row = _scratch_row(len(self.bytes))
        np.equal(self.bytes, value, out=row)
        return np.packbits(row, bitorder="little").view("<u8")

    def letter(self, lower: int) -> Any:
        """Where the byte is the ASCII letter ``lower`` in either case."""
        import numpy as np

        row = _scratch_row(len(self.bytes))
        folded = row.view(np.uint8)
        np.bitwise_or(self.bytes, 0x20, out=folded)  # 'E' becomes 'e'; no other byte does
        np.equal(folded, lower, out=row)
        return np.packbits(row, bitorder="little").view("<u8")

    def none(self) -> Any:
        """The empty mask."""
        import numpy as np

        return np.zeros(len(self.bytes) // self.WIDTH, dtype="<u8")

    def within(self, low: int, high: int) -> Any:
        """Where the byte lies in ``low..high``."""
        import numpy as np

        row = _scratch_row(len(self.bytes))
        offset = row.view(np.uint8)
        np.subtract(self.bytes, low, out=offset)  # wraps around below ``low``
        np.less_equal(offset, high - low, out=row)
        return np.packbits(row, bitorder="little").view("<u8")

    def inner(self, bits: Any) -> Any:
        """``bits`` without its last byte (which no byte follows)."""
        last = self.size - 1
        result = bits.copy()
        result[last // 64] &= ~(1 << (last % 64)) & self.FULL
        return result

    @staticmethod
    def later(bits: Any, step: int = 1) -> Any:
        result = bits >> step
        result[:-1] |= bits[1:] << (64 - step)
        return result

    @staticmethod
    def earlier(bits: Any, step: int = 1) -> Any:
        result = bits << step
        result[1:] |= bits[:-1] >> (64 - step)
        return result


#: The scratch row kept between checks (per thread), up to this many bytes.
_KEPT_SCRATCH = 1 << 20
_SCRATCH = threading.local()


def _scratch_row(size: int) -> Any:
    """A boolean row of ``size``, reused between checks of texts up to 1 MiB.

    Fresh memory for each mask of each check costs more than the rules (the
    pages are faulted in anew each time); a row that is kept is not.  One row
    serves every mask, so a check keeps little besides its text in cache.
    """
    import numpy as np

    row = getattr(_SCRATCH, "row", None)
    if row is None or len(row) < size:
        row = np.empty(size, dtype=bool)
        if size <= _KEPT_SCRATCH:
            _SCRATCH.row = row
    return row[:size]


def _finite(text: memoryview, longest: int) -> bool:
    """Whether every number of a checked number list is a finite float64.

    ``longest`` bounds the digit runs of every number (:func:`_number_counts`).
    Numbers without an exponent whose digit runs are at most
    :data:`_SHORT_NUMBER` long are finite by their size; otherwise each is
    converted (only documents that write exponents or huge numbers pay for it).
    """
    if longest <= _SHORT_NUMBER:
        return True
    return all(math.isfinite(float(number)) for number in bytes(text).split(b","))


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
