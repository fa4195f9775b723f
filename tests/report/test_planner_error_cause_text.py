"""A planner error's cause is in the one-line verdict text (terminal summary, Markdown)."""

from __future__ import annotations

from pytest_openmed.report.summary import verdict_text


def entry(**metrics: object) -> dict[str, object]:
    return {
        "status": "critical",
        "reason": "planner_error",
        "kind": "planner",
        "expected": None,
        "metrics": {"planner_errors": 1, "task_completion": 0, **metrics},
    }


def test_the_cause_follows_the_planner_error_count() -> None:
    text = verdict_text(entry(planner_error_cause="returned_not_a_list"))
    assert text.endswith(
        "planner_errors=1, planner_error_cause=returned_not_a_list, task_completion=0"
    )


def test_a_verdict_without_a_cause_reads_as_before() -> None:
    assert verdict_text(entry()).endswith("; planner_errors=1, task_completion=0")
