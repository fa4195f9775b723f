"""Report value objects: invariants, JSON/Markdown, from_json revalidation and the JSON Schema."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import (
    BootstrapInterval,
    ClaimClassMetrics,
    UnsupportedClaimsReport,
    messages,
    score_summary_claims,
)
from pytest_openmed.schemas import load_schema

from ._support import assert_fixed, claim, evidence

SCHEMA = load_schema("claims-report")


def sample_report(seed: int = 4) -> UnsupportedClaimsReport:
    claims = [
        claim("c1", ["e1"], claim_class="lab"),
        claim("c2", ["e2"], claim_class="lab", claim_key="k2"),
        claim("c3", [], claim_class="lab"),
        claim("c4", ["e3"], claim_class="vital"),
        claim("c5", ["e1"], claim_class="Ward Round"),
        claim("c6", ["e1"], claim_class="ward round"),
    ]
    rows = [evidence("e1"), evidence("e2", "contradicts"), evidence("e3")]
    return score_summary_claims(claims, rows, n_resamples=300, seed=seed, alpha=0.1)


def tampered(change: Callable[[dict[str, Any]], object]) -> str:
    document = json.loads(sample_report().to_json())
    change(document)
    return json.dumps(document)


def refused(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        UnsupportedClaimsReport.from_json(text)
    assert str(caught.value) == message
    assert_fixed(caught.value)


def test_round_trip_is_byte_identical_and_equal() -> None:
    report = sample_report()
    again = UnsupportedClaimsReport.from_json(report.to_json())
    assert again == report
    assert again.to_json() == report.to_json()
    assert again.to_markdown() == report.to_markdown()
    assert again.seed == 4 and again.n_resamples == 300 and again.alpha == 0.1


def test_report_json_validates_against_the_shipped_schema() -> None:
    for report in (sample_report(), score_summary_claims([], []), sample_report(seed=9)):
        jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(report.to_json()))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_schema_rejects_what_from_json_rejects_structurally() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    document = json.loads(sample_report().to_json())
    changes: list[Callable[[dict[str, Any]], object]] = [
        lambda d: d.update(extra=1),
        lambda d: d["by_claim_class"].update(Lab=d["by_claim_class"]["lab"]),
        lambda d: d["overall"]["interval"].update(lower=-0.1),
        lambda d: d["evidence"].update(digest="md5:0"),
    ]
    for change in changes:
        broken = copy.deepcopy(document)
        change(broken)
        assert not validator.is_valid(broken)


def test_markdown_shows_the_numbers_and_the_notice() -> None:
    report = sample_report()
    text = report.to_markdown()
    assert text.startswith("# Unsupported-claims report\n")
    assert "Non-diagnostic" in text
    assert "| overall | 6 | 4 | 1 | 0 | 1 | 2 | 0.3333 |" in text
    assert "300 resamples, alpha 0.1, seed 4" in text
    for name in report.by_claim_class:
        assert f"| {name} |" in text


def test_custom_classes_appear_only_as_tokens_and_merge_after_normalisation() -> None:
    report = sample_report()
    tokens = [name for name in report.by_claim_class if name.startswith("class_")]
    assert len(tokens) == 1
    assert report.by_claim_class[tokens[0]].claim_count == 2
    assert "ward" not in report.to_json().lower()


# --- tampering -------------------------------------------------------------------------------


def first_class(d: dict[str, Any]) -> dict[str, Any]:
    lab: dict[str, Any] = d["by_claim_class"]["lab"]
    return lab


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: first_class(d)["counts"].update(supported=2), messages.REPORT_COUNTS),
        (lambda d: first_class(d).update(claim_count=4), messages.REPORT_COUNTS),
        (lambda d: first_class(d).update(unsupported_count=1), messages.REPORT_COUNTS),
        (lambda d: d["overall"]["counts"].update(uncited=2), messages.REPORT_COUNTS),
        (
            lambda d: (
                d["overall"]["counts"].update(uncited=2),
                d["overall"].update(claim_count=7, unsupported_count=4, unsupported_rate=4 / 7),
                d["overall"]["interval"].update(point=4 / 7),
            ),
            messages.REPORT_COUNTS,
        ),
        (lambda d: first_class(d).update(unsupported_rate=0.5), messages.REPORT_RATE),
        (lambda d: d["overall"].update(unsupported_rate=0.3333), messages.REPORT_RATE),
        (lambda d: first_class(d)["interval"].update(point=0.5), messages.REPORT_INTERVAL_POINT),
        (
            lambda d: first_class(d)["interval"].update(lower=0.9, upper=0.1),
            messages.REPORT_INTERVAL,
        ),
        (lambda d: first_class(d)["interval"].update(upper=0.5), messages.REPORT_INTERVAL),
        (lambda d: first_class(d)["interval"].update(lower=1.5), messages.REPORT_NUMBER),
        (lambda d: first_class(d)["interval"].update(degenerate=True), messages.REPORT_DEGENERATE),
        (
            lambda d: d["by_claim_class"]["vital"]["interval"].update(degenerate=False),
            messages.REPORT_DEGENERATE,
        ),
        (
            lambda d: d["by_claim_class"]["vital"]["interval"].update(upper=1.0),
            messages.REPORT_DEGENERATE,
        ),
        (
            lambda d: first_class(d)["interval"].update(n_resamples=301),
            messages.REPORT_CONFIGURATION,
        ),
        (lambda d: first_class(d)["interval"].update(alpha=0.05), messages.REPORT_CONFIGURATION),
        (lambda d: d["configuration"].update(alpha=0.05), messages.REPORT_CONFIGURATION),
        (lambda d: d["configuration"].update(n_resamples=1000), messages.REPORT_CONFIGURATION),
        (lambda d: d["configuration"].update(seed=-1), messages.SEED_RANGE),
        (lambda d: d["configuration"].update(seed=1.0), messages.REPORT_NUMBER),
        (lambda d: d.update(extra=True), messages.REPORT_SHAPE),
        (lambda d: d["overall"].update(claim_ids=[]), messages.REPORT_SHAPE),
        (lambda d: first_class(d)["interval"].update(method="bca"), messages.REPORT_SHAPE),
        (lambda d: first_class(d)["counts"].update(unknown=0), messages.REPORT_SHAPE),
        (lambda d: d["evidence"].pop("digest"), messages.REPORT_SHAPE),
        (lambda d: d.pop("notice"), messages.REPORT_SHAPE),
        (lambda d: d.update(notice="certified"), messages.REPORT_SHAPE),
        (lambda d: d.update(by_claim_class=[]), messages.REPORT_SHAPE),
        (lambda d: d.update(schema_version=2), messages.REPORT_VERSION),
        (lambda d: d.update(schema_version=True), messages.REPORT_VERSION),
        (lambda d: d.update(schema="other"), messages.REPORT_VERSION),
        (lambda d: d["evidence"].update(digest="sha256:abc"), messages.REPORT_DIGEST),
        (lambda d: d["evidence"].update(count=200_001), messages.REPORT_EVIDENCE_COUNT),
        (lambda d: d["evidence"].update(count=True), messages.REPORT_EVIDENCE_COUNT),
        (lambda d: first_class(d).update(claim_count=3.0), messages.REPORT_NUMBER),
        (lambda d: first_class(d)["counts"].update(uncited=True), messages.REPORT_NUMBER),
        (lambda d: first_class(d)["interval"].update(degenerate=0), messages.REPORT_NUMBER),
        (lambda d: first_class(d).update(unsupported_rate="0.5"), messages.REPORT_NUMBER),
        (
            lambda d: d["by_claim_class"].update(Lab=d["by_claim_class"].pop("lab")),
            messages.REPORT_CLASS,
        ),
        (
            lambda d: d["by_claim_class"].update(ward_round=d["by_claim_class"].pop("vital")),
            messages.REPORT_CLASS,
        ),
    ],
)
def test_tampered_reports_are_refused(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    refused(tampered(change), message)


def test_a_class_with_zero_claims_is_refused() -> None:
    empty = {
        "claim_count": 0,
        "counts": {"supported": 0, "contradicted": 0, "unresolved": 0, "uncited": 0},
        "unsupported_count": 0,
        "unsupported_rate": 0.0,
        "interval": {
            "lower": 0.0,
            "upper": 0.0,
            "point": 0.0,
            "n_resamples": 300,
            "alpha": 0.1,
            "degenerate": True,
        },
    }
    refused(tampered(lambda d: d["by_claim_class"].update(other=empty)), messages.REPORT_CLASS)


def test_a_report_over_the_draw_budget_is_refused() -> None:
    document = json.loads(score_summary_claims([claim(i, []) for i in range(100)], []).to_json())
    for part in (document["overall"], document["by_claim_class"]["diagnosis"]):
        part["interval"]["n_resamples"] = 100_000
    document["configuration"]["n_resamples"] = 100_000
    UnsupportedClaimsReport.from_json(json.dumps(document))
    document["overall"]["counts"]["uncited"] = 101
    document["overall"]["claim_count"] = document["overall"]["unsupported_count"] = 101
    document["by_claim_class"]["diagnosis"] = copy.deepcopy(document["overall"])
    refused(json.dumps(document), messages.TOO_MANY_DRAWS)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        "{",
        '{"schema": NaN}',
        '{"a": 1, "a": 1}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_text_that_is_not_a_report_is_refused(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        UnsupportedClaimsReport.from_json(text)
    assert_fixed(caught.value)


def test_duplicate_keys_and_constants_are_not_json_for_a_report() -> None:
    text = sample_report().to_json()
    for old, new in (
        ('"schema_version": 1', '"schema_version": 1, "schema_version": 1'),
        ('"alpha": 0.1', '"alpha": NaN'),
        ('"alpha": 0.1', '"alpha": Infinity'),
    ):
        assert old in text
        refused(text.replace(old, new, 1), messages.REPORT_NOT_JSON)


def test_from_json_takes_text_of_bounded_size(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TypeError) as caught:
        UnsupportedClaimsReport.from_json(sample_report().to_json().encode())  # type: ignore[arg-type]
    assert str(caught.value) == messages.REPORT_TEXT_TYPE
    from pytest_openmed.claims import report as module

    monkeypatch.setattr(module, "_MAX_REPORT_CHARS", 10)
    refused(sample_report().to_json(), messages.REPORT_TOO_LARGE)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_edits_either_revalidate_or_are_refused_with_a_fixed_message(
    data: st.DataObject,
) -> None:
    document = json.loads(sample_report().to_json())
    paths: list[tuple[Any, str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append((node, key))
                walk(value)

    walk(document)
    node, key = data.draw(st.sampled_from(paths))
    node[key] = data.draw(
        st.none() | st.booleans() | st.integers(-2, 400) | st.floats(-1, 2) | st.text(max_size=3)
    )
    try:
        report = UnsupportedClaimsReport.from_json(json.dumps(document))
    except ValueError as error:
        assert_fixed(error)
    else:
        assert UnsupportedClaimsReport.from_json(report.to_json()) == report
        jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(report.to_json()))


# --- direct construction ---------------------------------------------------------------------


def interval(**changes: Any) -> BootstrapInterval:
    values: dict[str, Any] = {
        "lower": 0.2,
        "upper": 0.6,
        "point": 0.4,
        "n_resamples": 100,
        "alpha": 0.05,
        "degenerate": False,
    }
    values.update(changes)
    return BootstrapInterval(**values)


def test_value_objects_are_frozen_and_revalidate_on_construction() -> None:
    value = interval()
    with pytest.raises(AttributeError):
        value.lower = 0.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        interval(point=0.7)
    with pytest.raises(TypeError):
        interval(degenerate=1)
    with pytest.raises(TypeError):
        interval(lower=True)
    with pytest.raises(ValueError):
        interval(degenerate=True)
    metrics = ClaimClassMetrics.from_counts(
        {"supported": 3, "contradicted": 1, "unresolved": 0, "uncited": 1}, interval()
    )
    assert metrics.claim_count == 5 and metrics.unsupported_rate == 0.4
    with pytest.raises(ValueError):
        ClaimClassMetrics.from_counts({"supported": 3}, interval())
    with pytest.raises(TypeError):
        ClaimClassMetrics(5, metrics.counts, 2, 0.4, interval=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        UnsupportedClaimsReport(metrics, {"lab": "x"}, "sha256:" + "0" * 64, 0, 0)  # type: ignore[dict-item]


def test_reprs_show_only_public_numbers() -> None:
    report = sample_report()
    assert repr(report).startswith("UnsupportedClaimsReport(claim_count=6,")
    assert repr(report.overall).startswith("ClaimClassMetrics(claim_count=6,")
    assert repr(report.overall.interval).startswith("BootstrapInterval(lower=")


@pytest.mark.parametrize(
    "change",
    [
        lambda d: first_class(d).update(unsupported_rate=10**400),
        lambda d: first_class(d)["interval"].update(lower=-(10**309)),
        lambda d: d["configuration"].update(alpha=10**308 * 10),
    ],
)
def test_a_309_digit_integer_is_a_value_error_not_an_overflow(
    change: Callable[[dict[str, Any]], object],
) -> None:
    refused(tampered(change), messages.REPORT_NUMBER)
