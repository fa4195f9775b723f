"""Four-state scoring, linking, limits, configuration and determinism of score_summary_claims."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import STATES, messages, score_summary_claims
from pytest_openmed.claims.records import MAX_CLAIMS, MAX_EVIDENCE, key_fingerprint

from ._helpers import Counting, assert_fixed, claim, evidence, loose_claims, loose_evidence


def state_of(claim_record: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    report = score_summary_claims([claim_record], rows, n_resamples=1)
    (state,) = [name for name, count in report.overall.counts.items() if count]
    return state


def fails(kind: type[Exception], message: str, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(kind) as caught:
        score_summary_claims(*args, **kwargs)
    assert str(caught.value) == message
    assert_fixed(caught.value)


# --- the four states -------------------------------------------------------------------------


def test_supported_when_every_cited_row_is_approved_linked_and_supports() -> None:
    rows = [evidence("e1", claim_key="key-1"), evidence("e2", claim_id="claim-1")]
    assert state_of(claim(evidence_ids=["e1", "e2"]), rows) == "supported"


def test_contradicted_when_every_cited_row_contradicts() -> None:
    rows = [evidence("e1", "contradicts"), evidence("e2", contradicted=True, relation=None)]
    assert state_of(claim(evidence_ids=["e1", "e2"]), rows) == "contradicted"


def test_uncited_without_a_citation_even_when_evidence_exists() -> None:
    assert state_of(claim(evidence_ids=[]), [evidence("e1", claim_key="key-1")]) == "uncited"


@pytest.mark.parametrize(
    ("cited", "rows"),
    [
        (["missing"], [evidence("e1")]),
        (["e1"], [evidence("e1", approved=False)]),
        (["e1"], [evidence("e1", "contradicts", approved=False)]),
        (["e1"], [evidence("e1", "unresolved")]),
        (["e1", "e2"], [evidence("e1"), evidence("e2", "contradicts")]),
        (["e1", "e2"], [evidence("e1"), evidence("e2", "unresolved")]),
        (["e1", "e2"], [evidence("e1"), evidence("e2", approved=False)]),
        (["e1", "missing"], [evidence("e1")]),
        (["e1"], [evidence("e1", claim_key="other-key")]),
        (["e1"], [evidence("e1", claim_id="other-claim")]),
        (["e1"], [evidence("e1", claim_key="key-1", claim_id="other-claim")]),
        (["e1"], [evidence("e1", claim_key="other-key", claim_id="claim-1")]),
    ],
    ids=[
        "missing",
        "unapproved",
        "unapproved-contradiction",
        "unresolved-relation",
        "support-and-contradiction",
        "support-and-unresolved",
        "support-and-unapproved",
        "support-and-missing",
        "key-mismatch",
        "claim-id-mismatch",
        "key-match-but-id-mismatch",
        "id-match-but-key-mismatch",
    ],
)
def test_unresolved_otherwise(cited: list[str], rows: list[dict[str, Any]]) -> None:
    assert state_of(claim(evidence_ids=cited), rows) == "unresolved"


def test_a_row_without_link_is_linked_by_the_citation_alone() -> None:
    assert state_of(claim(evidence_ids=["e1"]), [evidence("e1")]) == "supported"


def test_link_keys_compare_by_canonical_fingerprint() -> None:
    key = {"subject": "s-1", "fact": ["bp", 120]}
    reordered = {"fact": ["bp", 120], "subject": "s-1"}
    assert state_of(claim(claim_key=key), [evidence(claim_key=reordered)]) == "supported"
    assert state_of(claim(claim_key=key), [evidence(claim_key=key_fingerprint(key))]) == (
        "supported"
    )
    assert state_of(claim(claim_key=424242), [evidence(claim_key="424242")]) == "unresolved"
    assert state_of(claim(claim_key=[1]), [evidence(claim_key=[1.0])]) == "unresolved"


def test_link_claim_ids_compare_with_their_type() -> None:
    assert state_of(claim(7), [evidence(claim_id=7)]) == "supported"
    assert state_of(claim(7), [evidence(claim_id="7")]) == "unresolved"


def test_citing_the_same_row_twice_is_harmless() -> None:
    assert state_of(claim(evidence_ids=["e1", "e1"]), [evidence("e1")]) == "supported"


def test_duplicate_claim_ids_are_rejected() -> None:
    duplicate = "claims record 1: " + messages.DUPLICATE_CLAIM_ID  # the second one
    fails(ValueError, duplicate, [claim("c"), claim("c")], [evidence()])


def test_counts_rates_and_classes() -> None:
    claims = [
        claim("c1", ["e1"], claim_class="Diagnosis", claim_key="k1"),
        claim("c2", ["e2"], claim_class="diagnosis", claim_key="k2"),
        claim("c3", [], claim_class="medication"),
        claim("c4", ["e3"], claim_class="ward round"),
        claim("c5", ["missing"], claim_class="medication"),
    ]
    rows = [evidence("e1", claim_key="k1"), evidence("e2", "contradicts"), evidence("e3")]
    report = score_summary_claims(claims, rows, n_resamples=200)
    assert dict(report.overall.counts) == {
        "supported": 2,
        "contradicted": 1,
        "unresolved": 1,
        "uncited": 1,
    }
    assert report.overall.unsupported_count == 3
    assert report.overall.unsupported_rate == 3 / 5
    token = [name for name in report.by_claim_class if name.startswith("class_")]
    assert sorted(report.by_claim_class) == sorted(["diagnosis", "medication", *token])
    assert report.by_claim_class["diagnosis"].unsupported_rate == 0.5
    assert report.by_claim_class["medication"].unsupported_rate == 1.0
    assert report.by_claim_class[token[0]].unsupported_rate == 0.0
    assert report.evidence_count == 3
    for metrics in report.by_claim_class.values():
        assert list(metrics.counts) == list(STATES)


def test_an_empty_evaluation_has_rate_zero_and_a_degenerate_interval() -> None:
    report = score_summary_claims([], [])
    assert report.overall.claim_count == 0
    assert report.overall.unsupported_rate == 0.0
    assert report.overall.interval.degenerate
    assert report.overall.interval.lower == report.overall.interval.upper == 0.0
    assert dict(report.by_claim_class) == {}


def test_by_claim_class_is_read_only() -> None:
    report = score_summary_claims([claim()], [evidence()])
    with pytest.raises(TypeError):
        report.by_claim_class["lab"] = report.overall  # type: ignore[index]
    with pytest.raises(TypeError):
        report.overall.counts["supported"] = 5  # type: ignore[index]


# --- an independent oracle ---------------------------------------------------------------------

RELATIONS = ["supports", "contradicts", "unresolved"]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    """Claims and evidence drawn together with the state each claim must receive."""
    classes = ["lab", "Lab", "vital", "custom one"]
    rows: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    expected = dict.fromkeys(STATES, 0)
    for index in range(draw(st.integers(0, 12))):
        cited = []
        outcomes: list[str | None] = []
        for j in range(draw(st.integers(0, 3))):
            evidence_id = f"e{index}-{j}"
            kind = draw(st.sampled_from(["ok", "missing", "unapproved", "wrong-key", "wrong-id"]))
            relation = draw(st.sampled_from(RELATIONS))
            cited.append(evidence_id)
            if kind == "missing":
                outcomes.append(None)
                continue
            row = evidence(evidence_id, relation, approved=kind != "unapproved")
            link = draw(st.sampled_from(["none", "key", "id", "both"]))
            if link in ("key", "both") or kind == "wrong-key":
                row["claim_key"] = [index, "k"] if kind != "wrong-key" else [index, "other"]
            if link in ("id", "both") or kind == "wrong-id":
                row["claim_id"] = index if kind != "wrong-id" else -1 - index
            rows.append(row)
            outcomes.append(relation if kind == "ok" else None)
        if not cited:
            state = "uncited"
        elif all(o == "supports" for o in outcomes):
            state = "supported"
        elif all(o == "contradicts" for o in outcomes):
            state = "contradicted"
        else:
            state = "unresolved"
        expected[state] += 1
        claims.append(
            claim(index, cited, claim_class=draw(st.sampled_from(classes)), claim_key=[index, "k"])
        )
    return claims, rows, expected


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_states_match_an_independent_oracle(
    scenario: tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]],
    shuffler: random.Random,
) -> None:
    claims, rows, expected = scenario
    report = score_summary_claims(claims, rows, n_resamples=20, seed=3)
    assert dict(report.overall.counts) == expected
    assert report.overall.claim_count == len(claims)
    assert sum(m.claim_count for m in report.by_claim_class.values()) == len(claims)
    # Input order changes nothing, not even a byte of the report.
    shuffler.shuffle(claims)
    shuffler.shuffle(rows)
    assert score_summary_claims(claims, rows, n_resamples=20, seed=3).to_json() == report.to_json()


# --- arbitrary input ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(loose_claims, loose_evidence, st.booleans())
def test_arbitrary_json_like_input_fails_only_with_fixed_messages(
    claims: list[Any], rows: list[Any], as_iterators: bool
) -> None:
    try:
        report = score_summary_claims(
            iter(claims) if as_iterators else claims,
            iter(rows) if as_iterators else rows,
            n_resamples=10,
        )
    except (ValueError, TypeError) as error:
        assert_fixed(error)
    else:
        assert report.overall.claim_count == len(claims)
        assert report.evidence_count == len(rows)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.none(), st.integers(), st.text(), st.binary(), st.dictionaries(st.text(), st.integers())
    )
)
def test_collections_must_be_iterables_of_records(value: object) -> None:
    for claims, rows in ((value, []), ([], value)):
        try:
            score_summary_claims(claims, rows)  # type: ignore[arg-type]
        except (ValueError, TypeError) as error:
            assert_fixed(error)
        else:
            raise AssertionError("a non-collection was accepted")


def test_strings_and_mappings_are_not_collections_of_records() -> None:
    fails(TypeError, messages.CLAIMS_NOT_ITERABLE, "claims", [])
    fails(TypeError, messages.CLAIMS_NOT_ITERABLE, {"claim_id": 1}, [])
    fails(TypeError, messages.CLAIMS_NOT_ITERABLE, 5, [])
    fails(TypeError, messages.EVIDENCE_NOT_ITERABLE, [], b"rows")
    fails(TypeError, messages.EVIDENCE_NOT_ITERABLE, [], None)


# --- limits ------------------------------------------------------------------------------------


def test_claim_iterators_are_consumed_at_most_limit_plus_one() -> None:
    counting = Counting(itertools.repeat(claim()))
    fails(ValueError, messages.TOO_MANY_CLAIMS, counting, [], n_resamples=1)
    assert counting.consumed == MAX_CLAIMS + 1


def test_evidence_iterators_are_consumed_at_most_limit_plus_one() -> None:
    counting = Counting(itertools.repeat(evidence()))
    fails(ValueError, messages.TOO_MANY_EVIDENCE, [], counting)
    assert counting.consumed == MAX_EVIDENCE + 1


def test_oversized_lists_are_refused_without_looking_at_records() -> None:
    fails(ValueError, messages.TOO_MANY_CLAIMS, [None] * (MAX_CLAIMS + 1), [], n_resamples=1)
    fails(ValueError, messages.TOO_MANY_EVIDENCE, [], (None,) * (MAX_EVIDENCE + 1))


def test_exactly_100000_claims_and_200000_evidence_rows_are_scored() -> None:
    claims = [
        {"claim_id": i, "claim_class": "lab", "claim_key": "k", "evidence_ids": [i]}
        for i in range(MAX_CLAIMS)
    ]
    rows = [
        {"evidence_id": i, "approved": True, "relation": "supports" if i % 4 else "contradicts"}
        for i in range(MAX_EVIDENCE)
    ]
    report = score_summary_claims(claims, rows, n_resamples=100)
    assert report.overall.claim_count == MAX_CLAIMS
    assert report.overall.counts["contradicted"] == MAX_CLAIMS // 4
    assert report.evidence_count == MAX_EVIDENCE


def test_the_draw_budget_allows_20_million_claim_draws_and_no_more() -> None:
    claims = [claim(i, []) for i in range(100)]
    report = score_summary_claims(claims, [], n_resamples=100_000)
    assert report.n_resamples == 100_000
    fails(ValueError, messages.TOO_MANY_DRAWS, [*claims, claim(100, [])], [], n_resamples=100_000)


def test_draw_budget_is_checked_before_the_evidence_is_read() -> None:
    counting = Counting(itertools.repeat(evidence()))
    claims = [claim(i, []) for i in range(101)]
    fails(ValueError, messages.TOO_MANY_DRAWS, claims, counting, n_resamples=100_000)
    assert counting.consumed == 0


@pytest.mark.parametrize(
    ("kwargs", "kind", "message"),
    [
        ({"n_resamples": 0}, ValueError, messages.RESAMPLES_RANGE),
        ({"n_resamples": 100_001}, ValueError, messages.RESAMPLES_RANGE),
        ({"n_resamples": True}, TypeError, messages.RESAMPLES_TYPE),
        ({"n_resamples": 10.0}, TypeError, messages.RESAMPLES_TYPE),
        ({"seed": -1}, ValueError, messages.SEED_RANGE),
        ({"seed": 2**63}, ValueError, messages.SEED_RANGE),
        ({"seed": "0"}, TypeError, messages.SEED_TYPE),
        ({"seed": False}, TypeError, messages.SEED_TYPE),
        ({"alpha": 0}, ValueError, messages.ALPHA_RANGE),
        ({"alpha": 1.0}, ValueError, messages.ALPHA_RANGE),
        ({"alpha": float("nan")}, ValueError, messages.ALPHA_RANGE),
        ({"alpha": "0.05"}, TypeError, messages.ALPHA_TYPE),
        ({"alpha": True}, TypeError, messages.ALPHA_TYPE),
    ],
)
def test_bootstrap_configuration_is_checked(
    kwargs: dict[str, Any], kind: type[Exception], message: str
) -> None:
    fails(kind, message, [claim()], [evidence()], **kwargs)


def test_configuration_is_checked_before_any_input_is_consumed() -> None:
    counting = Counting(itertools.repeat(claim()))
    fails(ValueError, messages.ALPHA_RANGE, counting, [], alpha=2.0)
    assert counting.consumed == 0


def test_numpy_integers_are_accepted_as_configuration() -> None:
    import numpy as np

    report = score_summary_claims(
        [claim()],
        [evidence()],
        n_resamples=np.int64(5),
        seed=np.uint8(2),  # type: ignore[arg-type]
    )
    assert (report.n_resamples, report.seed) == (5, 2)
    assert type(report.n_resamples) is int and type(report.seed) is int


# --- determinism -------------------------------------------------------------------------------


def mixed(count: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(count)
    claims, rows = [], []
    for i in range(count):
        relation = rng.choice(["supports"] * 6 + ["contradicts", "unresolved"])
        rows.append(evidence(f"e{i}", relation, approved=rng.random() > 0.1))
        cited = [] if rng.random() < 0.1 else [f"e{i}"]
        claims.append(claim(f"c{i}", cited, claim_class=rng.choice(["lab", "vital", "x y"])))
    return claims, rows


def test_same_seed_input_and_configuration_give_byte_identical_outputs() -> None:
    claims, rows = mixed(300)
    first = score_summary_claims(claims, rows, n_resamples=500, seed=11, alpha=0.1)
    second = score_summary_claims(list(claims), list(rows), n_resamples=500, seed=11, alpha=0.1)
    assert first.to_json() == second.to_json()
    assert first.to_markdown() == second.to_markdown()
    assert first == second


def test_a_different_seed_changes_the_intervals_but_not_the_counts() -> None:
    claims, rows = mixed(300)
    first = score_summary_claims(claims, rows, n_resamples=500, seed=11)
    other = score_summary_claims(claims, rows, n_resamples=500, seed=12)
    assert first.overall.counts == other.overall.counts
    assert first.overall.interval != other.overall.interval
    assert other.seed == 12


def test_a_class_interval_does_not_depend_on_the_other_classes() -> None:
    claims, rows = mixed(300)
    alone = [c for c in claims if c["claim_class"] == "lab"]
    everything = score_summary_claims(claims, rows, n_resamples=500, seed=5)
    only_lab = score_summary_claims(alone, rows, n_resamples=500, seed=5)
    assert everything.by_claim_class["lab"] == only_lab.by_claim_class["lab"]


# --- caller collections ---------------------------------------------------------------------


def test_a_guarded_iterator_is_still_consumed_at_most_limit_plus_one() -> None:
    rows = Counting(evidence(f"e{index}") for index in range(300_000))
    with pytest.raises(ValueError) as caught:
        score_summary_claims([], rows, n_resamples=1)
    assert str(caught.value) == messages.TOO_MANY_EVIDENCE
    assert rows.consumed == 200_001


def test_a_claims_list_that_grows_while_read_is_scored_as_given() -> None:
    """The limit and draw budget are checked on the list as handed over; records a
    property appends during scoring are not read (no way past the limits)."""
    claims: list[Any] = []

    class Growing:
        claim_class = "lab"
        evidence_ids = ()

        def __init__(self, index: int) -> None:
            self.claim_id = index

        @property
        def claim_key(self) -> str:
            claims.append(Growing(len(claims)))
            return "k"

    claims.extend(Growing(index) for index in range(3))
    report = score_summary_claims(claims, [], n_resamples=5)
    assert report.overall.claim_count == 3
