"""The plugin's fixtures: gates inside ordinary tests.

Each fixture records its verdicts with :func:`record_gate_result`, so they
reach the report, the summary and downstream hooks exactly like gate items.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from pytest_openmed.errors import InputRefused
from pytest_openmed.plugin.options import run_options_key

if TYPE_CHECKING:
    from pytest_openmed.claims import UnsupportedClaimsReport
    from pytest_openmed.contract import GateSettings
    from pytest_openmed.multimodal import ReviewerQualification, ValidationPack, ValidationTask
    from pytest_openmed.planner import PlannerQualificationReport
    from pytest_openmed.plugin.items import GateInputError

T = TypeVar("T")


class ClaimScorer:
    """Scores claims with the run's seed/resamples and enforces ``openmed_claims``.

    Precedence for seed and resamples: marker > CLI > ini > default.
    """

    def __init__(self, item: pytest.Item, settings: GateSettings) -> None:
        from pytest_openmed.plugin.markers import MarkerError, claims_marker

        self._item = item
        try:
            marker = claims_marker(item.get_closest_marker("openmed_claims"))
        except MarkerError as error:
            pytest.fail(str(error), pytrace=False)
        self._seed = settings.seed if marker.seed is None else marker.seed
        self._resamples = settings.resamples if marker.resamples is None else marker.resamples
        self._declaration = marker.with_run_rate(settings.max_rate)
        self._calls = 0

    def __call__(
        self, claims: Any, evidence: Any, *, alpha: float = 0.05
    ) -> UnsupportedClaimsReport:
        __tracebackhide__ = True
        self._calls += 1
        outcome = self._judge(claims, evidence, alpha)
        # The input never stays in a frame pytest may print (--showlocals, --fulltrace).
        del claims, evidence
        if isinstance(outcome, BaseException):
            raise outcome from None
        return outcome

    def _judge(
        self, claims: Any, evidence: Any, alpha: float
    ) -> UnsupportedClaimsReport | BaseException:
        """The report, or the exception to raise (built here, raised by the caller)."""
        from pytest_openmed.claims import score_summary_claims
        from pytest_openmed.claims._gate import evaluate_thresholds
        from pytest_openmed.contract import GateItemRefused
        from pytest_openmed.plugin.items import (
            REFUSED,
            GateFailed,
            input_refused,
            record_gate_result,
            record_refusal,
            record_refused_part,
        )

        prefix = call_prefix(self._calls)
        refusal: GateInputError | None
        try:
            report = score_summary_claims(
                claims, evidence, n_resamples=self._resamples, seed=self._seed, alpha=alpha
            )
        except REFUSED as error:
            refusal = input_refused("claims gate", error)
        else:
            refusal = None
        if refusal is not None:
            record_refusal(self._item, "claims", prefix.rstrip(".") or None)
            return refusal
        verdicts = evaluate_thresholds(report, self._declaration)
        failures = []
        for part, verdict in verdicts.items():
            if isinstance(verdict, GateItemRefused):
                record_refused_part(self._item, "claims", prefix + part)
                failures.append(
                    f"{prefix}{part}: openmed claims gate input refused: {verdict.describe()}"
                )
                continue
            judged = record_gate_result(self._item, verdict, part=prefix + part)
            if not judged.passed:
                failures.append(f"{prefix}{part}: {judged.failure_text()}")
        if failures:
            return GateFailed("\n".join(failures))
        return report

    def __repr__(self) -> str:
        return f"ClaimScorer(seed={self._seed}, resamples={self._resamples})"


@pytest.fixture
def claim_scorer(request: pytest.FixtureRequest) -> ClaimScorer:
    """Score claims and enforce the test's ``openmed_claims`` thresholds as a gate."""
    return ClaimScorer(request.node, request.config.stash[run_options_key].settings)


@pytest.fixture
def qualify_planner(
    request: pytest.FixtureRequest,
) -> Callable[[Any], PlannerQualificationReport]:
    """Run the planner harness on a callable; record its verdicts as gate evidence.

    Returns the report and leaves the expectation to the test: asserting that
    a known-bad planner is refused is as legitimate as requiring qualification.
    With an ``openmed_planner(trials=k, …)`` marker the harness runs k times and
    the verdicts judge every trial (docs/evidence.md); the report returned is
    the first trial's.
    """
    item = request.node
    calls = [0]

    def qualify(planner: Any) -> PlannerQualificationReport:
        __tracebackhide__ = True
        calls[0] += 1
        outcome = _qualified(item, planner, call_prefix(calls[0]))
        del planner
        if isinstance(outcome, BaseException):
            raise outcome from None
        return outcome

    return qualify


