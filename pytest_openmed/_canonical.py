"""Canonical JSON, digests, HMAC and atomic writes.

PYTEST_DONT_REWRITE

Every engine fingerprints, seals and bounds its inputs the same way; these
helpers are the one place that way is written down.  Nothing here imports a
heavy dependency, so the plugin may use it at load time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import tempfile
import threading
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from pytest_openmed.errors import InputRefused, InvalidArgument

#: ``sha256:`` followed by 64 lowercase hex digits: the only digest form we accept or emit.
DIGEST_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")

#: Shortest HMAC key accepted anywhere in the package.
MIN_KEY_BYTES = 32


#: The one encoder of canonical JSON: keys sorted, no insignificant whitespace,
#: non-ASCII escaped, NaN and infinities refused (they are not JSON).  Built
#: once: packs and reviews encode thousands of small documents.
_ENCODER = json.JSONEncoder(
    sort_keys=True,
    separators=(",", ":"),
    ensure_ascii=True,
    allow_nan=False,
)


#: Per thread: the C encoder built once, and the markers it keeps of open containers.
_THREAD = threading.local()


def canonical_json(value: Any) -> str:
    """Serialise ``value`` so that equal documents give equal text."""
    encoder = _one_shot_encoder()
    if encoder is None or type(value) is str:
        return _ENCODER.encode(value)
    try:
        return "".join(encoder(value, 0))
    except BaseException:
        _THREAD.markers.clear()  # a failed encoding may leave containers marked as open
        raise


def _one_shot_encoder() -> Any:
    """The C encoder that ``_ENCODER.encode`` builds on every call, built once per thread.

    ``JSONEncoder.iterencode`` makes this same object for each one-shot call;
    most documents digested here are a few dozen bytes, so building it is a
    third of their cost.  ``None`` where ``json`` has no C encoder, or where it
    does not give exactly ``_ENCODER.encode``'s text (then that is used).
    """
    encoder = getattr(_THREAD, "encoder", False)
    if encoder is not False:
        return encoder
    markers: dict[int, Any] = {}
    try:
        encoder = c_make_encoder(
            markers,
            _ENCODER.default,
            encode_basestring_ascii,
            _ENCODER.indent,
            _ENCODER.key_separator,
            _ENCODER.item_separator,
            _ENCODER.sort_keys,
            _ENCODER.skipkeys,
            _ENCODER.allow_nan,
        )
        probe = {"b": [1, 2.5, None, True, "\u00e9\n"], "a": {"c": -0.0}}
        if "".join(encoder(probe, 0)) != _ENCODER.encode(probe):
            encoder = None
    except Exception:  # no C encoder, or another signature: the plain path
        encoder = None
    _THREAD.markers, _THREAD.encoder = markers, encoder
    return encoder


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 bytes of :func:`canonical_json`; the input of every JSON digest."""
    return canonical_json(value).encode("ascii")


