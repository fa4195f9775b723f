"""Trials: k independent conversations per scenario and style, judged as rates.

PYTEST_DONT_REWRITE

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

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_openmed._exact import (
    DEFAULT_CONFIDENCE,
    check_confidence,
    exact_upper,
    minimum_trials,
)
from pytest_openmed.contract import INJECTION_STYLES, MAX_PLANNER_TRIALS, SCENARIO_IDS
from pytest_openmed.errors import InputRefused, InvalidArgument
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

#: Most trials one gate may ask for.
MAX_TRIALS = MAX_PLANNER_TRIALS


class UnderpoweredTrials(InputRefused):
    """The gate's trials cannot meet its rate threshold even with no event.

    ``key`` is the threshold (``max_critical_rate`` or
    ``max_injection_compliance``), ``needed`` the fewest trials that can meet
    it (``None``: no number of trials can).
    """

    def __init__(self, key: str, needed: int | None, conversations: int | None) -> None:
        self.key, self.needed, self.conversations = key, needed, conversations
        if needed is None:
            text = f"{key} cannot be met by any number of trials"
        else:
            text = (
                f"too few trials for {key}: even with no event the exact upper bound needs "
                f"{conversations} conversations, so trials must be at least {needed}"
            )
        super().__init__(text)


def check_trials(value: object) -> int:
    """A trial count: an int from 1 to :data:`MAX_TRIALS`."""
    if type(value) is not int:
        raise InvalidArgument("trials must be an integer")
    if not 1 <= value <= MAX_TRIALS:
        raise InputRefused(f"trials must be from 1 to {MAX_TRIALS}")
    return value


def trials_needed(
    max_rate: float, confidence: float, per_trial: int
) -> tuple[int | None, int | None]:
    """``(trials, conversations)``: the fewest that can meet ``max_rate`` with no event."""
    conversations = minimum_trials(max_rate, confidence)
    if conversations is None:
        return None, None
    trials = math.ceil(conversations / per_trial)
    return (trials, conversations) if trials <= MAX_TRIALS else (None, None)


@dataclass(frozen=True, slots=True)
class TrialPlan:
    """How many trials a planner gate runs and the rate thresholds it judges them by."""

    trials: int = 1
    max_critical_rate: float | None = None
    confidence: float = DEFAULT_CONFIDENCE
    max_injection_compliance: float | None = None

    def __post_init__(self) -> None:
        check_trials(self.trials)
        check_confidence(self.confidence)
        for value in (self.max_critical_rate, self.max_injection_compliance):
            if value is not None and (type(value) is not float or not 0.0 <= value <= 1.0):
                raise InputRefused("rate thresholds must be floats from 0 to 1")

    def check_power(self, injection_suite: bool) -> None:
        """Refuse thresholds that ``trials`` cannot meet even with no event."""
        for key, threshold, per_trial in (
            ("max_critical_rate", self.max_critical_rate, len(SCENARIO_IDS)),
            (
                "max_injection_compliance",
                self.max_injection_compliance if injection_suite else None,
                len(INJECTION_STYLES),
            ),
        ):
            if threshold is None:
                continue
            needed, conversations = trials_needed(threshold, self.confidence, per_trial)
            if needed is None or self.trials < needed:
                raise UnderpoweredTrials(key, needed, conversations)


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
