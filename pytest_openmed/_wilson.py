"""Wilson score interval for a binomial proportion (95% by default).

For ``k`` successes in ``n`` trials and ``z`` the standard normal quantile::

    centre = (k + z²/2) / (n + z²)
    half   = z / (n + z²) · sqrt(k (n − k) / n + z²/4)

The interval is ``[centre − half, centre + half]``; it is exactly 0 at the
lower end when ``k = 0`` and exactly 1 at the upper end when ``k = n``.  It
describes case-level binary counts only, not a population.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pytest_openmed.errors import InputRefused, InvalidArgument

#: Standard normal quantile for a two-sided 95% interval (Φ⁻¹(0.975)).
Z_95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class WilsonInterval:
    lower: float
    upper: float


def wilson_interval(count: int, n: int, z: float = Z_95) -> WilsonInterval:
    """The Wilson score interval of ``count`` successes in ``n ≥ 1`` trials."""
    if type(count) is not int or type(n) is not int:
        raise InvalidArgument("count and n must be integers")
    if n < 1 or not 0 <= count <= n:
        raise InputRefused("a Wilson interval needs n >= 1 and 0 <= count <= n")
    if type(z) is not float or not math.isfinite(z) or z <= 0:
        raise InputRefused("z must be a positive finite float")
    z2 = z * z
    centre = (count + z2 / 2) / (n + z2)
    half = z / (n + z2) * math.sqrt(count * (n - count) / n + z2 / 4)
    lower = 0.0 if count == 0 else max(0.0, centre - half)
    upper = 1.0 if count == n else min(1.0, centre + half)
    return WilsonInterval(lower=lower, upper=upper)
