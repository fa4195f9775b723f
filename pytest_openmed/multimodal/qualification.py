"""Reviewer qualifications and who may receive or contribute a review.

A qualification is a caller-governed declaration: task scope, digests of the
qualification evidence and the conflict screening, a stable identity digest and
the review origin.  The library does not verify credentials, identify people or
certify conflict clearance; it only enforces what the declaration says.  Its
digest is sealed into every mapping prepared for the reviewer, so a changed
declaration (new evidence, new screening, recusal, scope) is detected later.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pytest_openmed._canonical import digest_json, is_digest
from pytest_openmed.errors import InvalidArgument

from ._structure import array, fields, malformed, materialise
from .errors import InvalidInput, ReviewerOutOfScope, ReviewerRecused
from .limits import spelled
from .vocabulary import ReviewOrigin, ValidationTask

__all__ = ["ReviewerQualification", "check_eligible"]

_DIGEST_FIELDS = ("identity_digest", "qualification_evidence_digest", "conflict_screening_digest")


@dataclass(frozen=True, slots=True)
class ReviewerQualification:
    """One reviewer's declared qualification for a set of tasks."""

    identity_digest: str
    task_scope: frozenset[ValidationTask]
    qualification_evidence_digest: str
    conflict_screening_digest: str
    origin: ReviewOrigin
    recused: bool = False
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in _DIGEST_FIELDS:
            if not is_digest(getattr(self, name)):
                raise InvalidInput(f"{name} must be a 'sha256:' digest")
        scope: object = self.task_scope
        if isinstance(scope, frozenset | set):
            scope = tuple(scope)
        known = len(ValidationTask)
        listed = materialise(scope, known, f"task_scope names more than {spelled(known)} tasks")
        try:
            tasks = frozenset(ValidationTask(task) for task in listed)
        except (TypeError, ValueError):
            raise InvalidInput("task_scope must hold validation tasks") from None
        if not tasks:
            raise InvalidInput("task_scope must name at least one validation task")
        try:
            origin = ReviewOrigin(self.origin)
        except ValueError:
            raise InvalidInput("origin must be a ReviewOrigin") from None
        if type(self.recused) is not bool:
            raise InvalidArgument("recused must be a bool")
        object.__setattr__(self, "task_scope", tasks)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "digest", digest_json(self.declaration()))

    def declaration(self) -> dict[str, Any]:
        """The declared facts, as sealed into mappings and stored in documents."""
        return {
            "identity_digest": self.identity_digest,
            "task_scope": sorted(task.value for task in self.task_scope),
            "qualification_evidence_digest": self.qualification_evidence_digest,
            "conflict_screening_digest": self.conflict_screening_digest,
            "origin": self.origin.value,
            "recused": self.recused,
        }

    @classmethod
    def from_declaration(cls, data: object) -> ReviewerQualification:
        """Rebuild a qualification from its stored :meth:`declaration`."""
        stored = fields(data, {f.name for f in dataclasses.fields(cls) if f.init})
        with malformed():
            stored["task_scope"] = frozenset(array(stored["task_scope"], len(ValidationTask)))
            reviewer = cls(**stored)
        return reviewer

    def __repr__(self) -> str:
        return f"ReviewerQualification(origin={self.origin.value!r}, recused={self.recused})"


def check_eligible(reviewer: ReviewerQualification, task: ValidationTask) -> None:
    """Refuse a recused reviewer or one whose scope does not cover ``task``."""
    if type(reviewer) is not ReviewerQualification:
        raise InvalidArgument("reviewer must be a ReviewerQualification")
    if reviewer.recused:
        raise ReviewerRecused()
    if task not in reviewer.task_scope:
        raise ReviewerOutOfScope()
