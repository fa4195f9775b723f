"""Where a format library parses asset bytes: typed errors out, library logging silenced."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from types import TracebackType

from pytest_openmed.errors import ComponentError, CorruptAsset

__all__ = ["LibraryLogSilencer", "parse_boundary"]


@contextlib.contextmanager
def parse_boundary(corrupt: str) -> Iterator[None]:
    """Where a library parses asset bytes: the one rule that turns its failures into typed errors.

    A :class:`ComponentError` raised inside (a fixed refusal) leaves unchanged;
    any other exception, whose text may quote the asset, becomes
    ``CorruptAsset(corrupt)``.  Either leaves without its context, so no
    library text is chained to what the caller sees.  ``corrupt`` must be a
    fixed message.
    """
    try:
        yield
    except ComponentError as error:
        raise error from None
    except Exception:
        raise CorruptAsset(corrupt) from None


class LibraryLogSilencer:
    """Holds a library's logger above CRITICAL while at least one read is in progress.

    Libraries (pydicom, tifffile) log about odd input, and a record can quote
    a value from the file (a name, an identifier).

    The level, not the logger's ``disabled`` flag, is what silences it: the
    child loggers (``pydicom.pixels.*``, say) inherit the level but not the flag.
    The count keeps overlapping reads (nested, or in threads) from restoring
    the level while another one still runs; the last one out restores it.
    """

    def __init__(self, logger_name: str) -> None:
        self._name = logger_name
        self._lock = threading.Lock()
        self._depth = 0
        self._saved = logging.NOTSET

    def __enter__(self) -> None:
        logger = logging.getLogger(self._name)
        with self._lock:
            if self._depth == 0:
                self._saved = logger.level
                logger.setLevel(logging.CRITICAL + 1)
            self._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        logger = logging.getLogger(self._name)
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                logger.setLevel(self._saved)
