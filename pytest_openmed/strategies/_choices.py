"""Many small decisions from one drawn seed: the strategies' speed rule.

Every ``draw`` through Hypothesis costs tens of microseconds (a drawn byte
about five), so a strategy that draws each field of each record separately
spends most of an example in the engine and trips the ``too_slow`` health
check under load.  The strategies therefore draw their sizes first, then one
64-bit seed, and build the whole value in one pass from decisions derived from
that seed.  Examples stay reproducible (the seed is a recorded choice), and
Hypothesis still shrinks the sizes, which is what makes a falsifying example
short; the content shrinks as a whole, with the seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

#: Characters of generated text: ASCII, JSON escapes, and non-ASCII up to the astral plane.
TEXT_ALPHABET = 'abcxyzABCXYZ0189 _-.:/@"\\\n\t\u00e9\u00df\u00a0\u200b\u4e2d\u0634\U0001f600'

_seeds = st.integers(min_value=0, max_value=2**64 - 1)


def seeded(draw: st.DrawFn) -> Choices:
    """Draw one seed and return the decisions it determines."""
    return Choices(draw(_seeds))


class Choices:
    """A deterministic stream of decisions: a seeded PRNG, in the shapes the strategies use."""

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, bound: int) -> int:
        """An integer in ``[0, bound)``."""
        return self._random.randrange(bound) if bound > 1 else 0

    def between(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return self._random.randint(low, high)

    def flag(self) -> bool:
        return self._random.random() < 0.5

    def pick(self, options: Sequence[T]) -> T:
        return options[self.below(len(options))]

    def raw(self, size: int) -> bytes:
        return self._random.randbytes(size)

    def text(self, max_size: int) -> str:
        """Text of at most ``max_size`` characters of :data:`TEXT_ALPHABET`."""
        size = self.below(max_size + 1)
        return "".join(self._random.choices(TEXT_ALPHABET, k=size))

    def shuffled(self, items: Sequence[T]) -> list[T]:
        result = list(items)
        self._random.shuffle(result)
        return result
