"""The report every validation script prints: each target, its figure, whether it holds.

A script adds one line per target (or per measured figure that is no target)
and ends with :meth:`Report.summary`, whose value is the script's exit status:
1 when any target fails, else 0.  :func:`peak_target` is the line of a
resource-bound case, measured by ``pytest_openmed.development.peak_memory``.

The scripts run as ``python validation/<script>.py`` (this folder is then first
on ``sys.path``, so this module is ``_report``) and are imported by the tests
as ``validation.<script>`` (then it is ``validation._report``); they import it
the one way or the other by ``__package__``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_openmed.development.peak_memory import PEAK_TARGET_MIB, measure

#: Width of the target column; a longer target pushes its figure right.
TARGET_WIDTH = 66


@dataclass(frozen=True, slots=True)
class Target:
    """One printed line: what is claimed, the measured figure, and whether it holds.

    ``holds`` is ``None`` for a figure that is measured and shown but is no
    target (an operating-range edge, a distribution): it never fails the run.
    """

    name: str
    figure: str
    holds: bool | None


class Report:
    """Prints targets as they are measured and counts the ones that fail."""

    def __init__(self) -> None:
        self.failed = 0

    def verdict(self, holds: bool | None) -> str:
        """``holds``, ``FAILS`` (counted) or ``info`` for a figure that is no target."""
        if holds is None:
            return "info"
        self.failed += not holds
        return "holds" if holds else "FAILS"

    def line(self, name: str, figure: str, holds: bool | None) -> None:
        print(f"{self.verdict(holds):<6} {name:<{TARGET_WIDTH}} {figure}")

    def add(self, target: Target) -> None:
        self.line(target.name, target.figure, target.holds)

    def summary(self) -> int:
        """Print the outcome; the script's exit status (1 when a target fails)."""
        print(f"\n{f'{self.failed} target(s) fail' if self.failed else 'all targets hold'}")
        return 1 if self.failed else 0


def peak_target(report: Report, label: str, component: str, asset: bytes, expected: str) -> None:
    """One resource-bound target: ``component`` run on ``asset`` in its own process ends
    ``expected`` (``ran`` or the refusing error's name) and peaks under the target."""
    peak = measure(component, asset)
    report.line(
        f"{label}: {expected}, < {PEAK_TARGET_MIB:.0f} MiB",
        f"{peak.outcome}, {peak.mib:.0f} MiB peak",
        peak.outcome == expected and peak.mib < PEAK_TARGET_MIB,
    )
