"""Discard everything untrusted planner code emits, and always put every channel back.

PYTEST_DONT_REWRITE

Planner output may carry prompts, results or patient-like text (LLM client
libraries log prompts), so none of it may reach a terminal, a CI log, a
captured pytest section or junit XML.  For the block's duration:

* ``sys.stdout`` and ``sys.stderr`` are sinks (``print``);
* file descriptors 1 and 2 point at the null device (``os.write``, C code,
  subprocesses that inherit them);
* ``logging`` creates no record at all (``logging.disable``), so no handler —
  pytest's log capture included — sees one;
* ``warnings.warn`` is ignored (in a ``catch_warnings`` block, so the
  process's filters and ``__warningregistry__`` state come back unchanged).

Every channel is restored even when the planner replaced it itself or raised
``KeyboardInterrupt``.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

from pytest_openmed.errors import InvalidArgument

#: File descriptors redirected to the null device (standard output and error).
_DESCRIPTORS = (1, 2)


class _Sink(io.TextIOBase):
    """A writable text stream that keeps nothing."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        # Like a real text stream, accept ``str`` subclasses; ``str.__len__`` and a
        # ``type`` check run none of their methods.
        if not issubclass(type(text), str):
            raise InvalidArgument("write() argument must be str")
        return str.__len__(text)


@contextmanager
def _streams() -> Iterator[None]:
    saved_stdout, saved_stderr = sys.stdout, sys.stderr
    sink = _Sink()
    sys.stdout = sink
    sys.stderr = sink
    try:
        yield
    finally:
        sys.stdout = saved_stdout
        sys.stderr = saved_stderr


@contextmanager
def _descriptors() -> Iterator[None]:
    """Point fds 1 and 2 at the null device; a descriptor that is not open is left alone."""
    for stream in (sys.stdout, sys.stderr):
        try:  # what others wrote before the block still goes where it was meant to
            stream.flush()
        except Exception:  # a stream that cannot flush holds nothing of the planner's
            pass
    saved: dict[int, int] = {}
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in _DESCRIPTORS:
            try:
                saved[fd] = os.dup(fd)
            except OSError:
                continue
            os.dup2(null, fd)
    finally:
        os.close(null)
    try:
        yield
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


@contextmanager
def _logging() -> Iterator[None]:
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


@contextmanager
def _warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@contextmanager
def discarded_output() -> Iterator[None]:
    """Discard prints, fd 1/2 writes, log records and warnings for the block's duration.

    The channels are process-wide, so blocks that overlap (trials recorded
    concurrently, each in its own thread) share one redirection: the first to
    enter sets it up and the last to leave restores every channel, whichever
    threads they run in.
    """
    global _depth, _stack
    with _lock:
        if _depth == 0:
            stack = ExitStack()
            try:
                stack.enter_context(_descriptors())  # first: it flushes the real streams
                stack.enter_context(_streams())
                stack.enter_context(_logging())
                stack.enter_context(_warnings())
            except BaseException:
                stack.close()
                raise
            _stack = stack
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _stack is not None:
                stack, _stack = _stack, None
                stack.close()


def when_audible(say: Callable[[], None]) -> bool:
    """Call ``say`` (a progress line) unless some thread is discarding output right now.

    Returns whether it was called; the caller says the latest news later.
    """
    with _lock:
        if _depth:
            return False
        say()
        return True


_lock = threading.RLock()
_depth = 0
_stack: ExitStack | None = None
