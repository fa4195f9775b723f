"""Candidate lineage: the immutable artifact digests behind one candidate configuration.

A candidate is bound by digests of its model or algorithm, preprocessing,
runtime, hardware, harness and license snapshot.  Only ``sha256:`` digests are
accepted, so a mutable repository name or URL cannot stand in for an artifact;
the evaluator keeps the protected manifests those digests resolve to.  The
``name`` is an evaluator-side label: it is bound into the pack digest but never
shown to a reviewer nor published.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_openmed._canonical import digest_json, is_digest
from pytest_openmed._validate import check_text
from pytest_openmed.contract import NAME_PATTERN, NAME_WORDING

from .errors import InvalidInput

__all__ = ["LINEAGE_FIELDS", "CandidateLineage", "check_candidate_name"]

#: The digest fields of a lineage, in manifest order.
LINEAGE_FIELDS = (
    "model_digest",
    "preprocessing_digest",
    "runtime_digest",
    "hardware_digest",
    "harness_digest",
    "license_snapshot_digest",
)


def check_candidate_name(name: object) -> str:
    """An evaluator-side label: 1–64 letters, digits, ``_``, ``.`` or ``-`` (no URL, no path)."""
    return check_text(
        name,
        NAME_PATTERN,
        lambda: InvalidInput(f"candidate name must be {NAME_WORDING} starting alphanumeric"),
    )


@dataclass(frozen=True, slots=True)
class CandidateLineage:
    """One candidate configuration, identified by its artifact digests."""

    name: str
    model_digest: str
    preprocessing_digest: str
    runtime_digest: str
    hardware_digest: str
    harness_digest: str
    license_snapshot_digest: str
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_candidate_name(self.name)
        for name in LINEAGE_FIELDS:
            if not is_digest(getattr(self, name)):
                raise InvalidInput(
                    f"lineage field {name} must be a 'sha256:' digest of an immutable artifact, "
                    "not a repository name or URL"
                )
        object.__setattr__(self, "digest", digest_json(self.manifest()))

    def manifest(self) -> dict[str, Any]:
        """The bound lineage facts (without the evaluator-side name)."""
        facts: dict[str, Any] = {name: getattr(self, name) for name in LINEAGE_FIELDS}
        facts["schema"] = "openmed.multimodal.candidate.v1"
        return facts

    def __repr__(self) -> str:
        return "CandidateLineage(<protected>)"