def _qualified(
    item: pytest.Item, planner: Any, prefix: str
) -> PlannerQualificationReport | BaseException:
    from pytest_openmed.planner import qualify_planner as run_harness
    from pytest_openmed.planner._gate import evaluate_report, evaluate_trials
    from pytest_openmed.plugin.items import (
        REFUSED,
        input_refused,
        record_gate_result,
        record_refusal,
    )
    from pytest_openmed.plugin.markers import planner_marker

    declaration = planner_marker(item.get_closest_marker("openmed_planner"))
    trials = 1 if declaration is None else declaration.plan.trials
    refusal: GateInputError | None
    try:
        reports = [run_harness(planner) for _ in range(trials)]
    except REFUSED as error:
        refusal = input_refused("planner gate", error)
    else:
        refusal = None
    if refusal is not None:
        record_refusal(item, "planner", prefix.rstrip(".") or None)
        return refusal
    if declaration is not None and declaration.judges_trials:
        verdicts = evaluate_trials(reports, declaration.plan)
    else:
        verdicts = evaluate_report(reports[0])
    for part, verdict in verdicts.items():
        record_gate_result(item, verdict, part=prefix + part)
    return reports[0]


def call_prefix(call: int) -> str:
    """Part prefix of the ``call``-th use of a gate fixture in one test.

    The first call's parts are plain (``overall``); later calls get
    ``call2.``, ``call3.``… so every verdict of a test has its own, stable part.
    """
    return "" if call == 1 else f"call{call}."


@pytest.fixture
def evaluator_key(request: pytest.FixtureRequest) -> bytes:
    """The evaluator key from the variable named by ``--openmed-key-env``; an error if absent."""
    name = request.config.stash[run_options_key].settings.key_env
    if name is None:
        pytest.fail(
            "no evaluator key configured: pass --openmed-key-env NAME (or ini openmed_key_env) "
            "naming an environment variable that holds a key of at least 32 bytes",
            pytrace=False,
        )
    value = os.environ.get(name, "")
    if not value:
        from pytest_openmed.multimodal._gate import UnsetEvaluatorKey

        pytest.fail(str(UnsetEvaluatorKey(name)), pytrace=False)
    if len(value.encode("utf-8")) < 32:
        pytest.fail(
            "the evaluator key variable holds fewer than 32 bytes; "
            "generate one with: python -c 'import secrets; print(secrets.token_hex(32))'",
            pytrace=False,
        )
    return value.encode("utf-8")


_packs_key = pytest.StashKey["dict[str, ValidationPack]"]()


@pytest.fixture
def development_pack(request: pytest.FixtureRequest) -> Callable[[Any], ValidationPack]:
    """Factory ``development_pack(task)``: the task's control pack, built once per session.

    Packs are immutable, so sharing one between tests is safe.
    """
    cache = request.config.stash.setdefault(_packs_key, {})

    def build(task: ValidationTask | str) -> ValidationPack:
        __tracebackhide__ = True
        from pytest_openmed.development.packs import as_task
        from pytest_openmed.development.packs import development_pack as fresh_pack

        name = _refused_as_error("development_pack", as_task, task)
        del task
        if isinstance(name, BaseException):
            raise name from None
        if name.value not in cache:
            built = _refused_as_error("development_pack", fresh_pack, name.value)
            if isinstance(built, BaseException):
                raise built from None
            cache[name.value] = built
        return cache[name.value]

    return build


@pytest.fixture
def simulated_reviewers() -> Callable[..., tuple[ReviewerQualification, ...]]:
    """Factory ``simulated_reviewers(task, count=2)``: development-simulation qualifications.

    Reports built from reviews by these reviewers are labelled
    ``development_simulation``; they stand for no person.
    """

    def make(task: ValidationTask | str, count: int = 2) -> tuple[ReviewerQualification, ...]:
        __tracebackhide__ = True
        reviewers = _refused_as_error("simulated_reviewers", _reviewers, task, count)
        del task, count
        if isinstance(reviewers, BaseException):
            raise reviewers from None
        return reviewers

    return make


#: Simulated reviewers one fixture call makes at most.
_MAX_REVIEWERS = 9


def _reviewers(task: ValidationTask | str, count: int) -> tuple[ReviewerQualification, ...]:
    from pytest_openmed.development.simulated_review import simulated_reviewer

    if type(count) is not int or not 1 <= count <= _MAX_REVIEWERS:
        raise InputRefused(f"count must be a whole number from 1 to {_MAX_REVIEWERS}")
    return tuple(simulated_reviewer(f"reviewer-{n}", task) for n in range(1, count + 1))


def _refused_as_error(what: str, action: Callable[..., T], *args: Any) -> T | BaseException:
    """``action(*args)``, or the fixture refusal to raise for its typed input error."""
    from pytest_openmed.plugin.items import (
        REFUSED,
        input_refused,
        missing_dependency,
    )

    refusal: GateInputError | None
    try:
        return action(*args)
    except REFUSED as error:
        refusal = input_refused(f"{what} fixture", error)
    except ImportError as error:  # an optional package: the documented missing dependency
        refusal = missing_dependency("pack", error)
        if refusal is None:
            raise
    return refusal
