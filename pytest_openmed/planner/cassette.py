"""Record and replay: qualify a wire-format model once live, then offline from a cassette.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

A cassette (JSON, schema ``planner-cassette``) records which model it holds
(the user-declared model identity and the planner reference it was recorded
from, each ``null`` when none was named) and, per run (the qualification,
then each injection style) and per scenario and turn, the SHA-256 digest of
the exact request and the model's raw response (normalised to plain JSON).
*Recording* calls the model and writes the cassette where the caller named
it, nowhere else.  *Replaying* calls no model: each request must be the next
recorded one, with the same digest; any difference (prompt rendering,
catalog, scenario text, dialect, model identity, planner reference) ends the
run with :class:`StaleCassetteError` — never a fallback to the live model,
never a pass.  Cassettes hold model output, which may be sensitive: nothing
here puts their content, their path, the model identity or the reference in
a message; only the cause.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import atomic_write_text, digest_json, is_digest
from pytest_openmed._jsonread import POLICY_REFUSALS, read_limited, strict_decoder
from pytest_openmed.contract import locate_input_error
from pytest_openmed.errors import InputRefused, InvalidArgument, plural
from pytest_openmed.planner._silence import when_audible
from pytest_openmed.planner.declaration import (
    DIALECT,
    INJECTION_ITEMS,
    MODEL_IDENTITY,
    PLANNER,
    check_model_identity,
    is_reference,
)
from pytest_openmed.planner.harness import HarnessStop, qualify_planner
from pytest_openmed.planner.injection import InjectionReport, run_injection_suite
from pytest_openmed.planner.report import PlannerQualificationReport
from pytest_openmed.planner.scenarios import MAX_TURNS, SCENARIO_IDS
from pytest_openmed.planner.trials import MAX_TRIALS, check_trials
from pytest_openmed.planner.wire import (
    DIALECTS,
    Model,
    Transport,
    WirePlanner,
    adapter,
    live_transport,
    normalise_response,
)

__all__ = [
    "CASSETTE_SCHEMA_VERSION",
    "QUALIFICATION_RUN",
    "Cassette",
    "CassetteError",
    "CassetteWriteError",
    "Exchange",
    "FewerTrialsError",
    "RecordingPolicy",
    "StaleCassetteError",
    "WireQualification",
    "WireTrials",
    "load_cassette",
    "parse_cassette",
    "qualify_wire",
    "qualify_wire_trials",
    "response_tokens",
    "trial_run",
]

CASSETTE_SCHEMA_VERSION = 2
#: Version 1 recorded no model identity and no planner reference: replay refuses it as stale.
_VERSION_WITHOUT_MODEL = 1
_CASSETTE_KIND = "openmed_planner_cassette"
#: Name of the run of the six scenarios; injection runs are named by their gate items.
QUALIFICATION_RUN = "qualification"
_RUNS = (QUALIFICATION_RUN, *INJECTION_ITEMS)
#: A run of trial ``i >= 1`` is named ``<run>@<i>``; trial 0 keeps the bare name, so a
#: one-trial cassette is exactly a cassette of before trials.
_TRIAL_RUN = re.compile(r"(?P<run>[^@]+)@(?P<index>[1-9][0-9]{0,3})")
_MAX_CASSETTE_BYTES = 64 * 1024 * 1024
#: A document that parses as JSON but breaks the reading policy (pytest_openmed._jsonread).
_NOT_STRICT = f"not strict JSON: {POLICY_REFUSALS}"
#: The refusals that quote it (formatted once: tests lower the limit, not the text).
_CASSETTE_TOO_LARGE = f"the cassette exceeds {_MAX_CASSETTE_BYTES // 2**20} MiB"
_RECORDING_TOO_LARGE = (
    f"the recorded cassette would exceed {_MAX_CASSETTE_BYTES // 2**20} MiB, the most replay "
    "reads; nothing was written (the model's responses are too large to replay)"
)
#: Bounds of a recording's concurrency, retries and backoff.
_MAX_CONCURRENCY = 64
_MAX_RETRIES = 10
_MAX_BACKOFF_S = 60.0
_MAX_EXCHANGES_PER_RUN = len(SCENARIO_IDS) * MAX_TURNS
#: Which input a refusal while reading a cassette names (the gate-file key, as ``claims input``).
_WHERE = "cassette input"


class CassetteError(InputRefused):
    """A cassette could not be read, is not a valid cassette, or could not be written.

    Record it again (``--openmed-record``) or name a writable path.
    """


class CassetteWriteError(CassetteError):
    """A recorded cassette could not be written where it was named."""


class StaleCassetteError(InputRefused):
    """A request is not the one the cassette recorded: the gate is an error, never a pass."""

    CODE = "stale cassette"

    def __init__(self) -> None:
        super().__init__(
            f"{self.CODE}: a request differs from the recorded one (prompt rendering, "
            "catalog, scenario text or dialect changed); refresh the cassette by recording"
        )


class FewerTrialsError(StaleCassetteError):
    """The cassette holds fewer trials than the gate asks for: stale, never reused."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the cassette holds fewer trials than the gate asks for; "
            "record again (--openmed-record resumes: the recorded trials are kept)",
        )


