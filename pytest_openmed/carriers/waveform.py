"""The ECG waveform carrier ``openmed.waveform.v1``: its check, and the one ECG decode.

:func:`check_waveform_json` accepts exactly the documents the shipped
``schemas/waveform.v1.schema.json`` accepts that also keep the reader rules
its description states (each lead named once, leads of equal length, every
sample a finite float64), written as UTF-8 JSON without a repeated name in any
object.  The multimodal engine sniffs with the same check, so a pack admits
exactly the waveforms a component reads.  The document is parsed with
:mod:`json`, the schema's rules are written out (a schema validator is a heavy
import) and the samples are checked with numpy.

:func:`read_waveform` tells this carrier and native DICOM ECG
(:mod:`pytest_openmed.carriers.ecg`) apart by content, never by name, and
decodes either to one :class:`~pytest_openmed.carriers.ecg.Waveform`.

Cost (``benchmarks/multimodal.py``): parsing every sample as a Python float is
most of it, about 9 ms for a 238 KiB 12-lead waveform on a loaded 2-core
machine where the byte-mask check this replaced took 0.5 ms; a 64 MiB pack
whose quarter is waveforms spends some 0.3 to 0.6 s on them, against components
that run for seconds (``docs/architecture.md``, the standard library first).
The last document checked is kept, so the same bytes sniffed by a pack and
read by a component (or by two configurations) are parsed once.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_openmed._validate import refuse_constant, unique_names
from pytest_openmed.carriers.dicom import has_dicom_prefix
from pytest_openmed.carriers.ecg import (
    LEADS_DIFFER,
    MAX_SAMPLES_PER_LEAD,
    MAX_SAMPLING_RATE_HZ,
    MIN_SAMPLING_RATE_HZ,
    SAMPLES_NOT_FINITE,
    STANDARD_LEADS,
    Waveform,
    build_waveform,
    read_dicom_ecg,
)
from pytest_openmed.errors import ComponentError, CorruptAsset, UnsupportedAsset

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "MAX_JSON_LEADS",
    "WAVEFORM_FORMAT",
    "WAVEFORM_UNITS",
    "WaveformJson",
    "check_waveform_json",
    "is_waveform_json",
    "read_waveform",
]

#: The ``format`` value of the JSON carrier.
WAVEFORM_FORMAT = "openmed.waveform.v1"
#: The ``units`` of the JSON carrier, and the factor of each to millivolts.
WAVEFORM_UNITS = {"mV": 1.0, "uV": 1e-3}
#: Most leads of the JSON carrier (each standard lead once).
MAX_JSON_LEADS = len(STANDARD_LEADS)


def read_waveform(asset: bytes) -> Waveform:
    """Decode an ECG carrier, recognised by its content, into a :class:`Waveform`."""
    if has_dicom_prefix(asset):
        return read_dicom_ecg(asset)
    if asset.lstrip(b" \t\r\n")[:1] == b"{":
        return _read_json(asset)
    raise UnsupportedAsset("asset is neither an openmed.waveform.v1 document nor a DICOM ECG")


# -- JSON carrier -------------------------------------------------------------

_PARSE = "waveform JSON could not be parsed"
_NOT_V1 = "JSON document is not an openmed.waveform.v1 waveform"
_SCHEMA = "waveform JSON does not match the openmed.waveform.v1 schema"
_TWICE = "waveform JSON names a lead twice"

_TOP_KEYS = frozenset({"format", "sampling_rate_hz", "units", "leads"})
_LEAD_KEYS = frozenset({"name", "samples"})
_NUMBER_TYPES = frozenset({int, float})


@dataclass(frozen=True, slots=True)
class WaveformJson:
    """A checked ``openmed.waveform.v1`` document.

    ``leads`` pairs each lead name (document order) with its ``n_samples``
    samples as read-only float64, in the document's ``units``.
    """

    sampling_rate_hz: float
    units: str
    leads: tuple[tuple[str, npt.NDArray[np.float64]], ...]
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
    ``format`` is not ``openmed.waveform.v1``.  The document is parsed with
    :mod:`json` and the schema's rules are written out here (a schema validator
    is a heavy import and many times slower); the samples go to numpy at once.
    The result for the last ``bytes`` checked is kept (its arrays are
    read-only): a sniff followed by a decode of the same asset parses it once.
    """
    if type(data) is bytes:
        return _check_kept(data)
    return _check(data)


