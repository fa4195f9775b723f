"""The one JSON reading policy: every JSON document the package reads goes through it.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

* **Size first.** A file's size is checked before a byte of it is read
  (:func:`read_limited`), and what is read is bounded again, in case it grew.
* **Strict JSON** (:func:`strict_decoder`, :func:`loads`): UTF-8; no object
  repeats a name (readers disagree on which value wins); no ``NaN`` or
  ``Infinity``; every number a finite float64 (``1e400`` is refused, not read
  as infinity) and every integer within :data:`MAX_JSON_INT`, so a number
  that passes can be formatted, compared and converted anywhere downstream;
  nesting too deep for the parser is refused, not a crash.
* **Records bounded while parsed** (:func:`read_records`): a file far larger
  than any legitimate evaluation must cost little to refuse.  ``json.loads``
  of a 47 MB array of small records needs some 800 MiB, so records are
  parsed one at a time (``raw_decode`` over the whole text) and counted: a
  refused file never holds more than ``limit`` records beside its text.

Each caller keeps its own fixed, value-free messages and error types: a rule
takes a ``refuse`` (:data:`~pytest_openmed._validate.Refuse`).  Claims inputs
get a :class:`RecordFileError` carrying a closed :class:`Refusal` and, for
JSON Lines, the 1-based line.  Nothing here echoes a path or any content.
"""

from __future__ import annotations

import enum
import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from pytest_openmed._validate import (
    MAX_SEED,
    Refuse,
    refusal,
    refuse_constant_hook,
    unique_names_hook,
)
from pytest_openmed.errors import InputRefused

#: What the policy refuses beyond plain JSON syntax; every reader's "not strict JSON"
#: refusal quotes it, so a user whose file parses elsewhere learns why it was refused here.
POLICY_REFUSALS = "a repeated name, a number out of range or too deep a nesting is refused"
#: The largest integer magnitude read (a signed 64-bit integer, as numpy and other readers take).
MAX_JSON_INT = MAX_SEED
#: Bytes read at a time past the size a file had when it was opened.
_CHUNK = 1 << 20
#: JSON's own whitespace (``json`` accepts exactly these between tokens).
_SPACE = re.compile(r"[ \t\n\r]*")


def read_limited(path: Path, max_bytes: int, *, too_large: Refuse, unreadable: Refuse) -> bytes:
    """The bytes of ``path``, refused by its size before any is read (and again if it grew).

    A message given as ``unreadable`` becomes a bare ``OSError``; ``too_large``
    an :class:`~pytest_openmed.errors.InputRefused`.
    """
    try:
        handle = open(path, "rb")  # closed by the with-block below, on every path
    except (OSError, TypeError, ValueError):
        raise refusal(unreadable, OSError) from None
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            raise refusal(unreadable, OSError) from None
        if size > max_bytes:
            raise refusal(too_large)
        try:
            chunks = [handle.read(size + 1)]  # one more byte shows a file that grew
            total = len(chunks[0])
            while total > size and total <= max_bytes and (chunk := handle.read(_CHUNK)):
                chunks.append(chunk)
                total += len(chunk)
        except OSError:
            raise refusal(unreadable, OSError) from None
    if total > max_bytes:
        raise refusal(too_large)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def strict_decoder(
    refuse: Refuse, *, duplicate: Refuse | None = None, numbers: Refuse | None = None
) -> json.JSONDecoder:
    """A decoder keeping the policy.

    ``duplicate`` refuses a repeated name and ``numbers`` a number out of range
    (``1e400``, a 400-digit integer), where a reader says so in its own words;
    both default to ``refuse``.
    """
    out_of_range = refuse if numbers is None else numbers
    return json.JSONDecoder(
        object_pairs_hook=unique_names_hook(refuse if duplicate is None else duplicate),
        parse_constant=refuse_constant_hook(refuse),
        parse_float=_finite_float_hook(out_of_range),
        parse_int=_bounded_int_hook(out_of_range),
    )