class InjectionSuiteNotRecorded(StaleCassetteError):
    """``injection_suite`` is on, but the cassette was recorded without the suite's runs."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: injection_suite is on but the cassette holds no injection-suite runs "
            "(it was switched on after recording); record again",
        )


class PlannerReferenceChanged(StaleCassetteError):
    """The cassette was recorded from another planner reference than the gate names."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the planner reference differs from the one the cassette was "
            "recorded from; record again",
        )


class ModelIdentityChanged(StaleCassetteError):
    """The cassette records another model identity than the gate declares (or the gate none)."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the model identity differs from the one the cassette records "
            "(or the gate declares none); record again",
        )


class ModelIdentityNotRecorded(StaleCassetteError):
    """The gate declares a model identity, but the cassette records none.

    Also every cassette of schema version 1, written before cassettes recorded
    which model they hold.
    """

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the cassette records no model identity (or was written before "
            "cassettes recorded one); record again",
        )


class CassetteWithoutModel(ModelIdentityNotRecorded):
    """A cassette of schema version 1: it records neither model identity nor planner reference."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the cassette records no model identity and no planner reference "
            "(written before cassettes recorded which model they hold); record again",
        )


class DialectChanged(StaleCassetteError):
    """The gate's ``dialect`` is not the one the cassette was recorded in."""

    def __init__(self) -> None:
        InputRefused.__init__(
            self,
            f"{self.CODE}: the cassette was recorded in another dialect than the gate's; "
            "record again",
        )


def trial_run(run: str, index: int) -> str:
    """The cassette name of ``run`` in trial ``index`` (0-based)."""
    return run if index == 0 else f"{run}@{index}"


def _split_run(name: str) -> tuple[str, int] | None:
    """``(run, trial index)`` of a cassette run name, or ``None`` if it is not one."""
    if name in _RUNS:
        return name, 0
    match = _TRIAL_RUN.fullmatch(name)
    if match is None or match["run"] not in _RUNS or int(match["index"]) >= MAX_TRIALS:
        return None
    return match["run"], int(match["index"])


class _Stale(HarnessStop):
    """Raised inside the harness on a stale request.

    A :class:`HarnessStop`, so the harness does not count it as a planner error
    and carry on: no report may come out of a stale replay.
    """


@dataclass(frozen=True, slots=True)
class Exchange:
    """One model call: where it happened, the request digest, the normalised response."""

    scenario_id: str
    turn: int
    request_digest: str
    response: Any
    raised: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario_id": self.scenario_id,
            "turn": self.turn,
            "request_digest": self.request_digest,
            "raised": self.raised,
            "response": self.response,
        }

    def __repr__(self) -> str:
        return f"Exchange(turn={self.turn})"


