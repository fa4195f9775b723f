"""Bounded, streamed reading of the JSON files gates are given.

PYTEST_DONT_REWRITE

A file far larger than any legitimate evaluation must cost little to refuse.
Parsing a whole file before counting its records needs gigabytes for a file
the limits refuse anyway (a 64 MiB file of a million small records is
1.6 GiB of Python objects), so here the size is checked before reading, text
is decoded chunk by chunk, and records are counted while they are parsed: a
refused file never holds more than ``limit`` records in memory.

Every refusal is one :class:`RecordFileError` carrying a closed
:class:`Refusal` and, for JSON Lines, the 1-based line; callers turn it into
their own fixed message in one place, where the input's name and the line can
be attached.  Nothing here echoes a path or any content.
"""

from __future__ import annotations

import codecs
import enum
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pytest_openmed._validate import refuse_constant_hook, unique_names_hook
from pytest_openmed.errors import InputRefused

__all__ = [
    "RecordFileError",
    "Refusal",
    "json_value_bound",
    "read_records",
    "unique_fields",
]

#: Bytes read per chunk.
_CHUNK = 1024 * 1024
#: JSON's own whitespace (``json`` accepts exactly these between tokens).
_JSON_SPACE = " \t\n\r"
#: A decode error this close to the end of the text read so far may be truncation.
_TRUNCATION_MARGIN = 16


class Refusal(enum.Enum):
    """Why a file was refused (closed set; callers map each to a fixed message)."""

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


def json_value_bound(data: bytes) -> int:
    """An upper bound on the number of JSON values in ``data``, without parsing it.

    Every value is the root, the first member of a container or follows a
    comma, so values ≤ 1 + commas + opening brackets (commas and brackets inside
    strings only raise the bound).  Counting bytes runs at memory speed, so a
    document can be refused by its size in values before ``json`` builds it.
    """
    return 1 + data.count(b",") + data.count(b"{") + data.count(b"[")


#: ``object_pairs_hook`` refusing an object that repeats a name (readers disagree on its content).
unique_fields = unique_names_hook(lambda: RecordFileError(Refusal.DUPLICATE_KEY))


def read_records(
    path: Path,
    *,
    limit: int,
    max_bytes: int,
    hook: Callable[[list[tuple[str, Any]]], Any] = unique_fields,
) -> list[dict[str, Any]]:
    """The records of a JSON array (first non-blank character ``[``) or JSON Lines file.

    At most ``limit`` records are kept; one more is a :attr:`Refusal.TOO_MANY`
    as soon as it is met.  ``hook`` is the ``object_pairs_hook`` (by default
    :func:`unique_fields`; it refuses by raising :class:`RecordFileError`).  A whitespace-only
    file is :attr:`Refusal.EMPTY`; blank JSON Lines lines are skipped; a record
    that is not an object is :attr:`Refusal.RECORD_TYPE`, reported after the
    whole file parsed (a syntax error later in the file is reported first).
    """
    try:
        handle = open(path, "rb")  # closed by the with-block below, on every path
    except (OSError, TypeError, ValueError):
        raise RecordFileError(Refusal.UNREADABLE) from None
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            raise RecordFileError(Refusal.UNREADABLE) from None
        if size > max_bytes:
            raise RecordFileError(Refusal.TOO_LARGE)
        stream = _Stream(handle, max_bytes)
        if not stream.skip(str.isspace):
            raise RecordFileError(Refusal.EMPTY)
        decoder = json.JSONDecoder(object_pairs_hook=hook, parse_constant=_refuse_constant)
        if stream.text[stream.pos] != "[":
            return _lines(stream, decoder, limit)
        return _array(stream, decoder, limit)


_refuse_constant = refuse_constant_hook(lambda: RecordFileError(Refusal.NOT_JSON))


