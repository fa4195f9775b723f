"""Discard what untrusted planner code prints, and always put the streams back.

PYTEST_DONT_REWRITE

Planner output may carry prompts, results or patient-like text; it must not
reach a terminal, a CI log or a captured pytest section.  Both streams are
restored even when the planner replaced them itself or raised
``KeyboardInterrupt``.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["discarded_output"]


class _Sink(io.TextIOBase):
    """A writable text stream that keeps nothing."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        # Like a real text stream, accept ``str`` subclasses; ``str.__len__`` and a
        # ``type`` check run none of their methods.
        if not issubclass(type(text), str):
            raise TypeError("write() argument must be str")
        return str.__len__(text)


@contextmanager
def discarded_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` to a sink for the block's duration."""
    saved_stdout, saved_stderr = sys.stdout, sys.stderr
    sink = _Sink()
    sys.stdout = sink
    sys.stderr = sink
    try:
        yield
    finally:
        sys.stdout = saved_stdout
        sys.stderr = saved_stderr