@dataclass(frozen=True, slots=True)
class Cassette:
    """A dialect, the model it holds and the recorded exchanges of each run, in call order.

    ``model_identity`` is the user-declared identity and ``planner_reference``
    the ``module:function`` it was recorded from (``None``: none was named).
    """

    dialect: str
    runs: Mapping[str, tuple[Exchange, ...]] = field(default_factory=dict)
    model_identity: str | None = None
    planner_reference: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", MappingProxyType(dict(self.runs)))

    def trial_indices(self, injection_suite: bool = False) -> frozenset[int]:
        """The trials recorded in full: the qualification run, and every style if asked."""
        wanted = (QUALIFICATION_RUN, *INJECTION_ITEMS) if injection_suite else (QUALIFICATION_RUN,)
        found: dict[int, set[str]] = {}
        for name in self.runs:
            split = _split_run(name)
            if split is not None:
                found.setdefault(split[1], set()).add(split[0])
        return frozenset(index for index, runs in found.items() if set(wanted) <= runs)

    def to_text(self) -> str:
        """Deterministic JSON text: the same exchanges always give the same bytes."""
        document = {
            "cassette": _CASSETTE_KIND,
            "schema_version": CASSETTE_SCHEMA_VERSION,
            "non_diagnostic": True,
            "dialect": self.dialect,
            "model_identity": self.model_identity,
            "planner_reference": self.planner_reference,
            "runs": {
                name: [exchange.to_dict() for exchange in self.runs[name]]
                for name in sorted(self.runs, key=_run_order)
            },
        }
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=True) + "\n"

    def __repr__(self) -> str:
        return f"Cassette({self.dialect!r}, runs={len(self.runs)})"


def _run_order(name: str) -> tuple[int, int]:
    split = _split_run(name)
    assert split is not None  # runs are checked when a cassette is parsed or recorded
    return split[1], _RUNS.index(split[0])


def _invalid(what: str, where: str = "") -> CassetteError:
    """The fixed refusal of rule ``what``, located at ``where`` (a line or a key path)."""
    error = CassetteError(f"not a valid planner cassette ({what})")
    if where:
        locate_input_error(error, where)
    return error


def _exchange(data: object, where: str) -> Exchange:
    keys = {"scenario_id", "turn", "request_digest", "raised", "response"}
    if type(data) is not dict or set(data) != keys:
        raise _invalid("each exchange has exactly: " + ", ".join(sorted(keys)), where)
    scenario_id, turn = data["scenario_id"], data["turn"]
    if type(scenario_id) is not str or scenario_id not in SCENARIO_IDS:
        raise _invalid(
            "scenario_id must be one of the six scenario ids", f"{where}, key 'scenario_id'"
        )
    if type(turn) is not int or not 0 <= turn < MAX_TURNS:
        raise _invalid("turn must be 0, 1 or 2", f"{where}, key 'turn'")
    if not is_digest(data["request_digest"]):
        raise _invalid("request_digest must be a sha256 digest", f"{where}, key 'request_digest'")
    if type(data["raised"]) is not bool or (data["raised"] and data["response"] is not None):
        raise _invalid(
            "raised must be a boolean; a raised exchange has a null response",
            f"{where}, key 'raised'",
        )
    return Exchange(scenario_id, turn, data["request_digest"], data["response"], data["raised"])


