"""The one home of the validation rules that cross modules.

Integers in a range, rates from 0 to 1, the seed range, bounded
materialisation, JSON objects that repeat a name and JSON's non-constants
(``NaN``, ``Infinity``) are refused the same way wherever they are read.  Each
caller keeps its own fixed, value-free message (and error type): a rule takes
``refuse``, either the message of an :class:`~pytest_openmed.errors.InputRefused`
or a function building the caller's error.  Standard library only, so the
plugin may use it at load time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn, TypeVar

from pytest_openmed.errors import InputRefused, LimitExceeded

T = TypeVar("T")

#: The error a rule raises: a fixed message (an ``InputRefused``), or a function building it.
Refuse = str | Callable[[], Exception]

#: Seeds are whole numbers from 0 to this (a signed 64-bit integer, as numpy and JSON readers take).
MAX_SEED = 2**63 - 1


def refusal(refuse: Refuse, default: type[Exception] = InputRefused) -> Exception:
    """The error ``refuse`` stands for: ``default(message)`` for a message, else what it builds."""
    return default(refuse) if isinstance(refuse, str) else refuse()


def check_int(value: object, low: int, high: int, refuse: Refuse) -> int:
    """``value`` if it is exactly an ``int`` (not a bool) from ``low`` to ``high``."""
    if type(value) is not int or not low <= value <= high:
        raise refusal(refuse)
    return value


def check_text(value: object, pattern: re.Pattern[str], refuse: Refuse) -> str:
    """``value`` if it is exactly a ``str`` that ``pattern`` matches in full."""
    if type(value) is not str or not pattern.fullmatch(value):
        raise refusal(refuse)
    return value


def check_seed(value: object, refuse: Refuse) -> int:
    """``value`` if it is exactly an ``int`` from 0 to :data:`MAX_SEED`."""
    return check_int(value, 0, MAX_SEED, refuse)


def check_rate(value: object, refuse: Refuse, *, wrong_type: Refuse | None = None) -> float:
    """``value`` (an int or float, not a bool) as a float from 0 to 1; NaN and infinities fail.

    The range is compared before converting: a 400-digit integer overflows
    ``float()``.  ``wrong_type`` is raised for a value that is not a number,
    where a caller refuses that with another type (``InvalidArgument``).
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refusal(refuse if wrong_type is None else wrong_type)
    if not 0 <= value <= 1:  # NaN compares false
        raise refusal(refuse)
    return float(value)


def bounded(items: Iterable[T], limit: int, refuse: Refuse) -> list[T]:
    """Materialise ``items``, consuming at most ``limit + 1`` of them.

    More than ``limit`` is refused (a :class:`~pytest_openmed.errors.LimitExceeded`
    for a message): nothing is truncated or sampled silently.
    """
    result: list[T] = []
    iterator: Iterator[T] = iter(items)
    for item in iterator:
        if len(result) == limit:
            raise refusal(refuse, LimitExceeded)
        result.append(item)
    return result


def unique_names_hook(refuse: Refuse) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` for ``json.loads`` refusing an object that repeats a name.

    With a repeated name JSON readers disagree on the content (Python keeps the
    last value, others the first), so a document read twice could differ.
    """

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        document = dict(pairs)
        if len(document) != len(pairs):
            raise refusal(refuse)
        return document

    return hook


def refuse_constant_hook(refuse: Refuse) -> Callable[[str], NoReturn]:
    """A ``parse_constant`` hook for ``json.loads``: ``NaN`` and ``Infinity`` are not JSON."""

    def hook(_name: str) -> NoReturn:
        raise refusal(refuse)

    return hook


#: The hooks with the plain messages, for readers that need no message of their own.
unique_names = unique_names_hook("a JSON object repeats a name")
refuse_constant = refuse_constant_hook("NaN and Infinity are not JSON")
