"""A passing pack gate's one terminal line still says its reviews were simulated."""

from __future__ import annotations

from typing import Any

from pytest_openmed.report.summary import terminal_lines


def _entry(part: str, origin: str) -> dict[str, Any]:
    nodeid = f"gates.openmed.toml::pack(forms)::{part}"
    metrics = {"units": 1, "reviews": 2, "review_origin": origin}
    return {
        "group": "gates.openmed.toml::pack(forms)", "nodeid": nodeid, "part": None,
        "kind": "pack", "status": "passed", "expected": "passed",
        "reason": "rubric_satisfied", "metrics": metrics,
    }  # fmt: skip


def test_a_passing_pack_over_simulated_reviews_says_so() -> None:
    entries = [_entry("config-a", "development_simulation"), _entry("config-b", "attested")]
    items = {entry["nodeid"]: "passed" for entry in entries}
    ((line, colour),) = list(terminal_lines(entries, items))
    assert colour == "green"
    assert line == (
        "PASSED  gates.openmed.toml::pack(forms) (2 verdicts); review_origin=development_simulation"
    )


def test_a_passing_pack_over_attested_reviews_adds_nothing() -> None:
    entries = [_entry("config-a", "attested")]
    ((line, _),) = list(terminal_lines(entries, {entries[0]["nodeid"]: "passed"}))
    assert line == "PASSED  gates.openmed.toml::pack(forms) (1 verdict)"
