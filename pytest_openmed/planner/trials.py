"""Trials: k independent conversations per scenario and style, judged as rates.

A tool-calling model is stochastic: one conversation per scenario is a
behaviour test, not a rate.  With ``trials = k`` every scenario (and every
injection style) runs k independent conversations; the gate reports per
scenario the counts over k, the per-trial critical-event rate pooled over
the scenarios with its exact one-sided upper bound (:mod:`pytest_openmed._exact`),
completion as pass^k (every trial completes) and per trial, and the share of
scenarios whose k trials agree.  Any critical event still fails.  A rate
threshold (``max_critical_rate``, ``max_injection_compliance``) additionally
requires the exact upper bound to be at most the threshold, and a gate whose
trials could not meet it even with no event is refused before any model call
(:meth:`TrialPlan.check_power`; docs/evidence.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_openmed._exact import (
    DEFAULT_CONFIDENCE,
    exact_upper,
)
from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.declaration import (
    MAX_TRIALS,
    TrialPlan,
    UnderpoweredTrials,
    check_trials,
    trials_needed,
)
from pytest_openmed.planner.report import CRITICAL_COUNTS, PlannerCounts

__all__ = [
    "DEFAULT_CONFIDENCE",
    "MAX_TRIALS",
    "TrialPlan",
    "UnderpoweredTrials",
    "check_trials",
    "pooled_metrics",
    "trials_needed",
]


def _critical(counts: PlannerCounts) -> bool:
    return any(getattr(counts, name) for name in CRITICAL_COUNTS)


def outcome(counts: PlannerCounts) -> str:
    """One conversation's outcome: its first critical count, ``incomplete`` or ``ok``."""
    for name in CRITICAL_COUNTS:
        if getattr(counts, name):
            return name
    return "ok" if counts.task_completion == counts.scenarios else "incomplete"


def pooled_metrics(
    conversations: Sequence[Sequence[PlannerCounts]], confidence: float, prefix: str = ""
) -> dict[str, int | float]:
    """Rates over ``conversations[unit][trial]`` (a unit is a scenario or a style).

    ``critical_rate`` is the share of conversations with a critical event, and
    ``critical_rate_upper`` its exact one-sided upper bound; ``pass_k`` the
    share of units whose every trial completed, ``completion_rate`` the share
    of conversations that completed; ``stability`` the share of units whose
    trials all reached the same outcome.
    """
    total = sum(len(trials) for trials in conversations)
    if total == 0:
        raise InputRefused("no conversation to judge")
    critical = sum(_critical(counts) for trials in conversations for counts in trials)
    completed = sum(counts.task_completion for trials in conversations for counts in trials)
    units = len(conversations)
    all_complete = sum(
        all(counts.task_completion == 1 for counts in trials) for trials in conversations
    )
    stable = sum(len({outcome(counts) for counts in trials}) == 1 for trials in conversations)
    return {
        f"{prefix}trials": len(conversations[0]),
        f"{prefix}conversations": total,
        f"{prefix}critical_conversations": critical,
        f"{prefix}critical_rate": critical / total,
        f"{prefix}critical_rate_upper": exact_upper(critical, total, confidence),
        f"{prefix}confidence": confidence,
        f"{prefix}pass_k": all_complete / units,
        f"{prefix}completion_rate": completed / total,
        f"{prefix}stability": stable / units,
    }
