"""Corrupted copies of an asset for the components' property tests: truncations and bit flips.

Every component must answer a corrupted asset with a typed refusal
(:class:`ComponentError`) or with an output that is still valid; each test
file keeps its own check of what "valid" means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from hypothesis import strategies as st

from pytest_openmed.components._base import ComponentError, ComponentOutput

__all__ = ["corrupted", "outputs_or_refusals"]

Config = TypeVar("Config")


def corrupted(asset: bytes, *, header: int = 1024) -> st.SearchStrategy[bytes]:
    """``asset`` cut at any length, or with one to eight bits flipped.

    About half of the flipped bits fall in the first ``header`` bytes, where
    the format's header and declared sizes live.
    """
    size = len(asset)
    position = st.one_of(st.integers(0, min(size, header) - 1), st.integers(0, size - 1))
    flips = st.lists(st.tuples(position, st.integers(0, 7)), min_size=1, max_size=8)
    return st.one_of(
        st.integers(0, size - 1).map(lambda length: asset[:length]),
        flips.map(lambda bits: _flipped(asset, bits)),
    )


def _flipped(asset: bytes, bits: list[tuple[int, int]]) -> bytes:
    data = bytearray(asset)
    for position, bit in bits:
        data[position] ^= 1 << bit
    return bytes(data)


def outputs_or_refusals(
    run: Callable[[bytes, Config], ComponentOutput], asset: bytes, configs: Iterable[Config]
) -> list[ComponentOutput]:
    """The outputs of ``run(asset, config)`` for each config that did not refuse the asset.

    A :class:`ComponentError` is an accepted answer and yields no output; any
    other exception propagates and fails the test.
    """
    outputs = []
    for config in configs:
        try:
            outputs.append(run(asset, config))
        except ComponentError:
            continue
    return outputs
