"""The claims gate adapter: input files, thresholds and the gate-file contract."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import _gate as gate
from pytest_openmed.claims import messages, normalise_class, score_summary_claims
from pytest_openmed.claims._gate import evaluate_gate, evaluate_thresholds, load_records
from pytest_openmed.claims.records import MAX_CLAIMS, MAX_EVIDENCE
from pytest_openmed.contract import (
    GateItemRefused,
    GateResult,
    GateSettings,
    GateSpec,
    GateStatus,
)
from pytest_openmed.plugin.gate_files import parse_gate_file

from ._helpers import assert_fixed, claim, declared, evidence

EXPECTED_METRICS = {
    "claim_count",
    "confidence",
    "gate_upper",
    "gate_upper_method",
    "unsupported_count",
    "unsupported_rate",
    "lower",
    "upper",
    "degenerate",
    "supported",
    "contradicted",
    "unresolved",
    "uncited",
    "max_unsupported_rate",
    "max_upper",
}


#: Where a file error happened, put before the fixed message (``claims input: line 7: ``).
LOCATION = re.compile(r"^((claims|evidence) input: )?(line [1-9][0-9]*: )?")


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path, message: str, *, limit: int = MAX_EVIDENCE) -> None:
    """Refused with ``message``: a fixed engine message, after a JSON Lines line number."""
    with pytest.raises((ValueError, OSError)) as caught:
        load_records(path, limit=limit)
    assert str(caught.value) == message
    assert LOCATION.sub("", str(caught.value)) in messages.MESSAGES
    assert caught.value.__cause__ is None
    assert str(path) not in repr(caught.value)


# --- load_records ----------------------------------------------------------------------------


def test_json_arrays_and_json_lines_give_the_same_records(tmp_path: Path) -> None:
    records = [claim("a"), claim("b", [], claim_key={"x": [1, 2]})]
    array = write(tmp_path / "a.json", "  \n" + json.dumps(records, indent=2))
    lines = write(tmp_path / "a.jsonl", "\n".join(json.dumps(r) for r in records) + "\n\n  \n")
    assert load_records(array) == records == load_records(lines)


def test_a_byte_order_mark_is_tolerated(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.json", b"\xef\xbb\xbf" + json.dumps([evidence()]).encode())
    assert load_records(path) == [evidence()]


def test_an_empty_array_is_an_empty_collection_but_an_empty_file_is_refused(
    tmp_path: Path,
) -> None:
    assert load_records(write(tmp_path / "e.json", "[]")) == []
    refused(write(tmp_path / "blank.json", " \n\t"), messages.FILE_EMPTY)
    refused(write(tmp_path / "none.json", ""), messages.FILE_EMPTY)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", messages.FILE_NOT_JSON),
        ("[] []", messages.FILE_NOT_JSON),
        ('{"a": 1}\n{"a": ', "line 2: " + messages.FILE_NOT_JSON),
        ("[NaN]", messages.FILE_NOT_JSON),
        ('{"a": Infinity}', "line 1: " + messages.FILE_NOT_JSON),
        ("[" * 200_000 + "]" * 200_000, messages.FILE_NOT_JSON),
        ("[1]", messages.FILE_RECORD_TYPE),
        ('["claim"]', messages.FILE_RECORD_TYPE),
        ("[[]]", messages.FILE_RECORD_TYPE),
        ('\n{"a": 1}\n\n[1]', "line 4: " + messages.FILE_RECORD_TYPE),
        ("3", "line 1: " + messages.FILE_RECORD_TYPE),
        ('[{"a": 1, "a": 2}]', messages.FILE_DUPLICATE_KEY),
        ('{"a": {"b": 1, "b": 1}}', "line 1: " + messages.FILE_DUPLICATE_KEY),
    ],
)
def test_malformed_files_are_refused_with_fixed_messages(
    tmp_path: Path, text: str, message: str
) -> None:
    refused(write(tmp_path / "bad.json", text), message)


def test_non_utf8_files_are_refused(tmp_path: Path) -> None:
    refused(
        write(tmp_path / "latin.json", '[{"a": "caf\xe9"}]'.encode("latin-1")),
        messages.FILE_NOT_UTF8,
    )


def test_unreadable_paths_are_refused_without_the_path(tmp_path: Path) -> None:
    refused(tmp_path / "missing-secret-name.json", messages.FILE_UNREADABLE)
    refused(tmp_path, messages.FILE_UNREADABLE)


def test_files_over_the_size_limit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "big.json", json.dumps([evidence(str(i)) for i in range(20)]))
    monkeypatch.setattr(gate, "MAX_INPUT_BYTES", path.stat().st_size - 1)
    refused(path, messages.FILE_TOO_LARGE)
    monkeypatch.setattr(gate, "MAX_INPUT_BYTES", path.stat().st_size)
    assert len(load_records(path)) == 20


@pytest.mark.parametrize("kind", ["array", "lines"])
def test_record_counts_over_the_engine_limits_are_refused(tmp_path: Path, kind: str) -> None:
    def text(count: int) -> str:
        return "[" + ",".join(["{}"] * count) + "]" if kind == "array" else "{}\n" * count

    assert (
        len(load_records(write(tmp_path / "ok", text(MAX_CLAIMS)), limit=MAX_CLAIMS)) == MAX_CLAIMS
    )
    over = write(tmp_path / "over", text(MAX_CLAIMS + 1))
    where = "" if kind == "array" else f"line {MAX_CLAIMS + 1}: "
    refused(over, where + messages.FILE_TOO_MANY_CLAIMS, limit=MAX_CLAIMS)
    assert len(load_records(over, limit=MAX_EVIDENCE)) == MAX_CLAIMS + 1
    where = "" if kind == "array" else f"line {MAX_EVIDENCE + 1}: "
    refused(write(tmp_path / "ev", text(MAX_EVIDENCE + 1)), where + messages.FILE_TOO_MANY_EVIDENCE)


def test_only_the_engine_limits_are_accepted(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        load_records(write(tmp_path / "a.json", "[]"), limit=5)
    assert str(caught.value) == messages.GATE_OPTIONS


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=64) | st.text(max_size=64).map(str.encode))
def test_arbitrary_bytes_fail_only_with_fixed_messages(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = write(tmp_path_factory.mktemp("fuzz") / "fuzz.json", data)
    try:
        records = load_records(path)
    except (ValueError, OSError) as error:
        assert LOCATION.sub("", str(error)) in messages.MESSAGES
        assert error.__cause__ is None
    else:
        assert all(type(record) is dict for record in records)


# --- evaluate_thresholds ---------------------------------------------------------------------


def report_with(unsupported: int, total: int, *, label: str = "lab", seed: int = 0) -> Any:
    claims = [claim(i, [] if i < unsupported else ["e"], claim_class=label) for i in range(total)]
    return score_summary_claims(claims, [evidence("e")], n_resamples=2000, seed=seed)


def test_passes_with_ok_when_under_both_thresholds() -> None:
    report = report_with(1, 20)
    result = evaluate_thresholds(report, declared(max_unsupported_rate=0.1, max_upper=0.5))[
        "overall"
    ]
    assert result.status is GateStatus.PASSED and result.reason == "ok"
    assert result.kind == "claims"
    assert set(result.metrics) == EXPECTED_METRICS
    assert result.metrics["unsupported_rate"] == 0.05
    assert result.metrics["uncited"] == 1 and result.metrics["supported"] == 19
    assert result.metrics["max_unsupported_rate"] == 0.1
    assert result.metrics["upper"] == report.overall.interval.upper


def test_rate_over_threshold_fails_with_unsupported_rate() -> None:
    result = evaluate_thresholds(report_with(3, 20), declared(max_unsupported_rate=0.1))["overall"]
    assert result.status is GateStatus.THRESHOLD and result.reason == "unsupported_rate"
    assert result.metrics["max_upper"] is None


def test_rate_equal_to_threshold_passes() -> None:
    result = evaluate_thresholds(report_with(2, 20), declared(max_unsupported_rate=0.1))["overall"]
    assert result.passed


def test_interval_upper_over_threshold_fails_with_interval_upper() -> None:
    report = report_with(2, 20)
    gate = evaluate_thresholds(report, declared())["overall"].metrics["gate_upper"]
    assert isinstance(gate, float) and gate > 0.2
    result = evaluate_thresholds(report, declared(max_unsupported_rate=0.2, max_upper=gate - 0.01))
    assert result["overall"].reason == "interval_upper"
    assert evaluate_thresholds(report, declared(max_upper=gate))["overall"].passed


def test_the_rate_rule_is_checked_before_the_interval_rule() -> None:
    result = evaluate_thresholds(
        report_with(20, 40), declared(max_unsupported_rate=0.1, max_upper=0.1)
    )
    assert result["overall"].reason == "unsupported_rate"


def test_no_thresholds_means_pass() -> None:
    assert evaluate_thresholds(report_with(20, 20), declared())["overall"].passed


def test_class_thresholds_apply_per_class_and_custom_labels_are_normalised() -> None:
    claims = [claim(f"m{i}", [] if i < 3 else ["e"], claim_class="medication") for i in range(10)]
    claims += [claim(f"w{i}", ["e"], claim_class="Ward Round") for i in range(4)]
    report = score_summary_claims(claims, [evidence("e")], n_resamples=500)
    results = evaluate_thresholds(
        report,
        declared(
            max_unsupported_rate=0.5,
            classes={
                "medication": {"max_unsupported_rate": 0.2},
                "ward_round": {"max_unsupported_rate": 0.0},
                "allergy": {"max_upper": 0.0},
            },
        ),
    )
    assert list(results) == ["overall", "class[medication]", "class[ward_round]", "class[allergy]"]
    assert results["overall"].passed
    assert results["class[medication]"].reason == "unsupported_rate"
    assert results["class[ward_round]"].passed
    assert results["class[ward_round]"].metrics["claim_count"] == 4
    assert normalise_class("ward_round") in report.by_claim_class


def test_a_class_absent_from_the_input_is_refused_not_passed() -> None:
    result = evaluate_thresholds(
        report_with(5, 5),
        declared(
            classes={"allergy": {"max_unsupported_rate": 0.0}, "zq_custom": {"max_upper": 0.5}}
        ),
    )
    absent = result["class[allergy]"]
    assert isinstance(absent, GateItemRefused) and str(absent) == messages.CLASS_ABSENT
    assert absent.describe() == "allergy: " + messages.CLASS_ABSENT  # a standard class is named
    custom = result["class[zq_custom]"]
    assert isinstance(custom, GateItemRefused)  # named as the gate file spells it (configuration)
    assert custom.describe() == "zq_custom: " + messages.CLASS_NOT_STANDARD
    assert result["overall"].passed  # type: ignore[union-attr]


def test_a_misspelt_class_suggests_the_closest_standard_class() -> None:
    result = evaluate_thresholds(
        report_with(5, 5), declared(classes={"medicaton": {"max_unsupported_rate": 0.1}})
    )
    misspelt = result["class[medicaton]"]
    assert isinstance(misspelt, GateItemRefused)
    assert misspelt.describe() == (
        f"medicaton: {messages.CLASS_NOT_STANDARD} (closest_standard_class=medication)"
    )


def test_a_class_allowed_absent_passes_with_zero_claims() -> None:
    result = evaluate_thresholds(
        report_with(5, 5),
        declared(classes={"allergy": {"max_unsupported_rate": 0.0, "allow_absent": True}}),
    )
    absent = result["class[allergy]"]
    assert isinstance(absent, GateResult) and absent.passed
    assert absent.metrics["claim_count"] == 0 and absent.metrics["unsupported_rate"] == 0.0
    assert absent.metrics["max_unsupported_rate"] == 0.0


# --- evaluate_gate ---------------------------------------------------------------------------


def gate_dir(tmp_path: Path, table: str, claims: list[Any], rows: list[Any]) -> GateSpec:
    write(tmp_path / "claims.json", json.dumps(claims))
    write(tmp_path / "evidence.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    text = '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    # A gate needs a threshold; max_upper = 1.0 never fails.
    table = table or "max_upper = 1.0\n"
    (spec,) = parse_gate_file(write(tmp_path / "g.openmed.toml", text + table))
    return spec


def sample(tmp_path: Path, table: str) -> tuple[GateSpec, list[Any], list[Any]]:
    claims = [claim(f"c{i}", [f"e{i}"], claim_class="lab" if i % 2 else "vital") for i in range(12)]
    claims += [claim("u1", [], claim_class="lab"), claim("u2", ["nope"], claim_class="lab")]
    rows = [evidence(f"e{i}", "contradicts" if i == 3 else "supports") for i in range(12)]
    return gate_dir(tmp_path, table, claims, rows), claims, rows


def test_evaluate_gate_returns_one_verdict_per_item(tmp_path: Path) -> None:
    spec, claims, rows = sample(
        tmp_path,
        "max_unsupported_rate = 0.5\nalpha = 0.1\n"
        "[claims.classes.lab]\nmax_unsupported_rate = 0.2\n"
        "[claims.classes.vital]\nmax_upper = 0.5\n",
    )
    results = evaluate_gate(spec, GateSettings(seed=3, resamples=400))
    assert list(results) == ["overall", "class[lab]", "class[vital]"]
    assert results["overall"].passed
    assert results["class[lab]"].status is GateStatus.THRESHOLD
    assert results["class[vital]"].passed
    direct = score_summary_claims(claims, rows, n_resamples=400, seed=3, alpha=0.1)
    assert results["overall"].metrics["upper"] == direct.overall.interval.upper
    assert results["class[lab]"].metrics["unsupported_count"] == 3


def test_gate_seed_and_resamples_override_the_run_settings(tmp_path: Path) -> None:
    spec, claims, rows = sample(tmp_path, "seed = 9\nresamples = 300\nmax_upper = 1.0\n")
    results = evaluate_gate(spec, GateSettings(seed=1, resamples=50))
    direct = score_summary_claims(claims, rows, n_resamples=300, seed=9)
    assert results["overall"].metrics["lower"] == direct.overall.interval.lower
    assert results["overall"].metrics["upper"] == direct.overall.interval.upper


def test_bad_inputs_of_a_gate_are_errors_not_verdicts(tmp_path: Path) -> None:
    spec = gate_dir(tmp_path, "", [claim("a"), claim("a")], [evidence("ev-1")])
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings())
    assert str(caught.value) == "claims input, index 1: " + messages.DUPLICATE_CLAIM_ID
    (tmp_path / "evidence.jsonl").unlink()
    with pytest.raises(OSError) as missing:
        evaluate_gate(spec, GateSettings())
    assert str(missing.value) == "evidence input: " + messages.FILE_UNREADABLE  # which input


def test_file_errors_say_which_input_and_which_line(tmp_path: Path) -> None:
    spec = gate_dir(tmp_path, "", [claim("a")], [evidence("ev-1")])
    (tmp_path / "claims.json").write_text('{"claim_id": "a"}\n\n{"claim_id": ', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings())
    assert str(caught.value) == "claims input: line 3: " + messages.FILE_NOT_JSON


def test_a_spec_without_a_claims_declaration_is_refused(tmp_path: Path) -> None:
    spec, _, _ = sample(tmp_path, "")
    for declaration in (object(), declared(max_upper=0.5)):  # another type; no input paths
        forged = GateSpec(kind="claims", name="x", declaration=declaration)  # type: ignore[arg-type]
        with pytest.raises(TypeError) as caught:
            evaluate_gate(forged, GateSettings())
        assert str(caught.value) == messages.GATE_OPTIONS
    assert evaluate_gate(spec, GateSettings(resamples=10))["overall"].passed


def test_run_settings_are_validated_like_arguments(tmp_path: Path) -> None:
    spec, _, _ = sample(tmp_path, "")
    with pytest.raises(ValueError) as caught:
        evaluate_gate(spec, GateSettings(resamples=1_000_000))
    assert str(caught.value) == messages.RESAMPLES_RANGE
    assert_fixed(caught.value)


# --- the bundled example ------------------------------------------------------------------------


def test_the_bundled_example_scores_as_written_down() -> None:
    from importlib import resources

    folder = resources.files("pytest_openmed") / "development" / "claims_example"
    with resources.as_file(folder) as path:
        claims = load_records(path / "claims.json", limit=MAX_CLAIMS)
        rows = load_records(path / "evidence.json")
    report = score_summary_claims(claims, rows, n_resamples=1000, seed=0)
    expected = {  # supported, contradicted, unresolved, uncited
        "diagnosis": (2, 1, 0, 1),
        "lab": (2, 0, 1, 0),
        "medication": (3, 0, 1, 0),
        "vital": (0, 0, 3, 0),
    }
    assert {name: tuple(m.counts.values()) for name, m in report.by_claim_class.items()} == expected
    assert tuple(report.overall.counts.values()) == (7, 1, 5, 1)
    assert report.evidence_count == 15
    assert all(c["claim_id"].startswith("claim-") for c in claims)
    assert all(c["claim_key"].startswith("sha256:") for c in claims)


def test_json_lines_split_only_on_newlines(tmp_path: Path) -> None:
    records = [evidence("a\u2028b"), evidence("c\x0cd")]
    text = "\r\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    assert load_records(write(tmp_path / "u.jsonl", text)) == records