def parse_cassette(text: str) -> Cassette:
    """Validate a cassette document; every problem is a :class:`CassetteError` naming the rule.

    A cassette of schema version 1 (it records no model) is stale, not invalid:
    :class:`CassetteWithoutModel`.

    The message says where: the line and column of a JSON syntax error, or the
    key (``run 'qualification', exchange #3, key 'turn'``: run names are checked
    against the closed list before they are named, exchanges are counted from
    1).  It never quotes a value or the text of the document.
    """
    try:  # the package's JSON policy: no repeated name, no NaN, numbers in range
        document = strict_decoder(lambda: _invalid(_NOT_STRICT)).decode(text)
    except json.JSONDecodeError as error:
        raise _invalid("not JSON", f"line {error.lineno}, column {error.colno}") from None
    except CassetteError:
        raise
    except (ValueError, RecursionError):  # an integer too long to read, too deep a nesting
        raise _invalid(_NOT_STRICT) from None
    if (
        type(document) is dict
        and document.get("cassette") == _CASSETTE_KIND
        and type(document.get("schema_version")) is int
        and document["schema_version"] == _VERSION_WITHOUT_MODEL
    ):
        raise CassetteWithoutModel()  # stale, not invalid: recording again replaces it
    keys = {
        "cassette",
        "schema_version",
        "non_diagnostic",
        "dialect",
        "model_identity",
        "planner_reference",
        "runs",
    }
    if type(document) is not dict or set(document) != keys:
        raise _invalid("top-level keys must be exactly: " + ", ".join(sorted(keys)))
    version = document["schema_version"]
    for key, valid in (
        ("cassette", document["cassette"] == _CASSETTE_KIND),
        ("schema_version", type(version) is int and version == CASSETTE_SCHEMA_VERSION),
        ("non_diagnostic", document["non_diagnostic"] is True),
    ):
        if not valid:
            raise _invalid("not a planner cassette of a supported version", f"key '{key}'")
    if type(document["dialect"]) is not str or document["dialect"] not in DIALECTS:
        raise _invalid(DIALECT.said_plainly("dialect"), "key 'dialect'")
    identity, reference = document["model_identity"], document["planner_reference"]
    if identity is not None and (
        type(identity) is not str or not MODEL_IDENTITY.fullmatch(identity)
    ):
        raise _invalid("model_identity must be null or a model name", "key 'model_identity'")
    if reference is not None and not is_reference(reference):
        raise _invalid(
            "planner_reference must be null or a reference like 'package.module:attribute'",
            "key 'planner_reference'",
        )
    runs = document["runs"]
    if type(runs) is not dict or not all(_split_run(name) is not None for name in runs):
        raise _invalid(
            "runs are 'qualification' and 'injection[<style>]' entries, "
            "suffixed '@<trial>' from the second trial on",
            "key 'runs'",
        )
    parsed: dict[str, tuple[Exchange, ...]] = {}
    for name, exchanges in runs.items():
        where = f"run '{name}'"  # a closed run name and a trial number, checked above
        if type(exchanges) is not list or len(exchanges) > _MAX_EXCHANGES_PER_RUN:
            raise _invalid(
                f"each run is a list of at most {_MAX_EXCHANGES_PER_RUN} exchanges", where
            )
        parsed[name] = tuple(
            _exchange(item, f"{where}, exchange #{number}")
            for number, item in enumerate(exchanges, start=1)
        )
    return Cassette(document["dialect"], parsed, identity, reference)


def load_cassette(path: Path) -> Cassette:
    """Read and validate a cassette file; every refusal starts ``cassette input: ``.

    Its path is never put in a message: the gate file key names the input.
    """
    try:
        return _load(path)
    except CassetteError as error:
        raise locate_input_error(error, _WHERE) from None


def _load(path: Path) -> Cassette:
    raw = read_limited(
        Path(path),
        _MAX_CASSETTE_BYTES,
        too_large=lambda: CassetteError(_CASSETTE_TOO_LARGE),
        unreadable=lambda: CassetteError("the cassette could not be read"),
    )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid("not UTF-8") from None
    return parse_cassette(text)


def response_tokens(response: object) -> int | None:
    """Tokens a response reports in its ``usage`` object, if it has one.

    OpenAI chat completions: ``total_tokens`` (or ``prompt_tokens`` +
    ``completion_tokens``); Anthropic messages: ``input_tokens`` +
    ``output_tokens``; an MCP answer the same way when its host adds a
    ``usage`` object.  ``None`` when no usage is present.
    """
    usage = response.get("usage") if type(response) is dict else None
    if type(usage) is not dict:
        return None
    total = usage.get("total_tokens")
    if type(total) is int and total >= 0:
        return total
    parts = [
        value
        for key in ("prompt_tokens", "completion_tokens", "input_tokens", "output_tokens")
        if type(value := usage.get(key)) is int and value >= 0
    ]
    return sum(parts) if parts else None


