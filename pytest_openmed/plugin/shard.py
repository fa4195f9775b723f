"""``--openmed-shard I/N``: this run evaluates one deterministic share of the gates.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Every item of one gate stays on one shard, so a gate is still evaluated once
per run.  A gate's shard depends on its id alone (the node id of a declared
gate, or of the test that is a gate): a stable hash, or, when the history
holds an earlier complete run with gate durations, a longest-first balance
over those durations (gates the history does not know fall back to the
hash).  Neither depends on collection order, xdist, or which other tests
exist.  Ordinary tests are not touched.

The filter runs last among the collection hooks, after ``-k``, ``-m`` and
``--openmed-only``/``--openmed-skip`` chose the gates, and before it drops
the other shards' gates it fixes every item's position in the whole
collection, so verdicts carry the position a serial run would give them and a
merge can order them as that run would.  What a merge needs to prove the
shards belong together is recorded under the report's ``run.shard``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_openmed.plugin.options import RunOptions
    from pytest_openmed.plugin.recorder import GateRecorder

#: Files of one directory input that are digested (a pack's folder); more is refused as unknown.
_MAX_DIRECTORY_FILES = 10_000
_CHUNK = 1024 * 1024


def gate_id(item: pytest.Item) -> str:
    """The gate an item belongs to: its declared gate's node id, or its own."""
    from pytest_openmed.plugin.items import GateItem

    return item.parent.nodeid if isinstance(item, GateItem) else item.nodeid


def hashed_shard(gate: str, count: int) -> int:
    """The 1-based shard of ``gate`` by a stable hash of its id (SHA-256, not Python's ``hash``)."""
    digest = hashlib.sha256(gate.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def balanced_shards(durations: Mapping[str, float], count: int) -> dict[str, int]:
    """Gates to 1-based shards, longest first onto the least-loaded shard (lowest on a tie)."""
    loads = [0.0] * count
    assigned: dict[str, int] = {}
    for gate, seconds in sorted(durations.items(), key=lambda pair: (-pair[1], pair[0])):
        shard = min(range(count), key=lambda index: (loads[index], index))
        assigned[gate] = shard + 1
        loads[shard] += seconds
    return assigned


def _latest_durations(directory: Path | None) -> tuple[str | None, dict[str, float]]:
    """The newest stored complete (not shard) run with gate durations: its name and durations."""
    if directory is None:
        return None, {}
    from pytest_openmed.report.history import HistoryError, stored_runs
    from pytest_openmed.report.load import ReportError, read_report

    try:
        runs = stored_runs(directory)
    except HistoryError:
        return None, {}
    for run in reversed(runs):
        try:
            report = read_report(run)
        except ReportError:
            continue
        facts = report["run"]
        if "shard" in facts or "timing" not in facts or facts.get("partial_selection"):
            continue
        return run.name.removesuffix(".json"), dict(facts["timing"]["gates"])
    return None, {}


def _file_digest(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return "sha256:" + digest.hexdigest()


def _input_digest(path: Path) -> str | None:
    """A file's SHA-256; a directory's over its files' relative names and digests; else ``None``."""
    if not path.is_dir():
        return _file_digest(path)
    digest = hashlib.sha256()
    try:
        files = sorted(
            (
                Path(root, name)
                for root, _, names in os.walk(path)
                for name in names
                if not name.startswith(".")
            ),
            key=lambda found: found.relative_to(path).as_posix(),
        )
    except OSError:
        return None
    if len(files) > _MAX_DIRECTORY_FILES:
        return None
    for found in files:
        content = _file_digest(found)
        if content is None:
            return None
        digest.update(f"{found.relative_to(path).as_posix()}\x00{content}\n".encode())
    return "sha256:" + digest.hexdigest()


def _paths(value: object, where: str) -> Iterator[tuple[str, Path]]:
    """Every path in a gate's declaration, with the key that names it (never the path)."""
    if isinstance(value, Path):
        yield where, value
    elif isinstance(value, Mapping):
        for key in sorted(value, key=str):
            yield from _paths(value[key], f"{where}.{key}" if where else str(key))
    elif isinstance(value, tuple | list):
        for index, element in enumerate(value):
            yield from _paths(element, f"{where}[{index}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            name = f"{where}.{field.name}" if where else field.name
            yield from _paths(getattr(value, field.name), name)


def _declaration(item: pytest.Item) -> object:
    """What a declared gate was given (its spec's options or typed declaration)."""
    spec = getattr(item.parent, "spec", None)
    if spec is None:
        return {}
    return {
        field.name: getattr(spec, field.name)
        for field in dataclasses.fields(spec)
        if field.name not in ("kind", "name", "items", "expected", "evaluator")
    }


def collected_gates(gates: Iterable[str]) -> dict[str, Any]:
    """How many gates the whole run has, and a digest of their ids (the same on every shard)."""
    every = sorted(set(gates))
    text = "".join(f"{gate}\n" for gate in every)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return {"gates": len(every), "digest": "sha256:" + digest}


def empty_record(options: RunOptions) -> dict[str, Any]:
    """The shard record before (or without) collection: no gates."""
    assert options.shard is not None
    index, count = options.shard
    return {
        "index": index,
        "count": count,
        "balanced_by": None,
        "gates": [],
        "collected": collected_gates(()),
        "gate_selection": options.gate_selection,
        "gate_files": {},
        "inputs": {},
    }


class ShardFilter:
    """Keeps this shard's gate items (registered only with ``--openmed-shard``)."""

    def __init__(self, config: pytest.Config, options: RunOptions, recorder: GateRecorder) -> None:
        self.config = config
        self.options = options
        self.recorder = recorder
        # Until collection reaches the filter (it may never): an empty shard.
        recorder.shard_record = empty_record(options)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from pytest_openmed.plugin.items import GateItem, fix_collection_index, is_gate_item

        assert self.options.shard is not None
        index, count = self.options.shard
        fix_collection_index(config, items)
        basis, durations = _latest_durations(self.options.history_dir)
        balanced = balanced_shards(durations, count)
        gates: dict[str, pytest.Item] = {}
        kept: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            if not is_gate_item(item):
                kept.append(item)
                continue
            gate = gate_id(item)
            gates.setdefault(gate, item)
            shard = balanced.get(gate) or hashed_shard(gate, count)
            (kept if shard == index else dropped).append(item)
        mine = sorted({gate_id(item) for item in kept if is_gate_item(item)})
        gate_files: dict[str, str | None] = {}
        for item in gates.values():
            if isinstance(item, GateItem):
                gate_file = item.parent.parent
                if isinstance(gate_file, pytest.File) and gate_file.nodeid not in gate_files:
                    gate_files[gate_file.nodeid] = _file_digest(item.path)
        inputs = {
            gate: {where: _input_digest(path) for where, path in _paths(_declaration(item), "")}
            for gate, item in gates.items()
            if gate in mine and isinstance(item, GateItem)
        }
        record = {
            **empty_record(self.options),
            "balanced_by": basis if balanced else None,
            "gates": mine,
            "collected": collected_gates(gates),
            "gate_files": dict(sorted(gate_files.items())),
            "inputs": {gate: digests for gate, digests in inputs.items() if digests},
        }
        self.recorder.note_shard(record, {item.nodeid for item in dropped})
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
