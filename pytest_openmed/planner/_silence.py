"""Discard everything untrusted planner code emits, and always put every channel back.

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

Every one of these channels belongs to the whole process, and a recording may
call the planner from several threads at once (``record_concurrency``).  So the
blocks share one silence: the first to enter redirects, the last to leave
restores, under one lock; otherwise a block that ends while another still runs
would "restore" the other's redirection and leave logging disabled for good.
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


class _SharedSilence:
    """One silence for the whole process, held while any block is open."""

    __slots__ = ("_holders", "_lock", "_stack")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._stack: ExitStack | None = None

    def enter(self) -> None:
        with self._lock:
            if self._holders == 0:
                stack = ExitStack()
                try:
                    stack.enter_context(_descriptors())  # first: it flushes the real streams
                    stack.enter_context(_streams())
                    stack.enter_context(_logging())
                    stack.enter_context(_warnings())
                except BaseException:
                    stack.close()
                    raise
                self._stack = stack
            self._holders += 1

    def when_audible(self, say: Callable[[], None]) -> bool:
        """Call ``say`` unless a block is open (its line would go to the null device)."""
        with self._lock:
            if self._holders:
                return False
            say()
            return True

    def leave(self) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders == 0 and self._stack is not None:
                stack, self._stack = self._stack, None
                stack.close()


_SILENCE = _SharedSilence()


@contextmanager
def discarded_output() -> Iterator[None]:
    """Discard prints, fd 1/2 writes, log records and warnings for the block's duration."""
    _SILENCE.enter()
    try:
        yield
    finally:
        _SILENCE.leave()


def when_audible(say: Callable[[], None]) -> bool:
    """Call ``say`` (a progress line) unless some thread is discarding output right now.

    Returns whether it was called; the caller says the latest news later.
    """
    return _SILENCE.when_audible(say)