class _Usage:
    """Tokens reported by the responses of one gate (thread-safe: trials may run at once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.tokens = 0
        self.responses = 0

    def add(self, response: object) -> None:
        tokens = response_tokens(response)
        if tokens is not None:
            with self._lock:
                self.tokens += tokens
                self.responses += 1


class _RecordingTransport:
    """Calls the live model (or transport) and keeps every exchange of the current run."""

    def __init__(self, live: Transport, usage: _Usage | None = None) -> None:
        self._live = live
        self._usage = usage
        self.run = QUALIFICATION_RUN
        self.runs: dict[str, list[Exchange]] = {}

    def __call__(self, scenario_id: str, turn: int, request: dict[str, Any]) -> object:
        digest = digest_json(request)
        exchanges = self.runs.setdefault(self.run, [])
        try:
            response = self._live(scenario_id, turn, request)
        except (KeyboardInterrupt, HarnessStop):
            raise
        except BaseException:  # GeneratorExit, pytest's skip…: the model's fault, as in the harness
            exchanges.append(Exchange(scenario_id, turn, digest, None, raised=True))
            raised = True
        else:
            raised = False
        if raised:  # as replay will raise it: the same planner-error cause live and replayed
            raise _recorded_raise()
        normalised = normalise_response(response)
        if self._usage is not None:
            self._usage.add(normalised)
        exchanges.append(Exchange(scenario_id, turn, digest, normalised))
        return response


class _ReplayTransport:
    """Answers from the cassette alone; a request that is not the next recorded one is stale."""

    def __init__(self, cassette: Cassette, usage: _Usage | None = None, trial: int = 0) -> None:
        self._cassette = cassette
        self._usage = usage
        self._trial = trial
        self._position = 0
        self._started = False
        self.run = QUALIFICATION_RUN

    def start(self, run: str) -> None:
        if self._started:
            self.finish()
        self.run, self._position, self._started = trial_run(run, self._trial), 0, True

    def finish(self) -> None:
        """Every recorded exchange of the run was asked for, or the cassette is stale."""
        if self._position != len(self._cassette.runs.get(self.run, ())):
            raise _Stale()

    def __call__(self, scenario_id: str, turn: int, request: dict[str, Any]) -> object:
        recorded = self._cassette.runs.get(self.run, ())
        if self._position >= len(recorded):
            raise _Stale()
        exchange = recorded[self._position]
        if (
            exchange.scenario_id != scenario_id
            or exchange.turn != turn
            or exchange.request_digest != digest_json(request)
        ):
            raise _Stale()
        self._position += 1
        if exchange.raised:
            raise _recorded_raise()
        if self._usage is not None:
            self._usage.add(exchange.response)
        return exchange.response


def _recorded_raise() -> RuntimeError:
    """What a model call that raised raises, recorded and replayed: one planner-error cause."""
    return RuntimeError("the recorded model call raised")


@dataclass(frozen=True, slots=True)
class WireQualification:
    """The qualification report and, when the suite ran, the injection report."""

    report: PlannerQualificationReport
    injection: InjectionReport | None


@dataclass(frozen=True, slots=True)
class Recording:
    """What a recording wrote: trials recorded and kept (a resumed cassette), runs, exchanges.

    Counts only: a recording's note names no path, model or content.
    """

    recorded: int
    kept: int
    runs: int
    exchanges: int

    def describe(self) -> str:
        """One line for the terminal: ``cassette recorded: 3 trials, 3 runs, 42 exchanges``."""
        size = f"{plural(self.runs, 'run')}, {plural(self.exchanges, 'exchange')}"
        if not self.kept:
            return f"cassette recorded: {plural(self.recorded, 'trial')}, {size}"
        return (
            f"cassette resumed: {plural(self.kept, 'trial')} kept, {self.recorded} recorded; {size}"
        )


@dataclass(frozen=True, slots=True)
class WireTrials:
    """The reports of k trials, and what they cost.

    ``tokens`` sums the ``usage`` of every response that reports one
    (:func:`response_tokens`; ``responses_with_usage`` says how many did);
    ``seconds`` is the wall time of a live run or recording, ``None`` on replay;
    ``recording`` says what a recording wrote (``None``: nothing was written).
    """

    trials: tuple[WireQualification, ...]
    tokens: int = 0
    responses_with_usage: int = 0
    seconds: float | None = None
    recording: Recording | None = None

    def __repr__(self) -> str:
        return f"WireTrials(trials={len(self.trials)})"


@dataclass(frozen=True, slots=True)
class RecordingPolicy:
    """How a live run or recording calls the model.

    ``concurrency`` trials run at once, each in its own thread (the model
    function must be thread-safe; each trial has its own conversation state).
    A call that raises one of ``retry_on`` (the exception types the user
    declares transient) is retried up to ``retries`` times, sleeping
    ``backoff`` seconds, doubled after each attempt; any other exception is a
    planner error at once.  ``progress(done, total)`` is called after each
    completed trial.  Nothing here reaches the network: the model function does.
    """

    concurrency: int = 1
    retry_on: tuple[type[BaseException], ...] = ()
    retries: int = 3
    backoff: float = 1.0
    progress: Callable[[int, int], None] | None = None
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        if type(self.concurrency) is not int or not 1 <= self.concurrency <= _MAX_CONCURRENCY:
            raise InputRefused(
                f"record concurrency must be an integer from 1 to {_MAX_CONCURRENCY}"
            )
        if type(self.retry_on) is not tuple or not all(
            isinstance(kind, type) and issubclass(kind, Exception) for kind in self.retry_on
        ):
            raise InvalidArgument("retry_on must be a tuple of Exception subclasses")
        if type(self.retries) is not int or not 0 <= self.retries <= _MAX_RETRIES:
            raise InputRefused(f"retries must be an integer from 0 to {_MAX_RETRIES}")
        if type(self.backoff) is not float or not 0.0 <= self.backoff <= _MAX_BACKOFF_S:
            raise InputRefused(f"backoff must be a float from 0 to {_MAX_BACKOFF_S:g} seconds")

    def wrap(self, live: Transport) -> Transport:
        """``live``, retried on the declared transient exception types."""
        if not self.retry_on or not self.retries:
            return live
        transient, retries, backoff, sleep = self.retry_on, self.retries, self.backoff, self.sleep

        def retried(scenario_id: str, turn: int, request: dict[str, Any]) -> object:
            for attempt in range(retries):
                try:
                    return live(scenario_id, turn, request)
                except transient:
                    sleep(backoff * 2**attempt)
            return live(scenario_id, turn, request)  # the last attempt: whatever it raises

        return retried


def _run(
    planner: WirePlanner, injection_suite: bool, start: Callable[[str], None]
) -> WireQualification:
    start(QUALIFICATION_RUN)
    report = qualify_planner(planner)
    injection = None
    if injection_suite:
        injection = run_injection_suite(planner, before_style=lambda s: start(f"injection[{s}]"))
    return WireQualification(report, injection)


def qualify_wire(
    dialect: str,
    *,
    model: Model | None = None,
    cassette: Path | None = None,
    record: bool = False,
    injection_suite: bool = False,
    transport: Transport | None = None,
    reference: str | None = None,
    model_identity: str | None = None,
) -> WireQualification:
    """Qualify a wire-format model live, while recording, or from a cassette.

    ``transport`` stands for ``model`` where the model is not a function (the
    MCP server's :class:`~pytest_openmed.planner.served.AgentTransport`).

    * ``model`` without ``cassette``: live; nothing is written.
    * ``model`` with ``cassette`` and ``record=True``: live, then the cassette is
      (re)written at ``cassette``.
    * ``cassette`` without ``record``: replay; the model is never called (it may
      be ``None``).  A stale request raises :class:`StaleCassetteError`.

    ``reference`` (the model's ``module:function``) and ``model_identity``
    (the user's name for the model) are written into a recorded cassette and
    compared on replay (see :func:`qualify_wire_trials`).  One trial;
    :func:`qualify_wire_trials` runs k.
    """
    return qualify_wire_trials(
        dialect,
        model=model,
        cassette=cassette,
        record=record,
        injection_suite=injection_suite,
        transport=transport,
        reference=reference,
        model_identity=model_identity,
    ).trials[0]


def qualify_wire_trials(
    dialect: str,
    *,
    model: Model | None = None,
    cassette: Path | None = None,
    record: bool = False,
    injection_suite: bool = False,
    transport: Transport | None = None,
    trials: int = 1,
    policy: RecordingPolicy | None = None,
    reference: str | None = None,
    model_identity: str | None = None,
) -> WireTrials:
    """Run ``trials`` independent qualifications live, while recording, or from a cassette.

    Recording writes ``model_identity`` and ``reference`` into the cassette.
    Replaying compares them with the cassette's: another model identity, or
    one declared where the cassette records none, is stale, and so is another
    reference (when one is named: a replay without a reference does not
    compare it).

    Replaying needs a cassette with at least ``trials`` trials (fewer is a
    :class:`FewerTrialsError`; more are not read).  Recording writes the
    cassette atomically after each completed trial, so an interrupted
    recording leaves the trials it completed; recording again into a cassette
    with fewer trials than asked *resumes*: each recorded trial is replayed
    (no model call) and kept unless it is stale, and only the missing trials
    call the model.  A cassette that already holds every trial is recorded
    afresh.
    """
    dialect = adapter(dialect).name  # the one refusal of an unknown dialect
    trials = check_trials(trials)
    held = _Model(check_model_identity(model_identity), _check_reference(reference))
    policy = policy if policy is not None else RecordingPolicy()
    live = transport if transport is not None else None if model is None else live_transport(model)
    if record and (live is None or cassette is None):
        raise InputRefused("recording needs the model's planner reference and a cassette path")
    if cassette is not None and not record:
        return _replay(dialect, load_cassette(cassette), injection_suite, trials, held)
    if record and cassette is not None:
        _check_writable(Path(cassette))  # before the model is called at all
    if live is None:
        raise InputRefused("a live wire qualification needs the model's planner reference")
    return _Session(dialect, policy.wrap(live), injection_suite, trials, policy, held).run(
        cassette if record else None
    )


@dataclass(frozen=True, slots=True)
class _Model:
    """Which model a cassette holds: the declared identity and the planner reference."""

    identity: str | None
    reference: str | None

    def check(self, cassette: Cassette) -> None:
        """Refuse, as stale with its cause, a cassette that holds another model."""
        if self.reference is not None and cassette.planner_reference != self.reference:
            raise PlannerReferenceChanged()
        if cassette.model_identity != self.identity:
            if cassette.model_identity is None:
                raise ModelIdentityNotRecorded()
            raise ModelIdentityChanged()

    def recorded(self, dialect: str, runs: Mapping[str, tuple[Exchange, ...]]) -> Cassette:
        return Cassette(dialect, runs, self.identity, self.reference)

    def __repr__(self) -> str:
        return "_Model(<hidden>)"


def _check_reference(reference: object) -> str | None:
    if reference is None:
        return None
    if not is_reference(reference):
        raise InputRefused(PLANNER.plain)
    return reference


class _Session:
    """One live run or recording of k trials (a thread pool of ``concurrency`` trials)."""

    def __init__(
        self,
        dialect: str,
        live: Transport,
        injection_suite: bool,
        trials: int,
        policy: RecordingPolicy,
        held: _Model,
    ) -> None:
        self.dialect, self.live, self.suite = dialect, live, injection_suite
        self.trials, self.policy, self.held = trials, policy, held
        self.usage = _Usage()

    def trial(self, index: int) -> tuple[WireQualification, dict[str, tuple[Exchange, ...]]]:
        recorder = _RecordingTransport(self.live, self.usage)

        def start(run: str) -> None:
            recorder.run = trial_run(run, index)

        result = _run(WirePlanner(recorder, self.dialect), self.suite, start)
        return result, {name: tuple(exchanges) for name, exchanges in recorder.runs.items()}

    def run(self, cassette: Path | None) -> WireTrials:
        started = time.monotonic()
        results: dict[int, WireQualification] = {}
        runs: dict[str, tuple[Exchange, ...]] = {}
        kept = (
            None
            if cassette is None
            else _resumable(cassette, self.dialect, self.suite, self.trials, self.held)
        )
        if kept is not None:
            for index in sorted(kept.trial_indices(self.suite)):
                replayed = _replay_trial(self.dialect, kept, self.suite, index, self.usage)
                if replayed is not None and index < self.trials:
                    results[index] = replayed
                    runs.update(_runs_of(kept, index))
        pending = [index for index in range(self.trials) if index not in results]
        unsaid = False

        def completed(result: WireQualification, recorded: dict[str, tuple[Exchange, ...]]) -> None:
            nonlocal unsaid
            results[_index_of(recorded)] = result
            runs.update(recorded)
            if cassette is not None:
                _write(cassette, self.held.recorded(self.dialect, runs))
            if self.policy.progress is not None:
                done, progress = len(results), self.policy.progress
                unsaid = not when_audible(lambda: progress(done, self.trials))

        if self.policy.concurrency == 1:  # in this thread: nothing else runs meanwhile
            for index in pending:
                completed(*self.trial(index))
        else:
            with ThreadPoolExecutor(max_workers=self.policy.concurrency) as pool:
                futures = [pool.submit(self.trial, index) for index in pending]
                try:
                    for future in as_completed(futures):
                        completed(*future.result())
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        if unsaid and self.policy.progress is not None:
            self.policy.progress(len(results), self.trials)  # every conversation has ended
        if cassette is not None and not pending:
            _write(cassette, self.held.recorded(self.dialect, runs))
        recording = None
        if cassette is not None:
            exchanges = sum(len(run) for run in runs.values())
            recording = Recording(len(pending), self.trials - len(pending), len(runs), exchanges)
        return WireTrials(
            tuple(results[index] for index in range(self.trials)),
            self.usage.tokens,
            self.usage.responses,
            time.monotonic() - started,
            recording,
        )


def _index_of(runs: Mapping[str, object]) -> int:
    split = _split_run(next(iter(runs)))
    assert split is not None
    return split[1]


def _runs_of(cassette: Cassette, index: int) -> dict[str, tuple[Exchange, ...]]:
    return {
        name: exchanges
        for name, exchanges in cassette.runs.items()
        if (split := _split_run(name)) is not None and split[1] == index
    }


def _resumable(
    cassette: Path, dialect: str, suite: bool, trials: int, held: _Model
) -> Cassette | None:
    """The cassette at ``cassette`` if a recording should resume it (fewer trials than asked)."""
    if not Path(cassette).is_file():
        return None
    try:
        existing = load_cassette(cassette)
    except (CassetteError, CassetteWithoutModel):
        return None  # unreadable, invalid or of schema version 1: recorded afresh
    if existing.dialect != dialect or (
        existing.model_identity,
        existing.planner_reference,
    ) != (held.identity, held.reference):
        return None  # another model: recorded afresh
    recorded = existing.trial_indices(suite)
    if set(range(trials)) <= recorded:
        return None  # complete: --openmed-record records afresh
    return existing


def _check_writable(cassette: Path) -> None:
    """Refuse, before any model call, a cassette path that cannot be written."""
    import os

    directory = cassette.parent
    if (
        cassette.is_dir()
        or not directory.is_dir()
        or not os.access(directory, os.W_OK | os.X_OK)
        or (cassette.exists() and not os.access(cassette, os.W_OK))
    ):
        raise CassetteWriteError(
            "the cassette could not be written: its directory does not exist or is not writable "
            "(checked before any model call)"
        )


def _write(cassette: Path, recorded: Cassette) -> None:
    """Write the recording; refuse one replay would refuse (over 64 MiB) instead of writing it."""
    text = recorded.to_text()
    if len(text.encode("utf-8")) > _MAX_CASSETTE_BYTES:
        raise CassetteWriteError(_RECORDING_TOO_LARGE)
    try:
        atomic_write_text(cassette, text)
    except (OSError, ValueError):
        raise CassetteWriteError("the cassette could not be written") from None


def _replay_trial(
    dialect: str, cassette: Cassette, injection_suite: bool, index: int, usage: _Usage | None
) -> WireQualification | None:
    """Trial ``index`` replayed from ``cassette``, or ``None`` if it is stale."""
    transport = _ReplayTransport(cassette, usage, index)
    try:
        result = _run(WirePlanner(transport, dialect), injection_suite, transport.start)
        transport.finish()
    except _Stale:
        return None
    return result


def _replay(
    dialect: str, cassette: Cassette, injection_suite: bool, trials: int, held: _Model
) -> WireTrials:
    if cassette.dialect != dialect:
        raise DialectChanged()
    held.check(cassette)
    complete = cassette.trial_indices(injection_suite)
    if not set(range(trials)) <= complete:
        if injection_suite and not complete and cassette.trial_indices(False):
            # No trial holds the suite's runs: it was switched on after recording (and
            # possibly trials raised too); recording again is the one remedy for both.
            raise InjectionSuiteNotRecorded()
        if trials > 1 and 0 in complete:
            raise FewerTrialsError()
        raise StaleCassetteError()
    usage = _Usage()
    results = []
    for index in range(trials):
        result = _replay_trial(dialect, cassette, injection_suite, index, usage)
        if result is None:
            raise StaleCassetteError()
        results.append(result)
    return WireTrials(tuple(results), usage.tokens, usage.responses)
