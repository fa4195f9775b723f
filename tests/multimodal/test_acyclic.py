"""The multimodal engine's modules import one way: no cycle, codecs with their types.

Every import counts — module level, deferred inside a function, and
``TYPE_CHECKING`` — because a deferred import back into a module that
imports you is still a cycle a reader has to untangle.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_openmed._wilson
import pytest_openmed.multimodal
from pytest_openmed.multimodal import (
    Adjudication,
    CaseSlice,
    CompletedReview,
    PacketRating,
    ReviewPacket,
    SealedMapping,
    ValidationPack,
)
from pytest_openmed.multimodal.metrics import Tally
from pytest_openmed.multimodal.public_report import public_report
from pytest_openmed.multimodal.review import packets_from_dict, packets_to_dict
from pytest_openmed.multimodal.vocabulary import METRICS

PACKAGE = Path(pytest_openmed.multimodal.__file__).parent
NAME = "pytest_openmed.multimodal"


def _module_name(path: Path) -> str:
    return NAME if path.stem == "__init__" else f"{NAME}.{path.stem}"


def _imported(path: Path) -> Iterator[str]:
    """Every engine module ``path`` imports, wherever the import statement is."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = NAME if node.level == 1 else NAME.rsplit(".", node.level - 1)[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if base == NAME:  # ``from . import x``: x is a module of the package
                yield from (f"{NAME}.{alias.name}" for alias in node.names)
            elif base.startswith(f"{NAME}."):
                yield base
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith(f"{NAME}."))


def _graph() -> dict[str, set[str]]:
    """Edges between the engine's modules (the package ``__init__`` only re-exports)."""
    return {
        _module_name(path): set(_imported(path))
        for path in sorted(PACKAGE.glob("*.py"))
        if path.stem != "__init__"
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_engine_import_graph_has_no_cycle() -> None:
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_a_back_edge() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_public_report_does_not_import_the_assessment() -> None:
    assert f"{NAME}.assess" not in _graph()[f"{NAME}.public_report"]


def test_the_structural_readers_are_a_leaf() -> None:
    assert _graph()[f"{NAME}._structure"] <= {f"{NAME}.errors", f"{NAME}.limits"}


def test_there_is_no_separate_serialization_module() -> None:
    assert importlib.util.find_spec(f"{NAME}.serialization") is None


@pytest.mark.parametrize(
    "stored", [ValidationPack, SealedMapping, ReviewPacket, CompletedReview, Adjudication]
)
def test_each_stored_document_is_written_and_read_by_its_own_type(stored: type) -> None:
    """Both halves of the codec are defined in the class body itself, next to the type."""
    writer = vars(stored)["to_dict"]
    reader = vars(stored)["from_dict"].__func__
    assert writer.__module__ == reader.__module__ == stored.__module__
    source = inspect.getsource(stored)
    assert "import" not in source  # no deferred import back into another module


def test_a_rating_reads_what_it_writes() -> None:
    rating = PacketRating("sha256:" + "ab" * 32, "A", True, False, True, True)
    assert PacketRating.from_dict(rating.to_dict()) == rating


def test_packets_are_written_and_read_in_one_module() -> None:
    assert packets_to_dict.__module__ == packets_from_dict.__module__ == f"{NAME}.review"


def test_the_public_report_is_a_function_of_the_tallies_alone() -> None:
    block = Tally(units=10, counts=dict.fromkeys(METRICS, 5))
    report = public_report(
        task=pytest_openmed.multimodal.ValidationTask.FORMS,
        review_origin=pytest_openmed.multimodal.ReportOrigin.ATTESTED,
        min_cell=5,
        slices={case_slice: block for case_slice in CaseSlice},
        overall=Tally(units=30, counts=dict.fromkeys(METRICS, 15)),
    )
    assert report["review_origin"] == "attested"
    assert report["slices"]["nominal"]["units"] == 10
    assert report["overall"]["units"] == 30
    assert report["overall"]["metrics"]["quality"]["rate"] == 0.5


def test_the_wilson_interval_is_imported_from_the_core_not_re_exported() -> None:
    assert importlib.util.find_spec(f"{NAME}.wilson") is None
    assert pytest_openmed.multimodal.wilson_interval is pytest_openmed._wilson.wilson_interval


def test_the_seal_content_is_defined_once() -> None:
    """The dict the mapping seal authenticates is written out in exactly one place."""
    tree = ast.parse((PACKAGE / "aliases.py").read_text(encoding="utf-8"))
    sealed = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        and {k.value for k in node.keys if isinstance(k, ast.Constant)}
        >= {"pack", "reviewer", "identity", "aliases"}
    ]
    assert len(sealed) == 1