class _Stream:
    """UTF-8 text of a binary file, decoded chunk by chunk, with a read cursor.

    ``text[pos:]`` is what has been read but not consumed; :meth:`more` drops
    the consumed prefix before reading on, so memory follows the cursor.
    """

    def __init__(self, handle: IO[bytes], max_bytes: int) -> None:
        self._handle = handle
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
        self._read = 0
        self._max = max_bytes
        self.text = ""
        self.pos = 0
        self.eof = False
        self._dropped_lines = 0

    @property
    def line(self) -> int:
        """The 1-based line of the cursor (counted only when asked: errors are rare)."""
        return self._dropped_lines + self.text.count("\n", 0, self.pos) + 1

    def more(self, at_least: int = 0) -> bool:
        """Read on (at least ``at_least`` bytes); False once the file is exhausted."""
        if self.eof:
            return False
        if self.pos:
            self._dropped_lines += self.text.count("\n", 0, self.pos)
            self.text = self.text[self.pos :]
            self.pos = 0
        try:
            data = self._handle.read(max(at_least, _CHUNK))
        except OSError:
            raise RecordFileError(Refusal.UNREADABLE) from None
        self._read += len(data)
        if self._read > self._max:  # the file grew after its size was checked
            raise RecordFileError(Refusal.TOO_LARGE)
        try:
            self.text += self._decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise RecordFileError(Refusal.NOT_UTF8) from None
        self.eof = not data
        return True

    def skip(self, space: Callable[[str], bool]) -> bool:
        """Move past characters for which ``space`` holds; False at the end of the file."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and space(text[pos]):
                pos += 1
            self.pos = pos
            if pos < len(text):
                return True
            if not self.more():
                return False

    def decode(self, decoder: json.JSONDecoder) -> Any:
        """One JSON value at the cursor, reading on while it may be cut off."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as error:
                truncated = error.pos >= len(
                    self.text
                ) - _TRUNCATION_MARGIN or error.msg.startswith("Unterminated string")
                if truncated and self.more(len(self.text)):
                    continue
                raise RecordFileError(Refusal.NOT_JSON) from None
            except RecursionError:
                raise RecordFileError(Refusal.NOT_JSON) from None
            if end >= len(self.text) and self.more(len(self.text)):
                continue  # a number or literal may go on in the next chunk
            self.pos = end
            return value


def _json_space(char: str) -> bool:
    return char in _JSON_SPACE


def _array(stream: _Stream, decoder: json.JSONDecoder, limit: int) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    count = 0
    wrong_type = False
    stream.pos += 1  # the "["
    if not stream.skip(_json_space):
        raise RecordFileError(Refusal.NOT_JSON)
    if stream.text[stream.pos] == "]":
        stream.pos += 1
    else:
        while True:
            if not stream.skip(_json_space):
                raise RecordFileError(Refusal.NOT_JSON)
            if count == limit:
                raise RecordFileError(Refusal.TOO_MANY)
            value = stream.decode(decoder)
            count += 1
            if type(value) is dict:
                records.append(value)
            else:
                wrong_type = True
            if not stream.skip(_json_space):
                raise RecordFileError(Refusal.NOT_JSON)
            separator = stream.text[stream.pos]
            stream.pos += 1
            if separator == "]":
                break
            if separator != ",":
                raise RecordFileError(Refusal.NOT_JSON)
    if stream.skip(_json_space):
        raise RecordFileError(Refusal.NOT_JSON)  # anything after the array
    if wrong_type:
        raise RecordFileError(Refusal.RECORD_TYPE)
    return records


def _lines(stream: _Stream, decoder: json.JSONDecoder, limit: int) -> list[dict[str, Any]]:
    """JSON Lines: only ``"\\n"`` ends a record (JSON strings may hold U+2028 raw)."""
    records: list[dict[str, Any]] = []
    count = 0
    first_wrong_type: int | None = None
    line_number = stream.line - 1  # leading blank lines were skipped
    while True:
        scanned = 0
        end = stream.text.find("\n", stream.pos)
        while end < 0:
            scanned = len(stream.text) - stream.pos
            if not stream.more():
                break
            end = stream.text.find("\n", stream.pos + scanned)
        last = end < 0
        line = stream.text[stream.pos :] if last else stream.text[stream.pos : end]
        stream.pos = len(stream.text) if last else end + 1
        line_number += 1
        if line.strip():
            if count == limit:
                raise RecordFileError(Refusal.TOO_MANY, line_number)
            value = _line_value(decoder, line, line_number)
            count += 1
            if type(value) is dict:
                records.append(value)
            elif first_wrong_type is None:
                first_wrong_type = line_number
        if last:
            break
    if first_wrong_type is not None:
        raise RecordFileError(Refusal.RECORD_TYPE, first_wrong_type)
    return records


def _line_value(decoder: json.JSONDecoder, line: str, line_number: int) -> Any:
    try:
        return decoder.decode(line)
    except RecordFileError as error:
        raise RecordFileError(error.reason, line_number) from None
    except (ValueError, RecursionError):
        raise RecordFileError(Refusal.NOT_JSON, line_number) from None