def loads(
    data: bytes | str,
    refuse: Refuse,
    *,
    duplicate: Refuse | None = None,
    numbers: Refuse | None = None,
) -> Any:
    """One JSON document (UTF-8 bytes or text) under the policy; any failure is ``refuse``."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return strict_decoder(refuse, duplicate=duplicate, numbers=numbers).decode(text)
    except InputRefused:
        raise
    except (ValueError, RecursionError):  # syntax, encoding, int-size limit, nesting
        raise refusal(refuse) from None


def _finite_float_hook(refuse: Refuse) -> Callable[[str], float]:
    def hook(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise refusal(refuse)
        return value

    return hook


def _bounded_int_hook(refuse: Refuse) -> Callable[[str], int]:
    digits = len(str(MAX_JSON_INT)) + 1  # a sign, then at most as many digits as the bound

    def hook(text: str) -> int:
        if len(text) > digits or abs(value := int(text)) > MAX_JSON_INT:
            raise refusal(refuse)
        return value

    return hook


def json_value_bound(data: bytes) -> int:
    """An upper bound on the number of JSON values in ``data``, without parsing it.

    Every value is the root, the first member of a container or follows a
    comma, so values ≤ 1 + commas + opening brackets (commas and brackets inside
    strings only raise the bound).  Counting bytes runs at memory speed, so a
    document can be refused by its size in values before ``json`` builds it.
    """
    return 1 + data.count(b",") + data.count(b"{") + data.count(b"[")


class Refusal(enum.Enum):
    """Why a records file was refused (closed set; callers map each to a fixed message)."""

    UNREADABLE = "unreadable"
    TOO_LARGE = "too_large"
    EMPTY = "empty"
    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    RECORD_TYPE = "record_type"
    TOO_MANY = "too_many"


class RecordFileError(InputRefused):
    """A JSON input file was refused: why, and (JSON Lines only) on which 1-based line."""

    def __init__(self, reason: Refusal, line: int | None = None) -> None:
        super().__init__(reason.value)
        self.reason = reason
        self.line = line


def _refused(reason: Refusal) -> Callable[[], RecordFileError]:
    return lambda: RecordFileError(reason)


def read_records(path: Path, *, limit: int, max_bytes: int) -> list[dict[str, Any]]:
    """The records of a JSON array (first non-blank character ``[``) or JSON Lines file.

    At most ``limit`` records are kept; one more is a :attr:`Refusal.TOO_MANY`
    as soon as it is met.  A whitespace-only file is :attr:`Refusal.EMPTY`;
    blank JSON Lines lines are skipped; a record that is not an object is
    :attr:`Refusal.RECORD_TYPE`, reported after the whole file parsed (a syntax
    error later in the file is reported first).  A UTF-8 byte order mark is
    allowed.
    """
    data = read_limited(
        path,
        max_bytes,
        too_large=_refused(Refusal.TOO_LARGE),
        unreadable=_refused(Refusal.UNREADABLE),
    )
    decoder = strict_decoder(_refused(Refusal.NOT_JSON), duplicate=_refused(Refusal.DUPLICATE_KEY))
    start = _LEADING.match(data)
    assert start is not None  # the pattern matches the empty string too
    if start.end() == len(data):
        raise RecordFileError(Refusal.EMPTY)
    if data[start.end() : start.end() + 1] != b"[":
        return _lines(data, decoder, limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RecordFileError(Refusal.NOT_UTF8) from None
    del data  # the text alone is held while records are parsed
    return _array(text, decoder, limit)


_BOM = b"\xef\xbb\xbf"
#: A byte order mark and blank space before the first record.
_LEADING = re.compile(rb"(?:\xef\xbb\xbf)?\s*")


def _decode(decoder: json.JSONDecoder, text: str, pos: int) -> tuple[Any, int]:
    try:
        return decoder.raw_decode(text, pos)
    except RecordFileError:
        raise
    except (ValueError, RecursionError):
        raise RecordFileError(Refusal.NOT_JSON) from None


def _skip(text: str, pos: int) -> int:
    """The position after the JSON whitespace at ``pos``."""
    space = _SPACE.match(text, pos)
    assert space is not None  # the pattern matches the empty string too
    return space.end()


def _not_json() -> NoReturn:
    raise RecordFileError(Refusal.NOT_JSON)


def _array(text: str, decoder: json.JSONDecoder, limit: int) -> list[dict[str, Any]]:
    """The elements of the one array in ``text``, parsed and counted one at a time."""
    records: list[dict[str, Any]] = []
    count = 0
    wrong_type = False
    pos = _skip(text, text.index("[") + 1)  # the first non-space character is the "["
    if text[pos : pos + 1] == "]":
        pos += 1
    else:
        while True:
            if count == limit:
                raise RecordFileError(Refusal.TOO_MANY)
            value, pos = _decode(decoder, text, pos)
            count += 1
            if type(value) is dict:
                records.append(value)
            else:
                wrong_type = True
            pos = _skip(text, pos)
            separator = text[pos : pos + 1]
            pos = _skip(text, pos + 1)
            if separator == "]":
                break
            if separator != ",":
                _not_json()
    if pos != len(text):
        _not_json()  # anything after the array
    if wrong_type:
        raise RecordFileError(Refusal.RECORD_TYPE)
    return records


def _lines(data: bytes, decoder: json.JSONDecoder, limit: int) -> list[dict[str, Any]]:
    """JSON Lines: only ``"\\n"`` ends a record (JSON strings may hold U+2028 raw).

    Each line is decoded on its own, so bytes past the record limit are never decoded.
    """
    records: list[dict[str, Any]] = []
    count = 0
    first_wrong_type: int | None = None
    pos = len(_BOM) if data.startswith(_BOM) else 0
    number = 0
    while pos <= len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        line, pos, number = data[pos:end], end + 1, number + 1
        if not line.strip():
            continue
        if count == limit:
            raise RecordFileError(Refusal.TOO_MANY, number)
        try:
            text = line.decode("utf-8")
            value = decoder.decode(text)
        except UnicodeDecodeError:
            raise RecordFileError(Refusal.NOT_UTF8, number) from None
        except RecordFileError as error:
            raise RecordFileError(error.reason, number) from None
        except (ValueError, RecursionError):
            raise RecordFileError(Refusal.NOT_JSON, number) from None
        count += 1
        if type(value) is dict:
            records.append(value)
        elif first_wrong_type is None:
            first_wrong_type = number
    if first_wrong_type is not None:
        raise RecordFileError(Refusal.RECORD_TYPE, first_wrong_type)
    return records