@functools.lru_cache(maxsize=1)
def _check_kept(data: bytes) -> WaveformJson:
    """:func:`_check` of the last ``bytes`` checked; a refusal is raised again, never kept."""
    return _check(data)


def _check(data: bytes) -> WaveformJson:
    """The check itself: parse, the schema's rules, the reader rules, the samples."""
    try:
        document = json.loads(
            data.decode("utf-8"), parse_constant=refuse_constant, object_pairs_hook=unique_names
        )
    except Exception:  # any decoder failure, including recursion and int-size limits
        raise CorruptAsset(_PARSE) from None
    if type(document) is not dict or document.get("format") != WAVEFORM_FORMAT:
        raise UnsupportedAsset(_NOT_V1)
    rate, units, leads = _envelope(document)
    names = [name for name, _ in leads]
    if len(set(names)) != len(names):
        raise CorruptAsset(_TWICE)
    if len({len(samples) for _, samples in leads}) != 1:
        raise CorruptAsset(LEADS_DIFFER)
    arrays = tuple((name, _finite_samples(samples)) for name, samples in leads)
    return WaveformJson(rate, units, arrays, len(leads[0][1]))


def _envelope(document: dict[str, Any]) -> tuple[float, str, list[tuple[str, list[Any]]]]:
    """The rules of ``schemas/waveform.v1.schema.json``, over the parsed document."""
    if document.keys() != _TOP_KEYS:
        raise CorruptAsset(_SCHEMA)
    rate, units, leads = document["sampling_rate_hz"], document["units"], document["leads"]
    if type(rate) not in _NUMBER_TYPES or not MIN_SAMPLING_RATE_HZ <= rate <= MAX_SAMPLING_RATE_HZ:
        raise CorruptAsset(_SCHEMA)
    if type(units) is not str or units not in WAVEFORM_UNITS:
        raise CorruptAsset(_SCHEMA)
    if type(leads) is not list or not 1 <= len(leads) <= MAX_JSON_LEADS:
        raise CorruptAsset(_SCHEMA)
    checked: list[tuple[str, list[Any]]] = []
    for lead in leads:
        if type(lead) is not dict or lead.keys() != _LEAD_KEYS:
            raise CorruptAsset(_SCHEMA)
        name, samples = lead["name"], lead["samples"]
        if type(name) is not str or name not in STANDARD_LEADS:
            raise CorruptAsset(_SCHEMA)
        if type(samples) is not list or not 1 <= len(samples) <= MAX_SAMPLES_PER_LEAD:
            raise CorruptAsset(_SCHEMA)
        if not set(map(type, samples)) <= _NUMBER_TYPES:  # no bool, string, null or container
            raise CorruptAsset(_SCHEMA)
        checked.append((name, samples))
    return float(rate), units, checked


def _finite_samples(samples: list[float]) -> npt.NDArray[np.float64]:
    """The samples as read-only float64; ``1e400`` or ``10**400`` is not finite."""
    import numpy as np

    try:
        array = np.array(samples, dtype=np.float64)
    except OverflowError:  # an integer beyond float64
        raise CorruptAsset(SAMPLES_NOT_FINITE) from None
    if not np.isfinite(array).all():
        raise CorruptAsset(SAMPLES_NOT_FINITE)
    array.flags.writeable = False
    return array


def _read_json(asset: bytes) -> Waveform:
    checked = check_waveform_json(asset)
    scale = WAVEFORM_UNITS[checked.units]
    named = {name: samples * scale for name, samples in checked.leads}
    return build_waveform(checked.sampling_rate_hz, named)
