"""Exact (Clopper–Pearson) one-sided upper bounds of a binomial proportion, and sizes.

For ``k`` events in ``n`` independent trials and confidence ``c`` (``α = 1 − c``),
the one-sided Clopper–Pearson upper bound is the rate ``p`` at which seeing
``k`` or fewer events has probability exactly ``α``::

    P(X ≤ k | n, p) = α        (so p = Beta⁻¹(c; k + 1, n − k); 1 when k = n)

With no event it has the closed form ``1 − α^(1/n)``.  A gate that compares
this bound with a threshold ``t`` can pass only when ``n`` is at least
:func:`minimum_trials` ``(t, c)``: 29 at ``t = 0.10, c = 0.95``, 59 at
``t = 0.05``.  Gates refuse to decide below that size (docs/evidence.md).

Computed with the standard library only: the regularised incomplete beta by
its continued fraction, the bound by bisection on the binomial tail.  The
result is rounded *up* by at most :data:`ROUNDING`, so floating-point error
never puts it below the exact value (a gate on it errs towards failing).
"""

from __future__ import annotations

import math

from pytest_openmed.errors import InputRefused, InvalidArgument

#: Confidence of the exact bounds when a gate sets none.
DEFAULT_CONFIDENCE = 0.95
#: Added to every computed bound so that rounding error cannot put it below the exact one.
ROUNDING = 1e-12
#: Largest sample size :func:`minimum_trials` and :func:`planned_trials` consider.
MAX_TRIALS = 100_000_000
_EPSILON = 1e-16
_TINY = 1e-300
_MAX_ITERATIONS = 1_000_000


def check_confidence(confidence: object) -> float:
    """A confidence level: a float strictly between 0 and 1."""
    if type(confidence) is not float:
        raise InvalidArgument("confidence must be a float")
    if not 0.0 < confidence < 1.0:  # also refuses NaN
        raise InputRefused("confidence must be strictly between 0 and 1")
    return confidence


def _check_rate(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"{what} must be a number")
    rate = float(value)
    if not 0.0 <= rate <= 1.0:  # also refuses NaN
        raise InputRefused(f"{what} must be between 0 and 1")
    return rate


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta (modified Lentz's method)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_ITERATIONS):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            result *= step
        if abs(step - 1.0) < _EPSILON:
            return result
    raise ArithmeticError("the incomplete beta did not converge")  # pragma: no cover


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta ``I_x(a, b)`` for ``a, b > 0``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def binomial_tail(count: float, n: int, rate: float) -> float:
    """``P(X ≤ count)`` for ``X ~ Binomial(n, rate)``; ``count`` may be fractional (planning)."""
    if count >= n:
        return 1.0
    if rate <= 0.0:
        return 1.0
    if rate >= 1.0:
        return 0.0
    if count == 0:
        return math.exp(n * math.log1p(-rate))
    return _incomplete_beta(n - count, count + 1.0, 1.0 - rate)


def _check_counts(count: object, n: object) -> tuple[int, int]:
    if type(count) is not int or type(n) is not int:
        raise InvalidArgument("count and n must be integers")
    if n < 1 or not 0 <= count <= n:
        raise InputRefused("an exact bound needs n >= 1 and 0 <= count <= n")
    return count, n


def exact_upper(count: int, n: int, confidence: float = 0.95) -> float:
    """The one-sided Clopper–Pearson upper bound of ``count`` events in ``n ≥ 1`` trials."""
    count, n = _check_counts(count, n)
    alpha = 1.0 - check_confidence(confidence)
    if count == n:
        return 1.0
    if count == 0:
        exact = -math.expm1(math.log(alpha) / n)
    else:
        low, high = count / n, 1.0  # the tail at the point estimate is above alpha
        for _ in range(200):
            middle = (low + high) / 2
            if middle in (low, high):
                break
            if binomial_tail(count, n, middle) > alpha:
                low = middle
            else:
                high = middle
        exact = high
    return min(1.0, exact + ROUNDING)


def minimum_trials(max_upper: float, confidence: float = 0.95) -> int | None:
    """The fewest trials whose exact upper bound with no event is at most ``max_upper``.

    ``None`` when no size up to :data:`MAX_TRIALS` reaches it (``max_upper`` 0).
    The answer agrees with :func:`exact_upper` (the bound gates compare).
    """
    threshold = _check_rate(max_upper, "max_upper")
    alpha = 1.0 - check_confidence(confidence)
    if threshold <= 0.0:
        return None
    if threshold >= 1.0:
        return 1
    estimate = max(1, math.ceil(math.log(alpha) / math.log1p(-threshold)) - 2)
    for n in range(estimate, estimate + 8):
        if n <= MAX_TRIALS and exact_upper(0, n, confidence) <= threshold:
            return n
    return None


def planned_trials(
    max_upper: float, confidence: float = 0.95, expected_rate: float = 0.0
) -> int | None:
    """The fewest trials at which an observed rate equal to ``expected_rate`` passes.

    The exact bound is evaluated at the expected count ``expected_rate · n``
    (which need not be whole), so the answer grows smoothly with the rate;
    with ``expected_rate`` 0 it is :func:`minimum_trials`.  ``None`` when the
    expected rate is not below ``max_upper`` or no size up to
    :data:`MAX_TRIALS` suffices.
    """
    threshold = _check_rate(max_upper, "max_upper")
    rate = _check_rate(expected_rate, "expected_rate")
    alpha = 1.0 - check_confidence(confidence)
    if rate == 0.0:
        return minimum_trials(threshold, confidence)
    if rate >= threshold:
        return None

    def passes(n: int) -> bool:
        return binomial_tail(rate * n, n, threshold) <= alpha

    if not passes(MAX_TRIALS):
        return None
    low, high = 0, MAX_TRIALS  # passes(high); low is 0 or fails
    while high - low > 1:
        middle = (low + high) // 2
        if passes(middle):
            high = middle
        else:
            low = middle
    return high
