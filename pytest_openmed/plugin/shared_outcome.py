"""One evaluation per gate per run, whichever xdist worker runs its items.

Under pytest-xdist a gate's items may run on several workers (``--dist
load``, ``worksteal``, ``each``…).  If each worker evaluated the gate, a
nondeterministic planner could pass six scenarios on one worker and fail
qualification on another, and the report would tell two stories.  So the first
worker to need a gate evaluates it under an exclusive lock and stores the
outcome — verdicts (names and numbers) or the fixed refusal text — in the run's
pytest base temporary directory, which all workers of one run share; every
other worker waits for the lock and reads the stored outcome.  Serial runs keep
the outcome in memory only (no file at all).

What is stored is exactly what the report shows, never input data.  The
directory lives and dies with pytest's own temporary directories.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.contract import GateItemRefused, GateResult

#: Verdicts (or refused items) by item name, or the fixed text of a refusal of the gate.
Outcome = Mapping[str, GateResult | GateItemRefused] | str

_DIRECTORY = "openmed-gates"


def shared_outcome(config: pytest.Config, gate: str, evaluate: Callable[[], Outcome]) -> Outcome:
    """The outcome of gate ``gate`` (its node id) for this run, evaluated at most once.

    On an xdist worker the outcome is shared through the run's base temporary
    directory; anywhere else ``evaluate`` is simply called (the caller caches).
    An exception from ``evaluate`` stores nothing and propagates.
    """
    directory = _run_directory(config)
    if directory is None:
        return evaluate()
    # The run's id keeps a directory that outlives the run (a worker without a
    # controller-given base temp) from ever serving another run's outcome.
    run = str(getattr(config, "workerinput", {}).get("testrunuid", ""))
    name = hashlib.sha256(f"{run}\x00{gate}".encode()).hexdigest()
    stored = directory / f"{name}.json"
    with _locked(directory / f"{name}.lock"):
        if stored.exists():
            return _load(stored.read_text(encoding="utf-8"))
        outcome = evaluate()
        from pytest_openmed._canonical import atomic_write_text

        atomic_write_text(stored, _dump(outcome))
        return outcome


def _run_directory(config: pytest.Config) -> Path | None:
    """``<run base temp>/openmed-gates`` on an xdist worker, else ``None``.

    xdist gives each local (popen) worker the base temp ``<controller base
    temp>/popen-<worker id>``, so the parent is the same directory for every
    worker of one run (and pytest removes it with its other old temporary
    directories).  Workers on other machines share no directory and evaluate
    for themselves.
    """
    if not hasattr(config, "workerinput"):
        return None
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return None
    directory = Path(factory.getbasetemp()).parent / _DIRECTORY
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock held by this process for the block (released if it dies)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt
        import time

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:  # LK_LOCK gives up after ten seconds: keep waiting
                time.sleep(0.1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def _dump(outcome: Outcome) -> str:
    if isinstance(outcome, str):
        return json.dumps({"refused": outcome})
    verdicts: dict[str, Any] = {}
    for item, result in outcome.items():
        if isinstance(result, GateItemRefused):  # fixed message and closed label only
            verdicts[item] = {
                "refused_item": [
                    str(result.args[0]),
                    result.subject,
                    dict(result.figures),
                    result.reason,
                ]
            }
        else:
            # The public report (a pack's) travels too: the report shows it whichever worker ran.
            verdicts[item] = {**result.to_dict(), "public_report": result.public_report}
    return json.dumps({"verdicts": verdicts})


def _load(text: str) -> Outcome:
    document: dict[str, Any] = json.loads(text)
    if "refused" in document:
        return str(document["refused"])
    outcome: dict[str, GateResult | GateItemRefused] = {}
    for item, data in document["verdicts"].items():
        if "refused_item" in data:
            message, subject, figures, reason = data["refused_item"]
            outcome[item] = GateItemRefused(message, subject, figures, reason)
        else:
            public_report = data.pop("public_report", None)
            result = GateResult.from_dict(data)
            outcome[item] = dataclasses.replace(result, public_report=public_report)
    return outcome
