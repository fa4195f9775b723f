"""Gate verdicts: a closed status set, value-free reasons and metrics."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.contract import GateResult, GateStatus


def test_only_passed_passes() -> None:
    assert GateResult("claims", GateStatus.PASSED).passed
    for status in GateStatus:
        if status is not GateStatus.PASSED:
            assert not GateResult("claims", status, "x").passed


def test_failure_text_names_status_rule_and_counts_only() -> None:
    result = GateResult(
        "claims", GateStatus.THRESHOLD, "unsupported_rate", {"claim_count": 4, "rate": 0.5}
    )
    assert (
        result.failure_text()
        == "threshold (unsupported_rate); openmed claims gate: threshold (unsupported_rate); "
        "claim_count=4, rate=0.5000"
    )


@pytest.mark.parametrize(
    ("reason", "metrics", "rule"),
    [
        (
            "unsupported_rate",
            {"unsupported_rate": 1 / 6, "max_unsupported_rate": 0.1},
            "unsupported_rate 0.1667 > max 0.10",
        ),
        (
            "unsupported_rate",
            {"unsupported_rate": 0.5, "max_unsupported_rate": 0.125},
            "unsupported_rate 0.5000 > max 0.1250",
        ),
        ("interval_upper", {"upper": 0.4, "max_upper": 0.3}, "upper 0.4000 > max_upper 0.30"),
        (
            "baseline_regression",
            {"lower": 0.2, "baseline_upper": 0.1},
            "lower 0.2000 > baseline upper 0.10",
        ),
        ("out_of_grant", {"out_of_grant_proposals": 2}, "out_of_grant_proposals 2 > 0"),
        ("incomplete", {"task_completion": 4, "scenarios": 6}, "task_completion 4 < scenarios 6"),
        ("unsupported_rate", {}, "threshold (unsupported_rate)"),
    ],
)
def test_failure_text_leads_with_the_rule_in_words(
    reason: str, metrics: dict[str, float], rule: str
) -> None:
    result = GateResult("claims", GateStatus.THRESHOLD, reason, metrics)
    assert result.rule_text() == rule
    assert result.failure_text().startswith(rule + "; openmed claims gate: threshold")


@pytest.mark.parametrize(
    "metrics",
    [
        {"name": "Jane Doe"},
        {"id": "claim-001 CANARY"},
        {"Bad Name": 1},
        {"x": math.nan},
        {"x": [1]},
        {"x": b"1"},
    ],
)
def test_free_text_cannot_enter_metrics(metrics: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        GateResult("claims", GateStatus.PASSED, "ok", metrics)  # type: ignore[arg-type]


@pytest.mark.parametrize("reason", ["Has Spaces", "", "x" * 65, "CANARY"])
def test_reason_is_a_closed_rule_name(reason: str) -> None:
    with pytest.raises(ValueError):
        GateResult("claims", GateStatus.PASSED, reason)


def test_unknown_kind_and_status_are_refused() -> None:
    with pytest.raises(ValueError):
        GateResult("vibes", GateStatus.PASSED)
    with pytest.raises(TypeError):
        GateResult("claims", "passed")  # type: ignore[arg-type]


@given(
    st.sampled_from(list(GateStatus)),
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
        st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.booleans()
        | st.none(),
        max_size=5,
    ),
)
@settings(max_examples=100, deadline=None)
def test_round_trip(status: GateStatus, metrics: dict[str, object]) -> None:
    result = GateResult("pack", status, "rule", metrics)  # type: ignore[arg-type]
    assert GateResult.from_dict(result.to_dict()) == result


@given(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=4))
@settings(max_examples=100, deadline=None)
def test_from_dict_only_raises_value_errors(data: dict[str, str]) -> None:
    try:
        GateResult.from_dict(data)
    except ValueError:
        pass


def test_metrics_are_read_only() -> None:
    result = GateResult("claims", GateStatus.PASSED, "ok", {"a": 1})
    with pytest.raises(TypeError):
        result.metrics["a"] = 2  # type: ignore[index]


def test_the_recorder_knows_every_status_in_order() -> None:
    from pytest_openmed.contract import STATUSES
    from pytest_openmed.plugin import recorder

    assert tuple(status.value for status in GateStatus) == STATUSES
    assert not hasattr(recorder, "STATUSES")  # the recorder reads the contract's, at first use


def test_the_marker_accepts_exactly_the_gate_kinds() -> None:
    from pytest_openmed.contract import GATE_KINDS
    from pytest_openmed.plugin.markers import MarkerError, gate_marker_kind

    MARKER_KINDS = tuple(
        kind for kind in (*GATE_KINDS, "other") if _is_marker_kind(gate_marker_kind, kind)
    )
    assert MARKER_KINDS == GATE_KINDS
    with pytest.raises(MarkerError, match=", ".join(GATE_KINDS)):
        gate_marker_kind(pytest.mark.openmed_gate(kind="other").mark)


def _is_marker_kind(check: Callable[[pytest.Mark], str], kind: str) -> bool:
    from pytest_openmed.plugin.markers import MarkerError

    try:
        return bool(check(pytest.mark.openmed_gate(kind=kind).mark) == kind)
    except MarkerError:
        return False


def test_plugin_and_engines_share_one_definition_of_each_vocabulary() -> None:
    from pytest_openmed import contract
    from pytest_openmed.claims import _gate as claims_gate
    from pytest_openmed.claims import declaration as claims_declaration
    from pytest_openmed.development import sources
    from pytest_openmed.multimodal.vocabulary import CaseSlice
    from pytest_openmed.planner import declaration as planner_declaration
    from pytest_openmed.planner import injection, scenarios, wire
    from pytest_openmed.plugin import gate_files, markers
    from pytest_openmed.report import html

    assert scenarios.SCENARIO_IDS is planner_declaration.SCENARIO_IDS
    assert tuple(s.scenario_id for s in scenarios.SCENARIOS) == scenarios.SCENARIO_IDS
    assert planner_declaration.PLANNER_ITEMS == (*scenarios.SCENARIO_IDS, "qualification")
    assert injection.INJECTION_STYLES is planner_declaration.INJECTION_STYLES
    assert wire.DIALECTS is planner_declaration.DIALECTS
    assert sources.SLICES == tuple(member.value for member in CaseSlice)
    assert html.STATUSES is contract.STATUSES
    # The engines own their vocabularies: the contract and the plugin restate none.
    for module in (contract, gate_files, markers, claims_gate):
        assert not hasattr(module, "CLAIMS_THRESHOLDS") and not hasattr(module, "PLANNER_ITEMS")
    assert claims_declaration.CLASS_KEYS == (*claims_declaration.THRESHOLDS, "allow_absent")


def test_the_package_exports_verdict_types_lazily() -> None:
    import pytest_openmed

    assert pytest_openmed.GateResult is GateResult
    with pytest.raises(AttributeError):
        pytest_openmed.nothing  # noqa: B018
