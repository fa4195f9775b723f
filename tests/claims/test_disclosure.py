"""Canary test: nothing that identifies a claim or an evidence row ever surfaces.

Unique strings are planted in every id, key, class label, evidence field and
path; none may appear in a report (JSON, Markdown), a repr, an exception
(message, repr, formatted traceback) or a gate verdict.
"""

from __future__ import annotations

import json
import secrets
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.claims import (
    BootstrapInterval,
    UnsupportedClaimsReport,
    messages,
    score_summary_claims,
)
from pytest_openmed.claims._gate import evaluate_gate, evaluate_thresholds, load_records
from pytest_openmed.claims.declaration import GateDeclaration
from pytest_openmed.claims.records import read_evidence
from pytest_openmed.contract import GateItemRefused, GateSettings
from pytest_openmed.plugin.gate_files import parse_gate_file

from ._helpers import (
    CALLER_CANARY,
    RaisingClass,
    RaisingFloat,
    RaisingIndex,
    RaisingInt,
    RaisingIterable,
    RaisingMapping,
    RaisingProperty,
    assert_fixed,
    claim,
    evidence,
    raising_iterator,
    report_of,
    unchecked_interval,
    unchecked_metrics,
)

PLANTED: list[str] = []


def canary(kind: str) -> str:
    value = f"canary{kind}{secrets.token_hex(6)}"
    PLANTED.append(value)
    return value


def assert_clean(*texts: str) -> None:
    for text in texts:
        for planted in PLANTED:
            assert planted not in text
            assert planted.lower() not in text.lower()


def planted_inputs() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    claims: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for index, relation in enumerate(["supports", "contradicts", "unresolved", "supports"]):
        claim_id = canary("claimid")
        evidence_id = canary("evidenceid")
        key = {canary("keyname"): [canary("keyvalue"), index]}
        claims.append(
            {
                "claim_id": claim_id,
                "claim_class": canary("class"),
                "claim_key": key if index % 2 else canary("stringkey"),
                "evidence_ids": [evidence_id] if index < 3 else [],
                "note": canary("extrafield"),
            }
        )
        rows.append(
            {
                "evidence_id": evidence_id,
                "claim_key": key if index % 2 else None,
                "claim_id": claim_id,
                "approved": index != 2,
                "relation": relation,
                "source_text": canary("sourcetext"),
            }
        )
    rows.append({"evidence_id": canary("uncited"), "approved": True, "supports": True})
    return claims, rows


def test_reports_and_reprs_carry_no_planted_value() -> None:
    claims, rows = planted_inputs()
    report = score_summary_claims(claims, rows, n_resamples=200, seed=1)
    assert report.overall.claim_count == 4 and len(report.by_claim_class) == 4
    assert report.overall.counts["supported"] == 1
    assert report.overall.counts["contradicted"] == 1
    texts = [report.to_json(), report.to_markdown(), repr(report), str(report)]
    for name, metrics in report.by_claim_class.items():
        texts += [name, repr(metrics), repr(metrics.interval), repr(dict(metrics.counts))]
    texts += [repr(report.overall), repr(report.overall.interval)]
    texts.append(repr(UnsupportedClaimsReport.from_json(report.to_json())))
    texts.append(repr(read_evidence(rows)))
    assert_clean(*texts)


def deep(leaf: object, levels: int = 33) -> object:
    for _ in range(levels):
        leaf = [leaf]
    return leaf


