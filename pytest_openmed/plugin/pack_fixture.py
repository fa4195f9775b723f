"""The ``assess_pack`` fixture: a ``[[pack]]`` gate inside an ordinary test.

The counterpart of ``claim_scorer`` and ``qualify_planner`` for multimodal
packs.  It assesses in-memory reviews (for example from
:func:`pytest_openmed.development.simulate_review`) and records the verdict
the ``[[pack]]`` gate would record for the same documents (the same
:func:`pytest_openmed.multimodal.verdict.gate_result`: status, value-free reason
class and totals only), then fails the test as that gate would.  Engines load
on first call, so the plugin's import stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pytest

from pytest_openmed.plugin.options import run_options_key

if TYPE_CHECKING:
    from pytest_openmed.multimodal import (
        Adjudication,
        CompletedReview,
        ValidationAssessment,
        ValidationPack,
    )


class PackAssessor:
    """Assess one candidate of a pack and enforce ``rubric_satisfied`` as a gate.

    ``min_cell`` precedence: the call's argument > ``--openmed-min-cell`` / ini > default.
    """

    def __init__(self, item: pytest.Item, min_cell: int | None) -> None:
        self._item = item
        self._min_cell = min_cell
        self._calls = 0

    def __call__(
        self,
        pack: ValidationPack,
        candidate: str,
        reviews: Iterable[CompletedReview],
        *,
        key: bytes,
        adjudications: Iterable[Adjudication] = (),
        min_cell: int | None = None,
    ) -> ValidationAssessment:
        """The private assessment; the test fails unless the decision is ``rubric_satisfied``.

        The verdict is recorded under part ``candidate`` (the gate's item name).
        Refused evidence (a stale review, a wrong key, …) is an error of the
        test showing the engine's fixed, value-free message.
        """
        __tracebackhide__ = True
        outcome = self._judge(pack, candidate, reviews, key, adjudications, min_cell)
        # Protected evidence never stays in a frame pytest may print (--showlocals).
        del pack, reviews, key, adjudications
        if isinstance(outcome, BaseException):
            raise outcome from None
        return outcome

    def _judge(
        self,
        pack: ValidationPack,
        candidate: str,
        reviews: Iterable[CompletedReview],
        key: bytes,
        adjudications: Iterable[Adjudication],
        min_cell: int | None,
    ) -> ValidationAssessment | BaseException:
        """The assessment, or the exception to raise (built here, raised by the caller)."""
        from pytest_openmed.contract import MISSING_DEPENDENCY
        from pytest_openmed.plugin.fixtures import call_prefix
        from pytest_openmed.plugin.items import (
            REFUSED,
            GateFailed,
            GateInputError,
            input_refused,
            missing_dependency,
            record_gate_result,
            record_refusal,
            unexpected_failure,
        )

        self._calls += 1
        prefix = call_prefix(self._calls)
        try:
            from pytest_openmed.multimodal import assess_validation
            from pytest_openmed.multimodal.limits import MIN_CELL
            from pytest_openmed.multimodal.verdict import gate_result
        except ImportError as error:
            dependency = missing_dependency("pack", error)
            if dependency is None:
                raise
            record_refusal(self._item, "pack", prefix + "candidate", reason=MISSING_DEPENDENCY)
            return dependency
        names = {c.name for c in getattr(pack, "candidates", ())}
        # The part is the gate's item name, a validated candidate name, never other input.
        part = prefix + (
            candidate if type(candidate) is str and candidate in names else "candidate"
        )
        refusal: GateInputError | None = None
        try:
            assessment = assess_validation(
                pack,
                pack.candidate(candidate),
                tuple(reviews),
                key=key,
                adjudications=tuple(adjudications),
                min_cell=next(v for v in (min_cell, self._min_cell, MIN_CELL) if v is not None),
            )
        except REFUSED as error:
            # Engine refusals are typed and value-free by contract; built
            # inside, raised outside, so no frame holding evidence is chained.
            refusal = input_refused("pack gate", error)
        except Exception as error:
            if self._item.config.getoption("fulltrace", False):
                raise
            # Not a typed refusal (a pack that is not a ValidationPack, …): its
            # frames hold the key and the evidence, so only its class is shown.
            refusal = unexpected_failure("pack", error)
        if refusal is not None:
            record_refusal(self._item, "pack", part)
            return refusal
        judged = record_gate_result(self._item, gate_result(assessment), part=part)
        if not judged.passed:
            return GateFailed(judged.failure_text())
        return assessment

    def __repr__(self) -> str:
        return f"PackAssessor(min_cell={self._min_cell})"


@pytest.fixture
def assess_pack(request: pytest.FixtureRequest) -> PackAssessor:
    """Assess a pack's candidate from reviews and enforce ``rubric_satisfied`` as a gate."""
    return PackAssessor(request.node, request.config.stash[run_options_key].settings.min_cell)
