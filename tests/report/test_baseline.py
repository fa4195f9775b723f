"""Baselines: a claims verdict regresses only when its interval lies above the baseline's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.contract import GateResult, GateStatus
from pytest_openmed.report.baseline import BaselineError, load_baseline
from tests._files import file_writer, read_or_refuse

NODE = "gates.openmed.toml::claims(notes)::overall"
write = file_writer("base.json")


def baseline(tmp_path: Path, lower: float, rate: float, upper: float, kind: str = "claims") -> Path:
    gate = {
        "nodeid": NODE,
        "part": None,
        "kind": kind,
        "metrics": {"lower": lower, "unsupported_rate": rate, "upper": upper},
    }
    return write(tmp_path, json.dumps({"schema_version": "1.0", "gates": [gate]}))


def verdict(
    lower: float, rate: float, upper: float, status: GateStatus = GateStatus.PASSED
) -> GateResult:
    return GateResult(
        "claims", status, "ok", {"lower": lower, "unsupported_rate": rate, "upper": upper}
    )


@pytest.mark.parametrize(
    ("current", "regressed"),
    [((0.21, 0.3, 0.4), True), ((0.2, 0.3, 0.4), False), ((0.0, 0.1, 0.2), False)],
)
def test_regression_means_the_whole_interval_is_above(
    tmp_path: Path, current: tuple[float, float, float], regressed: bool
) -> None:
    judged = load_baseline(baseline(tmp_path, 0.05, 0.1, 0.2)).compare(
        NODE, None, verdict(*current)
    )
    assert (judged.status is GateStatus.THRESHOLD) is regressed
    if regressed:
        assert judged.reason == "baseline_regression"
        assert judged.metrics["rate_increase"] == pytest.approx(0.2)


def test_a_failing_verdict_keeps_its_rule_and_still_carries_its_baseline_and_regression(
    tmp_path: Path,
) -> None:
    # [0, 0.175] -> [0.275, 0.600]: the verdict breaks its threshold *and* regressed.
    base = load_baseline(baseline(tmp_path, 0.0, 0.05, 0.175))
    failing = GateResult(
        "claims",
        GateStatus.THRESHOLD,
        "unsupported_rate",
        {"lower": 0.275, "unsupported_rate": 0.4, "upper": 0.6, "max_unsupported_rate": 0.1},
    )
    judged = base.compare(NODE, None, failing)
    assert (judged.status, judged.reason) == (GateStatus.THRESHOLD, "unsupported_rate")
    assert judged.metrics["baseline_upper"] == 0.175
    assert judged.metrics["baseline_regressed"] is True
    assert judged.metrics["rate_increase"] == pytest.approx(0.35)


def test_a_matched_verdict_that_did_not_regress_says_so(tmp_path: Path) -> None:
    base = load_baseline(baseline(tmp_path, 0.05, 0.1, 0.2))
    for status in (GateStatus.PASSED, GateStatus.THRESHOLD):
        judged = base.compare(NODE, None, verdict(0.1, 0.15, 0.3, status))
        assert judged.status is status
        assert judged.metrics["baseline_regressed"] is False
        assert "rate_increase" not in judged.metrics


def test_other_kinds_and_unknown_gates_are_left_alone(tmp_path: Path) -> None:
    base = load_baseline(baseline(tmp_path, 0.0, 0.0, 0.0))
    assert base.compare("other", None, verdict(0.5, 0.6, 0.7)).passed
    assert "baseline_regressed" not in base.compare("other", None, verdict(0.5, 0.6, 0.7)).metrics
    pack = GateResult("pack", GateStatus.PASSED, "ok", {})
    assert base.compare(NODE, None, pack) is pack


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200))
def test_arbitrary_text_is_read_or_refused_with_a_baseline_error(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    read_or_refuse(tmp_path_factory, "base.json", text, load_baseline, BaselineError)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=15,
)


@settings(max_examples=200, deadline=None)
@given(
    gates=st.lists(
        st.dictionaries(st.sampled_from(["nodeid", "part", "kind", "metrics"]), json_values),
        max_size=3,
    )
)
def test_arbitrary_gate_entries_are_read_or_refused(
    tmp_path_factory: pytest.TempPathFactory, gates: list[dict[str, object]]
) -> None:
    path = write(
        tmp_path_factory.mktemp("b"), json.dumps({"schema_version": "1.0", "gates": gates})
    )
    try:
        load_baseline(path)
    except BaselineError:
        pass