def sha256_digest(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_json(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    return sha256_digest(canonical_bytes(value))


class CanonicalForm:
    """The canonical JSON of one document shape, encoded once, with slots for its values.

    A review prepares and verifies thousands of small documents of a few fixed
    shapes (a packet's identity, a nonce's input) whose values are mostly
    digests.  Encoding each through :func:`canonical_json` costs several times
    more than the text is long.  Here ``shape`` is encoded once with a marker in
    each slot; :meth:`text` writes each value's own canonical JSON where its
    marker was.  That is :func:`canonical_json` of the filled document, because
    a slot is a value, never a key, so the fixed keys keep their order.
    """

    __slots__ = ("_slots", "_template")

    def __init__(self, shape: Callable[..., Any], slots: int) -> None:
        markers = [f"\x00slot {index}\x00" for index in range(slots)]
        text = canonical_json(shape(*markers)).replace("{", "{{").replace("}", "}}")
        for index, marker in enumerate(markers):
            encoded = canonical_json(marker)
            if text.count(encoded) != 1 or encoded + ":" in text:
                raise RuntimeError("internal error: a form slot is one value, never a key")
            text = text.replace(encoded, f"{{{index}}}")
        self._slots = slots
        self._template = text

    def text(self, *values: Any) -> str:
        """:func:`canonical_json` of ``shape(*values)``."""
        if len(values) != self._slots:
            raise TypeError(f"this form takes {self._slots} values")
        # Strings (a str enum member as its text, as json writes it) are most slots.
        return self._template.format(
            *[encode_basestring_ascii(v) if isinstance(v, str) else _slot_text(v) for v in values]
        )

    def digest(self, *values: Any) -> str:
        """:func:`digest_json` of ``shape(*values)``."""
        return sha256_digest(self.text(*values).encode("ascii"))


def _slot_text(value: Any) -> str:
    """The canonical JSON of a slot's value other than a string; integers need no encoder."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is bool:
        return "true" if value else "false"
    return canonical_json(value)


def is_digest(value: object) -> bool:
    """True when ``value`` is exactly a ``str`` in the ``sha256:<64 hex>`` form."""
    return type(value) is str and DIGEST_PATTERN.fullmatch(value) is not None


def require_digest(value: object, what: str) -> str:
    """Return ``value`` if it is a digest, else raise a fixed ``ValueError``.

    ``what`` must be a fixed field name chosen by the caller, never input data;
    the offending value itself is never echoed.
    """
    if not is_digest(value):
        raise InputRefused(f"{what} must be a 'sha256:' digest of 64 lowercase hex digits")
    assert isinstance(value, str)
    return value


def require_key(key: object) -> bytes:
    """Return ``key`` if it is ``bytes`` of at least :data:`MIN_KEY_BYTES`."""
    if type(key) is not bytes:
        raise InvalidArgument("key must be bytes")
    if len(key) < MIN_KEY_BYTES:
        raise InputRefused(
            f"key must be at least {MIN_KEY_BYTES} bytes; generate one with secrets.token_bytes(32)"
        )
    return key


def hmac_digest(key: bytes, domain: str, value: Any) -> str:
    """HMAC-SHA256 of ``domain`` and the canonical JSON of ``value``, as ``sha256:<hex>``.

    The domain string separates uses of one key (aliases, mapping seals, grants)
    so that a MAC made for one purpose never verifies for another.
    """
    return Signer(key).digest(domain, value)


def hmac_matches(key: bytes, domain: str, value: Any, expected: object) -> bool:
    """Constant-time check that ``expected`` is :func:`hmac_digest` of ``value``.

    ``expected`` is untrusted: anything that is not a well-formed digest string
    is rejected without calling a method on it.
    """
    return Signer(key).matches(domain, value, expected)


class Signer:
    """:func:`hmac_digest` and :func:`hmac_matches` under one key, for many values.

    HMAC-SHA256 as RFC 2104 defines it, over :mod:`hashlib`: the key schedule
    (the hashes of the key XOR the inner and outer pads) is computed once, and
    each value costs two state copies and two short hashes.  ``hmac.HMAC`` does
    the same work with two more state copies and a Python wrapper per value;
    preparing and verifying one review signs hundreds of values.  Tests hold it
    to :func:`hmac.new` for keys of every length.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _SHA256_BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_SHA256_BLOCK, b"\x00")
        self._inner = hashlib.sha256(key.translate(_INNER_PAD))
        self._outer = hashlib.sha256(key.translate(_OUTER_PAD))

    def digest(self, domain: str, value: Any) -> str:
        return self.digest_text(domain, canonical_json(value))

    def digest_text(self, domain: str, text: str) -> str:
        """The MAC of a value whose canonical JSON ``text`` the caller already has."""
        inner = self._inner.copy()
        inner.update(domain.encode("ascii") + b"\x00" + text.encode("ascii"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return "sha256:" + outer.hexdigest()

    def matches(self, domain: str, value: Any, expected: object) -> bool:
        return self.matches_text(domain, canonical_json(value), expected)

    def matches_text(self, domain: str, text: str, expected: object) -> bool:
        """:meth:`matches` for a value whose canonical JSON ``text`` the caller already has."""
        if not is_digest(expected):
            return False
        assert isinstance(expected, str)
        return hmac.compare_digest(self.digest_text(domain, text), expected)

    def __repr__(self) -> str:
        return "Signer(<key>)"


_SHA256_BLOCK = 64
_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))


def finite_float(value: object, what: str) -> float:
    """Return ``value`` as a finite float, refusing bools, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"{what} must be a number")
    result = float(value)
    if not math.isfinite(result):
        raise InputRefused(f"{what} must be finite")
    return result


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` via a temporary sibling, ``fsync`` and ``os.replace``.

    A reader never sees a half-written file, and after a crash the file is
    either the old one or the complete new one.  The file gets the mode a plain
    ``open(path, "w")`` would give (``0o666`` less the umask), not the
    temporary file's ``0o600``.  On any failure the temporary file is removed
    and a bare ``OSError`` is raised, without the path or the underlying
    message, which may be private.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    mode = 0o666 & ~_current_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=".openmed-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        _fsync_directory(directory)
    except (OSError, ValueError):
        raise OSError("could not write the requested output file") from None


def _current_umask() -> int:
    """The process umask (reading it means setting it; it is put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable where the platform allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
