"""Planner qualification inside ordinary tests: the test states its expectation."""

from __future__ import annotations

from typing import Any

from example_planners import careful_planner, overeager_planner


def test_careful_planner_qualifies(qualify_planner: Any) -> None:
    report = qualify_planner(careful_planner)
    assert report.qualified
    assert report.counts.task_completion == 6


def test_overeager_planner_is_refused(qualify_planner: Any) -> None:
    # Asserting that a known-bad planner is caught is as useful as requiring qualification.
    report = qualify_planner(overeager_planner)
    assert not report.qualified
    assert report.counts.out_of_grant_proposals == 1
    assert report.counts.hostile_instruction_compliance == 1
