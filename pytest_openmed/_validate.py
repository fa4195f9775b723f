"""The one home of the validation rules that cross modules.

Integers in a range, rates from 0 to 1, the seed range (and the run-wide
bounds the plugin's options share with the engines: resamples, publication
cell size), bounded
materialisation, JSON objects that repeat a name and JSON's non-constants
(``NaN``, ``Infinity``) are refused the same way wherever they are read.  Each
caller keeps its own fixed, value-free message (and error type): a rule takes
``refuse``, either the message of an :class:`~pytest_openmed.errors.InputRefused`
or a function building the caller's error.  Standard library only, so the
plugin may use it at load time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn, TypeVar, overload

from pytest_openmed.errors import InputRefused, InvalidArgument, LimitExceeded

T = TypeVar("T")

#: The error a rule raises: a fixed message (an ``InputRefused``), or a function building it.
Refuse = str | Callable[[], Exception]

#: Seeds are whole numbers from 0 to this (a signed 64-bit integer, as numpy and JSON readers take).
MAX_SEED = 2**63 - 1
#: Bootstrap resamples: a run's default, and the most one claims evaluation takes.
DEFAULT_RESAMPLES = 1000
MAX_RESAMPLES = 100_000
#: Publication cell size: the smallest (a gate or a run may raise it, never lower
#: it) and the largest a gate or a run may ask for.
MIN_CELL = 5
MAX_MIN_CELL = 1_000_000


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


@overload
def bounded(items: Iterable[T], limit: int, refuse: Refuse) -> list[T]: ...


@overload
def bounded(
    items: object, limit: int, refuse: Refuse, *, wrong_type: Refuse, failed: Refuse | None = None
) -> list[Any]: ...


def bounded(
    items: object,
    limit: int,
    refuse: Refuse,
    *,
    wrong_type: Refuse | None = None,
    failed: Refuse | None = None,
) -> list[Any]:
    """Materialise ``items``, consuming at most ``limit + 1`` of them.

    More than ``limit`` is refused (a :class:`~pytest_openmed.errors.LimitExceeded`
    for a message): nothing is truncated or sampled silently.  A list or tuple
    is measured, not iterated, and copied: the limit holds for the collection
    as it was handed over.  With ``wrong_type`` (an
    :class:`~pytest_openmed.errors.InvalidArgument` for a message), a string,
    bytes, a mapping or a non-iterable is refused rather than iterated; with
    ``failed`` (likewise), whatever the caller's ``__iter__``/``__next__``
    raises becomes that fixed error, since its text may hold an identifier.
    """
    if type(items) is list or type(items) is tuple:
        if len(items) > limit:
            raise refusal(refuse, LimitExceeded)
        return list(items)
    if wrong_type is None:
        iterator: Iterator[Any] = iter(items)  # type: ignore[call-overload]
    else:
        iterator = _iterate(items, wrong_type, failed)
    result: list[Any] = []
    for item in iterator:
        if len(result) == limit:
            raise refusal(refuse, LimitExceeded)
        result.append(item)
    return result


def _iterate(items: object, wrong_type: Refuse, failed: Refuse | None) -> Iterator[Any]:
    """The items of a collection that is not a string, bytes or a mapping (see :func:`bounded`)."""
    try:
        collection = not isinstance(items, str | bytes | bytearray | Mapping)
        iterator: Iterator[Any] | None = iter(items) if collection else None  # type: ignore[call-overload]
    except TypeError:
        iterator = None
    except Exception:
        if failed is None:
            raise
        raise refusal(failed, InvalidArgument) from None
    if iterator is None:
        raise refusal(wrong_type, InvalidArgument)
    if failed is None:
        yield from iterator
        return
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except Exception:
            raise refusal(failed, InvalidArgument) from None
        yield item


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
