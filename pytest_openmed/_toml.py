"""Reading the plugin's TOML files (gate files, waivers): located, value-free errors.

``tomllib`` messages can quote keys from the document, so only the position
of a syntax error is kept (line and column, 1-based), never its text.  A UTF-8
byte-order mark is accepted, as editors on some platforms write one.  Nesting
deep enough to exhaust the parser's recursion is a syntax error like any other.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_openmed.errors import InputRefused

#: Longest key or label a message echoes; longer ones end in "…".
MAX_ECHO_CHARS = 40

_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)\s*$")
_BOM = "\ufeff"


class TomlError(InputRefused):
    """A TOML document could not be read; the message says where, never what: fix it there."""


def parse_toml(raw: bytes) -> dict[str, Any]:
    """The document of ``raw``; :class:`TomlError` for bad UTF-8, syntax or nesting."""
    import tomllib

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TomlError("is not UTF-8 text") from None
    if text.startswith(_BOM):
        text = text[len(_BOM) :]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _POSITION.search(str(error))
        if found is None:
            raise TomlError("is not valid TOML (at the end of the document)") from None
        line, column = found.groups()
        raise TomlError(f"is not valid TOML at line {line}, column {column}") from None
    except RecursionError:
        raise TomlError("is not valid TOML: it nests too deeply") from None
    except ValueError:
        # int() refuses literals over the interpreter's digit limit.
        raise TomlError("is not valid TOML: a number is too long") from None


def cap(text: str) -> str:
    """``text`` as a message may echo it: at most :data:`MAX_ECHO_CHARS` characters."""
    if len(text) <= MAX_ECHO_CHARS:
        return text
    return text[: MAX_ECHO_CHARS - 1] + "…"
