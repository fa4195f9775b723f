"""Four-state scoring of summary claims against approved evidence.

A claim is ``supported`` when every cited row exists, is approved, is linked
to the claim and supports it; ``contradicted`` when every cited row exists,
is approved, is linked and contradicts it; ``uncited`` without a citation;
``unresolved`` otherwise (a missing, unapproved or mismatched row, an
unresolved relation, or support mixed with contradiction).  An evidence row
is linked to a claim when every link it declares (``claim_key`` by
fingerprint, ``claim_id`` by value) matches; a row declaring no link is
linked by the citation alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pytest_openmed._validate import DEFAULT_RESAMPLES
from pytest_openmed.claims import messages
from pytest_openmed.claims.records import (
    CLAIMS_RECORDS,
    MAX_CLAIMS,
    SUPPORTS,
    UNRESOLVED,
    EvidenceRow,
    RecordId,
    claim_fields,
    collect,
    keys_match,
    located_record,
    normalise_class,
    read_evidence,
)
from pytest_openmed.claims.report import (
    STATES,
    ClaimClassMetrics,
    UnsupportedClaimsReport,
    check_configuration,
    check_draw_budget,
)
from pytest_openmed.errors import InputRefused, OpenmedError

__all__ = ["score_summary_claims", "tally_states"]

_SUPPORTED, _CONTRADICTED, _UNRESOLVED, _UNCITED = range(4)


def _state_index(
    claim_id: RecordId,
    claim_key: object,
    evidence_ids: tuple[RecordId, ...],
    rows: Mapping[RecordId, EvidenceRow],
) -> int:
    """The state of one checked claim, as an index into :data:`~.report.STATES`."""
    if not evidence_ids:
        return _UNCITED
    agreed = None
    for evidence_id in evidence_ids:
        row = rows.get(evidence_id)
        if row is None:
            return _UNRESOLVED
        approved, relation, link_key, link_id = row
        if not approved or relation == UNRESOLVED:
            return _UNRESOLVED
        if link_id is not None and link_id != claim_id:
            return _UNRESOLVED
        if link_key is not None and not keys_match(claim_key, link_key):
            return _UNRESOLVED
        if agreed is None:
            agreed = relation
        elif relation != agreed:
            return _UNRESOLVED
    return _SUPPORTED if agreed == SUPPORTS else _CONTRADICTED


def tally_states(
    claims: Iterable[Any], rows: Mapping[RecordId, EvidenceRow]
) -> dict[str, list[int]]:
    """Per normalised class, the counts of the four states (in :data:`STATES` order)."""
    seen: set[RecordId] = set()
    class_names: dict[str, str] = {}
    tallies: dict[str, list[int]] = {}
    for index, record in enumerate(claims):
        try:
            claim_id, label, claim_key, evidence_ids = claim_fields(record)
            if claim_id in seen:
                raise InputRefused(messages.DUPLICATE_CLAIM_ID)
            name = class_names.get(label)
            if name is None:
                name = class_names[label] = normalise_class(label)
        except OpenmedError as error:
            refusal = located_record(error, CLAIMS_RECORDS, index)
            raise refusal from None
        seen.add(claim_id)
        tally = tallies.get(name)
        if tally is None:
            tally = tallies[name] = [0, 0, 0, 0]
        tally[_state_index(claim_id, claim_key, evidence_ids, rows)] += 1
    return tallies


def score_summary_claims(
    claims: Iterable[Any],
    evidence: Iterable[Any],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alpha: float = 0.05,
) -> UnsupportedClaimsReport:
    """Score claims against evidence: four-state counts, rates and bootstrap intervals.

    ``claims`` and ``evidence`` are iterables of mappings or typed objects;
    each is consumed at most to its limit plus one.  Bad input raises
    ``ValueError``/``TypeError`` with a fixed message that names no input value.
    """
    n_resamples, seed, alpha = check_configuration(n_resamples, seed, alpha)
    records = collect(claims, MAX_CLAIMS, messages.CLAIMS_NOT_ITERABLE, messages.TOO_MANY_CLAIMS)
    check_draw_budget(len(records), n_resamples)
    index = read_evidence(evidence)
    tallies = tally_states(records, index.rows)

    from pytest_openmed.claims.bootstrap import bootstrap_interval

    def metrics(tally: list[int], collection: str | None) -> ClaimClassMetrics:
        claim_count = sum(tally)
        interval = bootstrap_interval(
            claim_count,
            claim_count - tally[_SUPPORTED],
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            collection=collection,
        )
        return ClaimClassMetrics.from_counts(dict(zip(STATES, tally, strict=True)), interval)

    overall = [sum(tally[i] for tally in tallies.values()) for i in range(len(STATES))]
    return UnsupportedClaimsReport(
        overall=metrics(overall, None),
        by_claim_class={name: metrics(tallies[name], name) for name in sorted(tallies)},
        evidence_digest=index.digest,
        evidence_count=index.count,
        seed=seed,
    )
