"""Every stored document and the public report are byte-identical to the pinned release.

The codecs live with their types and the public report is a pure function of
the tallies; moving code must not change a single byte that evaluators store
or publish.  The pins are SHA-256 digests of ``json.dumps`` (key order kept)
of documents built from fixed inputs (PNG, TIFF and waveform assets, two
reviewers, one adjudication).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from pytest_openmed.multimodal import (
    CaseSlice,
    PreparedReview,
    ValidationPack,
    assess_validation,
    prepare_review,
)

from .builders import (
    KEY,
    adjudicate,
    conflict_digests,
    make_case,
    make_pack,
    reviewer,
    reviews,
    tiff_bytes,
    waveform_bytes,
)

A = "cand-a"
SLICES = tuple(CaseSlice)


def _pack() -> ValidationPack:
    cases = [
        make_case(0, asset=tiff_bytes(1), case_slice=CaseSlice.ADVERSE_ACQUISITION),
        make_case(1, abstain=[A]),
        make_case(2, asset=waveform_bytes(3), safety={A: ["privacy"]}),
        make_case(3, context={"nested": {"list": [1, 2.5, None, True, "x"]}}),
        *(make_case(unit) for unit in range(4, 12)),
    ]
    return make_pack(cases=cases, limitations=("evaluator note",))


def _documents() -> dict[str, Any]:
    pack = _pack()
    disputed = lambda u, n: (True, False, True, True) if (u, n) == (3, A) else (True,) * 4  # noqa: E731
    review_list = reviews(pack, lambda u, n: (True,) * 4, disputed)
    adjudication = adjudicate(
        pack, reviewer(7), 3, A, (True,) * 4, conflict_digests(pack, review_list, 3, A)
    )
    prepared: PreparedReview = prepare_review(pack, reviewer(5), key=KEY)
    assessment = assess_validation(
        pack, pack.candidate(A), review_list, key=KEY, adjudications=[adjudication]
    )
    published = make_pack(36, slices=[SLICES[unit % 3] for unit in range(36)])
    scored = lambda u, n: (True, (u // 3) % 2 == 0, True, True)  # noqa: E731
    counted = assess_validation(
        published, published.candidate(A), reviews(published, scored, scored), key=KEY
    )
    return {
        "pack": pack.to_dict(),
        "packets": prepared.packets_to_dict(),
        "mapping": prepared.mapping.to_dict(),
        "completed_review": review_list[1].to_dict(),
        "adjudication": adjudication.to_dict(),
        "public_report": assessment.public_report(),
        "public_report_json": assessment.to_json(),
        "published_report_json": counted.to_json(),
    }


PINNED = {
    "adjudication": "0009220a05d7f78fc276a6e064bd84bdf7358d71287424ed71952a9664d22fb6",
    "completed_review": "14b550b75fce7bec06647963aee21f510bac305d53001566a58a3323182cf74a",
    "mapping": "04945625d5a2819221a4b1b1a8a6c8ad63dc2dbb59fd8b77c391df048663f2e9",
    "pack": "6825b69685bb36cc1a93adadb3e991e089de973ad91a3c9b5c8503450219ea8b",
    "packets": "f3106adfdfcd289589247a5b81c5cac56f0bd7941f72d03449b9b50c7c44c3f4",
    "public_report": "e3140903b6ad9a26e62ea3f572883f7f322292026ef43930d2df735ab20f1f2b",
    "public_report_json": "34fec7820068416eed68bae4a9825540132764f4149755ade728f5d03bf68c85",
    "published_report_json": "e212d414b0c49d706aa4a551d3f01999546cd325d97810efb81cbe26fe2917fb",
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_stored_form_is_byte_identical(name: str) -> None:
    document = _documents()[name]
    text = document if isinstance(document, str) else json.dumps(document)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == PINNED[name]
