"""Public ``sha256:`` digests for lineage fields and pack declarations.

A :class:`~pytest_openmed.multimodal.CandidateLineage` and a
:class:`~pytest_openmed.multimodal.ValidationPack` accept only ``sha256:``
digests of manifests you keep.  These helpers compute them exactly as the
package does (one definition, in :mod:`pytest_openmed._canonical`), so a
downstream repository never imports a private module to fill them in.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from pytest_openmed._canonical import digest_json as _digest_json
from pytest_openmed._canonical import sha256_digest
from pytest_openmed.errors import InvalidArgument

__all__ = ["digest_bytes", "digest_file", "digest_json"]

_CHUNK = 1024 * 1024


def digest_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes (e.g. a licence text or a model file read into memory)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidArgument("data must be bytes")
    return sha256_digest(bytes(data))


def digest_file(path: str | os.PathLike[str]) -> str:
    """``sha256:<hex>`` of a file's bytes, read in chunks (model weights may be large).

    A read error is re-raised as a bare ``OSError`` without the path, which may be private.
    """
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        raise OSError("could not read the file to digest") from None
    return "sha256:" + digest.hexdigest()


def digest_json(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value`` (sorted keys, no whitespace).

    Equal documents give equal digests whatever their key order; NaN and
    infinities are refused because they are not JSON.
    """
    return _digest_json(value)
