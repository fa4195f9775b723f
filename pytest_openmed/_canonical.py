"""Canonical JSON, digests, HMAC and atomic writes, through the standard library.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

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
import time
from pathlib import Path
from typing import Any

from pytest_openmed.errors import InputRefused, InvalidArgument

#: ``sha256:`` followed by 64 lowercase hex digits: the only digest form we accept or emit.
DIGEST_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")

#: Shortest HMAC key accepted anywhere in the package.
MIN_KEY_BYTES = 32


#: The one encoder of canonical JSON: keys sorted, no insignificant whitespace,
#: non-ASCII escaped, NaN and infinities refused (they are not JSON).
_ENCODER = json.JSONEncoder(
    sort_keys=True,
    separators=(",", ":"),
    ensure_ascii=True,
    allow_nan=False,
)


def canonical_json(value: Any) -> str:
    """Serialise ``value`` so that equal documents give equal text."""
    return _ENCODER.encode(value)


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 bytes of :func:`canonical_json`; the input of every JSON digest."""
    return canonical_json(value).encode("ascii")


def sha256_digest(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_json(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    return sha256_digest(canonical_bytes(value))


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

    :func:`hmac.new` keyed once; each value is signed on a copy of it.
    """

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def digest(self, domain: str, value: Any) -> str:
        mac = self._keyed.copy()
        mac.update(domain.encode("ascii") + b"\x00" + canonical_bytes(value))
        return "sha256:" + mac.hexdigest()

    def matches(self, domain: str, value: Any, expected: object) -> bool:
        if not is_digest(expected):
            return False
        assert isinstance(expected, str)
        return hmac.compare_digest(self.digest(domain, value), expected)

    def __repr__(self) -> str:
        return "Signer(<key>)"


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
    _remove_stale_temporaries(directory)


#: A temporary file of :func:`atomic_write_text` (``tempfile.mkstemp``'s eight characters).
_TEMPORARY = re.compile(r"\.openmed-[a-z0-9_]{8}\.tmp")
#: Age after which a temporary file is a crashed writer's, never one still being written.
STALE_TEMPORARY_SECONDS = 3600


def _remove_stale_temporaries(directory: Path) -> None:
    """Remove temporary files a killed writer (``kill -9`` mid-write) left in ``directory``.

    Only regular files named as :func:`atomic_write_text` names them and not
    modified for :data:`STALE_TEMPORARY_SECONDS` (a write in progress, in this
    or another process, is seconds old) are removed; nothing else is touched,
    and a failure to remove one is no failure of the write.
    """
    cutoff = time.time() - STALE_TEMPORARY_SECONDS
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not _TEMPORARY.fullmatch(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            pass  # gone already (another run removed it), or not ours to remove


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