def provoked_errors() -> list[Callable[[], object]]:
    claims, rows = planted_inputs()
    first, row = claims[0], rows[0]

    def scored(
        claim_changes: dict[str, Any] | None = None,
        row_changes: dict[str, Any] | None = None,
        extra_claims: list[Any] | None = None,
        extra_rows: list[Any] | None = None,
    ) -> Callable[[], object]:
        new_claims = [{**first, **(claim_changes or {})}, *(extra_claims or [])]
        new_rows = [{**row, **(row_changes or {})}, *(extra_rows or [])]
        return lambda: score_summary_claims(new_claims, new_rows, n_resamples=10)

    long_label = canary("longclass") * 6
    empty = score_summary_claims([], [])
    return [
        scored({"claim_class": long_label}),
        scored({"claim_class": canary("x") + "!" + "a" * 70}),
        scored({"evidence_ids": canary("citations")}),
        scored({"evidence_ids": [canary("e"), 1.5]}),
        scored({"claim_id": [canary("listid")]}),
        scored({"claim_key": {1: canary("nonstringkey")}}),
        scored({"claim_key": {canary("deep"): deep(canary("leaf"))}}),
        scored({"claim_key": [canary("nan"), float("nan")]}),
        scored({"claim_key": {canary("big"): list(range(10_001))}}),
        scored(row_changes={"relation": canary("relation")}),
        scored(row_changes={"relation": [canary("relationlist")]}),
        scored(row_changes={"approved": canary("approved")}),
        scored(row_changes={"is_approved": not row["approved"]}),
        scored(row_changes={"supports": canary("flag")}),
        scored(row_changes={"relation": "unresolved", "supports": True}),
        scored(row_changes={"claim_key": {2: canary("linkkey")}}),
        scored(extra_claims=[dict(first)]),
        scored(extra_rows=[dict(row)]),
        scored(extra_claims=[canary("record")]),
        lambda: score_summary_claims(canary("claimsstring"), rows),
        lambda: score_summary_claims(claims, {canary("mapping"): row}),
        lambda: UnsupportedClaimsReport.from_json(canary("notjson")),
        lambda: UnsupportedClaimsReport.from_json(json.dumps({canary("field"): 1})),
        # Thresholds are checked by the declaration (tests/claims/test_declaration.py).
        lambda: evaluate_thresholds(empty, canary("declaration")),  # type: ignore[arg-type]
        lambda: evaluate_thresholds(canary("report"), GateDeclaration()),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("index", range(25))
def test_errors_carry_no_planted_value(index: int) -> None:
    provoke = provoked_errors()[index]
    with pytest.raises((ValueError, TypeError)) as caught:
        provoke()
    assert_fixed(caught.value)
    assert_clean(
        str(caught.value),
        repr(caught.value),
        "".join(traceback.format_exception(caught.value)),
    )


def test_report_with_a_forged_readable_class_name_is_refused_without_echo() -> None:
    record = {"claim_id": 1, "claim_class": "lab", "claim_key": 1, "evidence_ids": []}
    report = score_summary_claims([record], [])
    document = json.loads(report.to_json())
    document["by_claim_class"] = {canary("forged"): document["by_claim_class"]["lab"]}
    with pytest.raises(ValueError) as caught:
        UnsupportedClaimsReport.from_json(json.dumps(document))
    assert_clean(str(caught.value), "".join(traceback.format_exception(caught.value)))


def test_gate_verdicts_and_file_errors_carry_no_planted_value(tmp_path: Path) -> None:
    claims, rows = planted_inputs()
    folder = tmp_path / canary("folder")
    folder.mkdir()
    claims_name, evidence_name = canary("claimsfile") + ".json", canary("evidencefile") + ".jsonl"
    (folder / claims_name).write_text(json.dumps(claims))
    (folder / evidence_name).write_text("\n".join(json.dumps(r) for r in rows))
    gate_file = folder / "g.openmed.toml"
    gate_file.write_text(
        f'[[claims]]\nname = "notes"\nclaims = "{claims_name}"\nevidence = "{evidence_name}"\n'
        "max_unsupported_rate = 0.1\n[claims.classes.lab]\nmax_upper = 0.0\n"
    )
    (spec,) = parse_gate_file(gate_file)
    results = evaluate_gate(spec, GateSettings(resamples=100))
    assert not results["overall"].passed
    texts = []
    for result in results.values():
        if isinstance(result, GateItemRefused):  # a class with no claims: refused, not passed
            texts += [result.describe(), repr(result)]
            continue
        texts += [result.failure_text(), repr(result), json.dumps(result.to_dict())]
    assert_clean(*texts)

    (folder / evidence_name).write_text('{"evidence_id": "' + canary("broken") + '", ')
    for path in (folder / evidence_name, folder / canary("missing")):
        with pytest.raises((ValueError, OSError)) as caught:
            load_records(path)
        assert_clean(
            str(caught.value),
            repr(caught.value),
            "".join(traceback.format_exception(caught.value)),
        )


# --- caller code that raises: its exception text never surfaces --------------------------------


KINDS = [RuntimeError, ValueError, TypeError, KeyError, AttributeError]


def cases() -> list[Callable[[], object]]:
    good_claim, good_row = claim("c", ["e"]), evidence("e")
    out: list[Callable[[], object]] = []
    for kind in KINDS:
        # From a property, AttributeError means "no such field", as getattr has it.
        if kind is not AttributeError:
            for field in ("claim_id", "claim_class", "claim_key", "evidence_ids"):
                record = RaisingProperty(good_claim, field, kind)
                out.append(partial(score_summary_claims, [record], [good_row]))
            for field in ("evidence_id", "approved", "relation", "supports", "claim_key"):
                row = RaisingProperty(good_row, field, kind)
                out.append(partial(score_summary_claims, [good_claim], [row]))
        cited = {**good_claim, "evidence_ids": raising_iterator(["e"], kind)}
        out += [
            partial(score_summary_claims, [RaisingMapping(good_claim, kind)], []),
            partial(score_summary_claims, [], [RaisingMapping(good_row, kind)]),
            partial(score_summary_claims, raising_iterator([good_claim], kind), []),
            partial(score_summary_claims, [], raising_iterator([good_row], kind)),
            partial(score_summary_claims, [cited], [good_row]),
        ]
    out += [
        partial(score_summary_claims, [RaisingClass()], []),
        partial(score_summary_claims, [], [RaisingClass()]),
        partial(score_summary_claims, RaisingIterable(), []),
        partial(score_summary_claims, [], RaisingIterable()),
        partial(score_summary_claims, [{**good_claim, "evidence_ids": RaisingIterable()}], []),
    ]
    return out


@pytest.mark.parametrize("index", range(len(cases())))
def test_caller_code_that_raises_ends_in_a_fixed_message_without_its_text(index: int) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        cases()[index]()
    assert_fixed(caught.value)
    shown = (
        str(caught.value) + repr(caught.value) + "".join(traceback.format_exception(caught.value))
    )
    assert CALLER_CANARY not in shown


def test_an_iterator_that_raises_is_reported_as_such() -> None:
    with pytest.raises(TypeError) as caught:
        score_summary_claims(raising_iterator([], RuntimeError), [])
    assert str(caught.value) == messages.ITERATION_FAILED
    with pytest.raises(TypeError) as caught:
        score_summary_claims([RaisingProperty(claim(), "claim_key", RuntimeError)], [])
    assert str(caught.value) == "claims record 0: " + messages.RECORD_UNREADABLE


@pytest.mark.parametrize(
    "build",
    [
        partial(score_summary_claims, [], [], n_resamples=RaisingIndex()),  # type: ignore[arg-type]
        partial(score_summary_claims, [], [], seed=RaisingIndex()),  # type: ignore[arg-type]
        partial(score_summary_claims, [], [], alpha=RaisingFloat(0.05)),
        partial(score_summary_claims, [], [], alpha=RaisingInt(0)),
        lambda: report_of(unchecked_metrics(unchecked_interval(lower=RaisingFloat(0.0)))),
        lambda: BootstrapInterval(
            lower=RaisingFloat(0.0),
            upper=1.0,
            point=0.5,
            n_resamples=10,
            alpha=0.05,
            degenerate=False,
        ),
    ],
)
def test_numbers_whose_conversion_raises_end_in_a_fixed_message(
    build: Callable[[], object],
) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        build()
    assert_fixed(caught.value)
    assert CALLER_CANARY not in "".join(traceback.format_exception(caught.value))
