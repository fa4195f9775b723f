"""Input records: every validation rule, class normalisation, claim keys, relations, limits."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import types
from collections import namedtuple
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims import messages
from pytest_openmed.claims.records import (
    MAX_CITATIONS,
    STANDARD_CLASSES,
    check_claim_key,
    claim_fields,
    evidence_fields,
    key_fingerprint,
    keys_match,
    normalise_class,
    read_evidence,
)
from pytest_openmed.claims.scoring import score_summary_claims

from ._helpers import OMIT, Counting, assert_fixed, claim, evidence


def fails(kind: type[Exception], message: str, call: Any, *args: Any) -> None:
    with pytest.raises(kind) as caught:
        call(*args)
    assert str(caught.value) == message
    assert_fixed(caught.value)


def flagged(fields: dict[str, Any]) -> dict[str, Any]:
    """An evidence row whose relation fields are exactly ``fields``."""
    return evidence(**{"relation": OMIT, **fields})


# --- claim classes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("diagnosis", "diagnosis"),
        ("Diagnosis", "diagnosis"),
        ("  MEDICATION ", "medication"),
        ("Vital", "vital"),
        ("LAB", "lab"),
    ],
)
def test_standard_classes_stay_readable_after_case_folding(label: str, expected: str) -> None:
    assert normalise_class(label) == expected


def test_every_standard_class_is_its_own_name() -> None:
    assert len(STANDARD_CLASSES) == 11
    for name in STANDARD_CLASSES:
        assert normalise_class(name) == name


def test_custom_label_becomes_a_sha256_token_of_the_normalised_label() -> None:
    expected = "class_" + hashlib.sha256(b"ward_round").hexdigest()[:16]
    assert normalise_class("Ward Round") == expected
    assert normalise_class("ward--round!!") == expected
    assert normalise_class("__WARD round__") == expected


def test_runs_outside_a_z0_9_collapse_to_one_underscore_including_underscores() -> None:
    expected = normalise_class("a_b")
    assert normalise_class("a__b") == expected
    assert normalise_class("a -_- b") == expected
    assert normalise_class("a\u00e9b") == expected  # é is outside ASCII a-z
    assert normalise_class("ab") != expected


def test_case_folding_is_full_unicode_case_folding() -> None:
    # casefold turns the Kelvin sign into 'k'; lower() would too, but 'ß' -> 'ss' only with casefold
    assert normalise_class("ma\u00df") == normalise_class("mass")


def test_class_token_is_stable_under_revalidation() -> None:
    token = normalise_class("ward round")
    assert normalise_class(token) == token
    assert normalise_class(token.upper()) == token
    assert normalise_class("class_0123456789abcdef") == "class_0123456789abcdef"


def test_class_token_with_wrong_hex_length_is_hashed_like_any_other_label() -> None:
    assert normalise_class("class_0123") != "class_0123"
    assert normalise_class("class_0123").startswith("class_")


@pytest.mark.parametrize("label", ["", "_", "!!!", " - ", "é", "a" * 65, "a" + "_b" * 32])
def test_labels_that_normalise_to_nothing_valid_are_rejected(label: str) -> None:
    fails(ValueError, messages.CLASS_INVALID, normalise_class, label)


def test_a_64_character_label_is_accepted() -> None:
    assert normalise_class("a" * 64).startswith("class_")


@pytest.mark.parametrize("label", [None, 3, b"lab", ["lab"]])
def test_class_labels_must_be_strings(label: object) -> None:
    fails(TypeError, messages.CLASS_TYPE, normalise_class, label)
    if label is not None:
        fails(TypeError, messages.CLASS_TYPE, claim_fields, claim(claim_class=label))


# --- claim keys ------------------------------------------------------------------------------


def nested(depth: int, leaf: object = 1, *, kind: str = "list") -> object:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_key_may_nest_32_containers_but_not_33(kind: str) -> None:
    check_claim_key(nested(32, kind=kind))
    fails(ValueError, messages.KEY_TOO_DEEP, check_claim_key, nested(33, kind=kind))


def test_an_empty_33rd_container_is_still_too_deep() -> None:
    fails(ValueError, messages.KEY_TOO_DEEP, check_claim_key, nested(32, []))


def test_key_may_hold_10000_nodes_but_not_10001() -> None:
    check_claim_key(list(range(9_999)))  # the list itself plus 9,999 leaves
    fails(ValueError, messages.KEY_TOO_LARGE, check_claim_key, list(range(10_000)))
    check_claim_key({str(i): i for i in range(9_999)})
    fails(ValueError, messages.KEY_TOO_LARGE, check_claim_key, [[0] * 5_000, [0] * 5_000])


def test_a_self_referential_key_is_refused_not_looped_over() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError) as caught:
        check_claim_key(loop)
    assert str(caught.value) in {messages.KEY_TOO_DEEP, messages.KEY_TOO_LARGE}


def test_key_object_keys_must_be_strings() -> None:
    fails(TypeError, messages.KEY_OBJECT_KEY, check_claim_key, {1: "a"})
    fails(TypeError, messages.KEY_OBJECT_KEY, check_claim_key, [{"ok": {None: 1}}])


def test_key_integers_must_fit_in_64_bits() -> None:
    check_claim_key([2**63 - 1, -(2**63)])
    for value in (2**63, [-(2**63) - 1], {"k": 10**5000}):
        fails(ValueError, messages.KEY_INTEGER_RANGE, check_claim_key, value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1.0, float("-inf")]])
def test_key_numbers_must_be_finite(value: object) -> None:
    fails(ValueError, messages.KEY_NOT_FINITE, check_claim_key, value)


@pytest.mark.parametrize("value", [b"x", {1, 2}, object(), [bytearray()], {"a": frozenset()}])
def test_key_must_be_json_like(value: object) -> None:
    fails(TypeError, messages.KEY_TYPE, check_claim_key, value)


def test_evidence_link_keys_are_checked_like_claim_keys() -> None:
    fails(ValueError, messages.KEY_TOO_DEEP, evidence_fields, evidence(claim_key=nested(33)))
    fails(TypeError, messages.KEY_OBJECT_KEY, evidence_fields, evidence(claim_key={2: 1}))


def test_key_fingerprint_ignores_object_key_order_but_not_types() -> None:
    assert key_fingerprint({"a": 1, "b": [2, 3]}) == key_fingerprint({"b": [2, 3], "a": 1})
    assert key_fingerprint(424242) != key_fingerprint("424242")
    assert key_fingerprint(1) != key_fingerprint(1.0)
    assert key_fingerprint(True) != key_fingerprint(1)
    assert keys_match({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not keys_match(424242, "424242")
    assert not keys_match([1], [1.0])


def test_a_digest_key_is_its_own_fingerprint_so_fingerprinted_records_relink() -> None:
    raw = {"patient": "p", "fact": ["x", 1]}
    digest = key_fingerprint(raw)
    assert digest.startswith("sha256:") and key_fingerprint(digest) == digest
    assert keys_match(digest, raw) and keys_match(raw, digest)
    assert keys_match("plain", key_fingerprint("plain"))
    assert not keys_match("plain", key_fingerprint("other"))
    assert not keys_match("sha256:" + "a" * 64, "sha256:" + "b" * 64)


# --- claim records ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("claim_id", messages.CLAIM_ID_MISSING),
        ("claim_class", messages.CLAIM_CLASS_MISSING),
        ("claim_key", messages.CLAIM_KEY_MISSING),
        ("evidence_ids", messages.CITATIONS_MISSING),
    ],
)
def test_every_claim_field_is_required(field: str, message: str) -> None:
    fails(ValueError, message, claim_fields, claim(**{field: OMIT}))
    fails(ValueError, message, claim_fields, claim(**{field: None}))


def test_an_empty_citation_list_is_a_claim_without_citation() -> None:
    assert claim_fields(claim(evidence_ids=[]))[3] == ()


@pytest.mark.parametrize("cited", ["ev-1", b"ev", {"ev-1": 1}, 7])
def test_evidence_ids_must_be_a_collection_of_ids(cited: object) -> None:
    fails(TypeError, messages.CITATIONS_TYPE, claim_fields, claim(evidence_ids=cited))


@pytest.mark.parametrize(
    "bad",
    [True, 1.0, None, ["x"], "", 2**63, -(2**63) - 1, pytest.param(10**5000, id="5000-digits")],
)
def test_ids_must_be_non_empty_strings_or_64_bit_integers(bad: object) -> None:
    kind = ValueError if bad == "" or type(bad) is int else TypeError
    if bad is not None:
        fails(kind, messages.ID_TYPE, claim_fields, claim(claim_id=bad))
        fails(kind, messages.ID_TYPE, evidence_fields, evidence(evidence_id=bad))
        fails(kind, messages.ID_TYPE, evidence_fields, evidence(claim_id=bad))
    fails(kind, messages.ID_TYPE, claim_fields, claim(evidence_ids=["ok", bad]))


def test_integer_ids_are_accepted_and_distinct_from_their_string_form() -> None:
    report = score_summary_claims(
        [claim(1, [10]), claim("1", ["10"], claim_key="key-2")],
        [evidence(10), evidence("10", "contradicts")],
        n_resamples=1,
    )
    assert report.overall.counts["supported"] == 1
    assert report.overall.counts["contradicted"] == 1


@pytest.mark.parametrize("record", ["claim", 3, 2.5, None, ["claim_id"], {"x"}, b"x"])
def test_claim_records_must_be_mappings_or_typed_objects(record: object) -> None:
    fails(TypeError, messages.CLAIM_RECORD_TYPE, claim_fields, record)
    fails(TypeError, messages.EVIDENCE_RECORD_TYPE, evidence_fields, record)


def test_citations_may_be_any_iterable_but_are_bounded() -> None:
    assert claim_fields(claim(evidence_ids=iter(["a", "b"])))[3] == ("a", "b")
    assert claim_fields(claim(evidence_ids=("a",)))[3] == ("a",)


def test_512_citations_are_accepted_and_513_refused() -> None:
    cited = [f"e{i}" for i in range(MAX_CITATIONS)]
    assert len(claim_fields(claim(evidence_ids=cited))[3]) == 512
    fails(ValueError, messages.TOO_MANY_CITATIONS, claim_fields, claim(evidence_ids=[*cited, "x"]))


def test_a_citation_iterator_is_consumed_at_most_513_items() -> None:
    counting = Counting(f"e{i}" for i in itertools.count())
    fails(ValueError, messages.TOO_MANY_CITATIONS, claim_fields, claim(evidence_ids=counting))
    assert counting.consumed == MAX_CITATIONS + 1


# --- evidence records ------------------------------------------------------------------------


def test_evidence_id_is_required() -> None:
    fails(ValueError, messages.EVIDENCE_ID_MISSING, evidence_fields, evidence(evidence_id=OMIT))


def test_approved_is_required() -> None:
    fails(ValueError, messages.APPROVED_MISSING, evidence_fields, evidence(approved=OMIT))


@pytest.mark.parametrize("value", [1, 0, "true", "yes", 1.0, [True]])
def test_approved_must_be_a_real_bool(value: object) -> None:
    fails(TypeError, messages.APPROVED_TYPE, evidence_fields, evidence(approved=value))
    fails(
        TypeError,
        messages.APPROVED_TYPE,
        evidence_fields,
        evidence(approved=OMIT, is_approved=value),
    )


def test_is_approved_is_an_alias_of_approved() -> None:
    _, row = evidence_fields(evidence(approved=OMIT, is_approved=False))
    assert row[0] is False
    _, row = evidence_fields(evidence(approved=True, is_approved=True))
    assert row[0] is True


def test_conflicting_approval_aliases_are_rejected() -> None:
    fails(ValueError, messages.APPROVED_CONFLICT, evidence_fields, evidence(is_approved=False))
    fails(TypeError, messages.APPROVED_TYPE, evidence_fields, evidence(is_approved="no"))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"relation": "supports"}, "supports"),
        ({"relation": "supported"}, "supports"),
        ({"relation": "contradicts"}, "contradicts"),
        ({"relation": "contradicted"}, "contradicts"),
        ({"relation": "unresolved"}, "unresolved"),
        ({"supports": True}, "supports"),
        ({"supported": True}, "supports"),
        ({"contradicts": True}, "contradicts"),
        ({"contradicted": True}, "contradicts"),
        ({"supports": False, "contradicts": False}, "unresolved"),
        ({"relation": "supports", "supports": True, "contradicted": False}, "supports"),
        ({"relation": "contradicts", "supports": False}, "contradicts"),
        ({"relation": "unresolved", "supported": False, "contradicted": False}, "unresolved"),
        ({"contradicts": True, "supports": False}, "contradicts"),
    ],
)
def test_relation_labels_and_flags(fields: dict[str, Any], expected: str) -> None:
    _, row = evidence_fields(flagged(fields))
    assert row[1] == expected


@pytest.mark.parametrize(
    "fields",
    [
        {"relation": "unresolved", "supports": True},
        {"relation": "supports", "supports": False},
        {"relation": "supports", "contradicted": True},
        {"relation": "contradicted", "supported": True},
        {"supports": True, "contradicts": True},
        {"supports": True, "supported": False},
        {"contradicts": True, "contradicted": False},
    ],
)
def test_conflicting_relation_labels_and_flags_are_rejected(fields: dict[str, Any]) -> None:
    fails(ValueError, messages.RELATION_CONFLICT, evidence_fields, flagged(fields))


@pytest.mark.parametrize("fields", [{"supports": False}, {"contradicted": False}])
def test_flags_that_leave_the_relation_open_are_rejected(fields: dict[str, Any]) -> None:
    fails(ValueError, messages.RELATION_AMBIGUOUS, evidence_fields, flagged(fields))


def test_a_relation_is_required() -> None:
    fails(ValueError, messages.RELATION_MISSING, evidence_fields, evidence(relation=OMIT))


@pytest.mark.parametrize("label", ["Supports", "support", "refutes", ""])
def test_unknown_relation_labels_are_rejected(label: str) -> None:
    fails(ValueError, messages.RELATION_TYPE, evidence_fields, evidence(relation=label))


@pytest.mark.parametrize("label", [1, True, ["supports"]])
def test_relation_labels_must_be_strings(label: object) -> None:
    fails(TypeError, messages.RELATION_TYPE, evidence_fields, evidence(relation=label))


@pytest.mark.parametrize("flag", ["supports", "supported", "contradicts", "contradicted"])
def test_relation_flags_must_be_real_bools(flag: str) -> None:
    fails(TypeError, messages.RELATION_FLAG_TYPE, evidence_fields, evidence(**{flag: 1}))


def test_duplicate_evidence_ids_are_rejected() -> None:
    duplicate = "evidence record 1: " + messages.DUPLICATE_EVIDENCE_ID  # the second one
    fails(ValueError, duplicate, read_evidence, [evidence("e"), evidence("e")])
    assert read_evidence([evidence(1), evidence("1")]).count == 2


def test_evidence_digest_is_order_free_and_content_bound() -> None:
    rows = [evidence("a"), evidence("b", "contradicts", claim_key={"k": [1]}), evidence(3)]
    digest = read_evidence(rows).digest
    assert read_evidence(list(reversed(rows))).digest == digest
    changed = [evidence("a", approved=False), *rows[1:]]
    assert read_evidence(changed).digest != digest
    relinked = [*rows[:2], evidence(3, claim_id="c")]
    assert read_evidence(relinked).digest != digest


# --- typed objects and non-dict mappings ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TypedClaim:
    claim_id: str
    claim_class: str
    claim_key: object
    evidence_ids: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class TypedEvidence:
    evidence_id: str
    approved: bool
    relation: str | None = None
    claim_key: object = None
    claim_id: str | None = None
    supports: bool | None = None


EvidenceTuple = namedtuple("EvidenceTuple", "evidence_id approved relation")


def test_typed_objects_are_read_by_attribute_and_score_like_mappings() -> None:
    claims = [
        TypedClaim("c1", "Lab", "k1", ("e1",)),
        TypedClaim("c2", "lab", "k2", ("e2", "e3")),
        TypedClaim("c3", "medication", "k3", ()),
    ]
    rows = [
        TypedEvidence("e1", True, "supports", claim_key="k1"),
        EvidenceTuple("e2", True, "contradicts"),
        types.SimpleNamespace(evidence_id="e3", approved=True, contradicted=True),
    ]
    typed = score_summary_claims(claims, rows, n_resamples=50)
    as_dicts = score_summary_claims(
        [dataclasses.asdict(c) for c in claims],
        [
            evidence("e1", claim_key="k1"),
            evidence("e2", "contradicts"),
            evidence("e3", "contradicts"),
        ],
        n_resamples=50,
    )
    assert typed.to_json() == as_dicts.to_json()
    assert typed.by_claim_class["lab"].counts["contradicted"] == 1


def test_typed_records_are_revalidated() -> None:
    fails(TypeError, messages.APPROVED_TYPE, evidence_fields, TypedEvidence("e", "yes", "supports"))  # type: ignore[arg-type]
    fails(
        ValueError,
        messages.RELATION_CONFLICT,
        evidence_fields,
        TypedEvidence("e", True, "supports", supports=False),
    )
    fails(ValueError, messages.CLAIM_ID_MISSING, claim_fields, types.SimpleNamespace())


def test_non_dict_mappings_are_read_by_key() -> None:
    record = types.MappingProxyType(claim())
    assert claim_fields(record) == claim_fields(claim())


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "evidence_id",
                "approved",
                "is_approved",
                "relation",
                "supports",
                "contradicts",
                "claim_key",
                "claim_id",
            ]
        ),
        st.none()
        | st.booleans()
        | st.integers(-2, 2)
        | st.sampled_from(["e", "", "supports", "contradicted", "unresolved", "x"])
        | st.lists(st.integers(0, 2), max_size=2),
    )
)
def test_dict_fast_path_agrees_with_the_full_check(record: dict[str, Any]) -> None:
    """Plain dicts take a fast path; a read-only view takes the full one.  Same outcome."""

    def outcome(value: object) -> object:
        try:
            return evidence_fields(value)
        except (TypeError, ValueError) as error:
            assert_fixed(error)
            return (type(error), str(error))

    assert outcome(record) == outcome(types.MappingProxyType(record))


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["claim_id", "claim_class", "claim_key", "evidence_ids"]),
        st.none()
        | st.booleans()
        | st.integers(-2, 2)
        | st.sampled_from(["c", "", "lab"])
        | st.lists(st.integers(0, 2) | st.sampled_from(["e", ""]), max_size=3),
    )
)
def test_claim_fast_path_agrees_with_the_full_check(record: dict[str, Any]) -> None:
    def outcome(value: object) -> object:
        try:
            return tuple(claim_fields(value))
        except (TypeError, ValueError) as error:
            assert_fixed(error)
            return (type(error), str(error))

    assert outcome(record) == outcome(types.MappingProxyType(record))


# --- claim keys changed after their check -----------------------------------------------------


def test_a_claim_key_changed_by_caller_code_after_its_check_is_not_read_again() -> None:
    """The seed: the evaluator fingerprints a claim key immediately.  A citation
    iterator that then changes the key cannot smuggle unchecked values in."""
    key: list[Any] = ["a"]

    def citations() -> Iterator[str]:
        key.append(b"not json")
        yield "e"

    rows = [evidence("e", claim_key=["a"])]
    report = score_summary_claims([claim("c", citations(), claim_key=key)], rows)
    assert report.overall.counts["supported"] == 1


def test_a_link_key_changed_by_caller_code_after_its_check_is_not_read_again() -> None:
    link: list[Any] = ["a"]

    class Changing:
        claim_id, claim_class, evidence_ids = "c", "lab", ("e",)

        @property
        def claim_key(self) -> list[str]:
            link.append(float("nan"))
            return ["a"]

    report = score_summary_claims([Changing()], [evidence("e", claim_key=link)])
    assert report.overall.counts["supported"] == 1
