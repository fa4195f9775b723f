"""Candidate lineage accepts only artifact digests and keeps its name evaluator-side."""

from __future__ import annotations

import pytest

from pytest_openmed.multimodal import CandidateLineage
from pytest_openmed.multimodal.errors import InvalidInput
from pytest_openmed.multimodal.lineage import LINEAGE_FIELDS

from ._helpers import candidate, d, replaced

NOT_DIGESTS = [
    "https://huggingface.co/org/model",
    "org/model",
    "git@github.com:org/model.git",
    "sha256:" + "A" * 64,
    "sha256:" + "0" * 63,
    "sha1:" + "0" * 40,
    "",
    None,
]


@pytest.mark.parametrize("field_name", LINEAGE_FIELDS)
@pytest.mark.parametrize("value", NOT_DIGESTS)
def test_every_lineage_field_refuses_anything_but_a_digest(field_name: str, value: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        replaced(candidate("cand-a"), **{field_name: value})
    if isinstance(value, str) and value:
        assert value not in str(caught.value)


@pytest.mark.parametrize("name", ["", "https://x", "org/model", "a" * 65, "-lead", "a b", 3])
def test_name_is_a_short_label(name: object) -> None:
    with pytest.raises(InvalidInput):
        replaced(candidate("cand-a"), name=name)


def test_digest_binds_every_lineage_field_but_not_the_name() -> None:
    base = candidate("cand-a")
    assert replaced(base, name="renamed").digest == base.digest
    for field_name in LINEAGE_FIELDS:
        changed = replaced(base, **{field_name: d(("changed", field_name))})
        assert changed.digest != base.digest


def test_repr_hides_name_and_digests() -> None:
    lineage = CandidateLineage("canary-name", *(d(i) for i in range(6)))
    assert "canary-name" not in repr(lineage)
    assert "sha256" not in repr(lineage)
