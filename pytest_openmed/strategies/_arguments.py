"""Argument checks shared by the public strategies (refused when the strategy is built)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from pytest_openmed.errors import InputRefused, InvalidArgument

T = TypeVar("T")


def subset(values: Iterable[T] | None, universe: tuple[T, ...], message: str) -> tuple[T, ...]:
    """A non-empty, duplicate-free subset of ``universe`` in universe order."""
    if values is None:
        return universe
    if isinstance(values, str | bytes):
        raise InvalidArgument(message)
    chosen = set(values)
    if not chosen or not chosen <= set(universe):
        raise InputRefused(message)
    return tuple(value for value in universe if value in chosen)


def sizes(low: object, high: object, cap: int, message: str) -> tuple[int, int]:
    """``(low, high)`` when both are ints with ``0 <= low <= high <= cap``."""
    if type(low) is not int or type(high) is not int or not 0 <= low <= high <= cap:
        raise InputRefused(message)
    return low, high
