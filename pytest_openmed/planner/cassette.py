"""Record and replay: qualify a wire-format model once live, then offline from a cassette.

PYTEST_DONT_REWRITE

A cassette (JSON, schema ``planner-cassette``) holds, per run (the
qualification, then each injection style) and per scenario and turn, the
SHA-256 digest of the exact request and the model's raw response (normalised
to plain JSON).  *Recording* calls the model and writes the cassette where the
caller named it, nowhere else.  *Replaying* calls no model: each request must
be the next recorded one, with the same digest; any difference (prompt
rendering, catalog, scenario text, dialect) ends the run with
:class:`StaleCassetteError` — never a fallback to the live model, never a
pass.  Cassettes hold model output, which may be sensitive: nothing here puts
their content or their path in a message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import atomic_write_text, digest_json, is_digest
from pytest_openmed._jsonread import read_limited, strict_decoder
from pytest_openmed.contract import INJECTION_ITEMS, locate_input_error
from pytest_openmed.errors import InputRefused
from pytest_openmed.planner.harness import qualify_planner
from pytest_openmed.planner.injection import InjectionReport, run_injection_suite
from pytest_openmed.planner.report import PlannerQualificationReport
from pytest_openmed.planner.scenarios import MAX_TURNS, SCENARIO_IDS
from pytest_openmed.planner.wire import (
    DIALECTS,
    Model,
    Transport,
    WirePlanner,
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
    "StaleCassetteError",
    "WireQualification",
    "load_cassette",
    "parse_cassette",
    "qualify_wire",
]

CASSETTE_SCHEMA_VERSION = 1
_CASSETTE_KIND = "openmed_planner_cassette"
#: Name of the run of the six scenarios; injection runs are named by their gate items.
QUALIFICATION_RUN = "qualification"
_RUNS = (QUALIFICATION_RUN, *INJECTION_ITEMS)
_MAX_CASSETTE_BYTES = 64 * 1024 * 1024
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


class _Stale(BaseException):
    """Raised inside the harness on a stale request.

    Not an ``Exception``, so the harness does not count it as a planner error
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
    """A dialect and the recorded exchanges of each run, in call order."""

    dialect: str
    runs: Mapping[str, tuple[Exchange, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", MappingProxyType(dict(self.runs)))

    def to_text(self) -> str:
        """Deterministic JSON text: the same exchanges always give the same bytes."""
        document = {
            "cassette": _CASSETTE_KIND,
            "schema_version": CASSETTE_SCHEMA_VERSION,
            "non_diagnostic": True,
            "dialect": self.dialect,
            "runs": {
                name: [exchange.to_dict() for exchange in self.runs[name]]
                for name in _RUNS
                if name in self.runs
            },
        }
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=True) + "\n"

    def __repr__(self) -> str:
        return f"Cassette({self.dialect!r}, runs={len(self.runs)})"


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

    The message says where: the line and column of a JSON syntax error, or the
    key (``run 'qualification', exchange #3, key 'turn'``: run names are checked
    against the closed list before they are named, exchanges are counted from
    1).  It never quotes a value or the text of the document.
    """
    try:  # the package's JSON policy: no repeated name, no NaN, numbers in range
        document = strict_decoder(lambda: _invalid("not JSON")).decode(text)
    except json.JSONDecodeError as error:
        raise _invalid("not JSON", f"line {error.lineno}, column {error.colno}") from None
    except CassetteError:
        raise
    except (ValueError, RecursionError):
        raise _invalid("not JSON") from None
    keys = {"cassette", "schema_version", "non_diagnostic", "dialect", "runs"}
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
        raise _invalid("dialect must be one of: " + ", ".join(DIALECTS), "key 'dialect'")
    runs = document["runs"]
    if type(runs) is not dict or not set(runs) <= set(_RUNS):
        raise _invalid("runs are 'qualification' and 'injection[<style>]' entries", "key 'runs'")
    parsed: dict[str, tuple[Exchange, ...]] = {}
    for name, exchanges in runs.items():
        where = f"run '{name}'"  # a name from the closed list _RUNS, checked above
        if type(exchanges) is not list or len(exchanges) > _MAX_EXCHANGES_PER_RUN:
            raise _invalid(
                f"each run is a list of at most {_MAX_EXCHANGES_PER_RUN} exchanges", where
            )
        parsed[name] = tuple(
            _exchange(item, f"{where}, exchange #{number}")
            for number, item in enumerate(exchanges, start=1)
        )
    return Cassette(document["dialect"], parsed)


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
        too_large=lambda: CassetteError("the cassette exceeds 64 MiB"),
        unreadable=lambda: CassetteError("the cassette could not be read"),
    )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid("not UTF-8") from None
    return parse_cassette(text)


class _RecordingTransport:
    """Calls the live model (or transport) and keeps every exchange of the current run."""

    def __init__(self, live: Transport) -> None:
        self._live = live
        self.run = QUALIFICATION_RUN
        self.runs: dict[str, list[Exchange]] = {}

    def __call__(self, scenario_id: str, turn: int, request: dict[str, Any]) -> object:
        digest = digest_json(request)
        exchanges = self.runs.setdefault(self.run, [])
        try:
            response = self._live(scenario_id, turn, request)
        except Exception:
            exchanges.append(Exchange(scenario_id, turn, digest, None, raised=True))
            raised = True
        else:
            raised = False
        if raised:  # as replay will raise it: the same planner-error cause live and replayed
            raise _recorded_raise()
        exchanges.append(Exchange(scenario_id, turn, digest, normalise_response(response)))
        return response


class _ReplayTransport:
    """Answers from the cassette alone; a request that is not the next recorded one is stale."""

    def __init__(self, cassette: Cassette) -> None:
        self._cassette = cassette
        self._position = 0
        self._started = False
        self.run = QUALIFICATION_RUN

    def start(self, run: str) -> None:
        if self._started:
            self.finish()
        self.run, self._position, self._started = run, 0, True

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
        return exchange.response


def _recorded_raise() -> RuntimeError:
    """What a model call that raised raises, recorded and replayed: one planner-error cause."""
    return RuntimeError("the recorded model call raised")


@dataclass(frozen=True, slots=True)
class WireQualification:
    """The qualification report and, when the suite ran, the injection report."""

    report: PlannerQualificationReport
    injection: InjectionReport | None


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
) -> WireQualification:
    """Qualify a wire-format model live, while recording, or from a cassette.

    ``transport`` stands for ``model`` where the model is not a function (the
    MCP server's :class:`~pytest_openmed.planner.served.AgentTransport`).

    * ``model`` without ``cassette``: live; nothing is written.
    * ``model`` with ``cassette`` and ``record=True``: live, then the cassette is
      (re)written at ``cassette``.
    * ``cassette`` without ``record``: replay; the model is never called (it may
      be ``None``).  A stale request raises :class:`StaleCassetteError`.
    """
    if dialect not in DIALECTS:
        raise InputRefused("dialect must be one of: " + ", ".join(DIALECTS))
    live = transport if transport is not None else None if model is None else live_transport(model)
    if record and (live is None or cassette is None):
        raise InputRefused("recording needs the model's planner reference and a cassette path")
    if cassette is not None and not record:
        return _replay(dialect, load_cassette(cassette), injection_suite)
    if live is None:
        raise InputRefused("a live wire qualification needs the model's planner reference")
    if not record:
        return _run(WirePlanner(live, dialect), injection_suite, lambda r: None)
    recorder = _RecordingTransport(live)

    def start(run: str) -> None:
        recorder.run = run

    result = _run(WirePlanner(recorder, dialect), injection_suite, start)
    runs = {name: tuple(exchanges) for name, exchanges in recorder.runs.items()}
    assert cassette is not None
    try:
        atomic_write_text(cassette, Cassette(dialect, runs).to_text())
    except (OSError, ValueError):
        raise CassetteWriteError("the cassette could not be written") from None
    return result


def _replay(dialect: str, cassette: Cassette, injection_suite: bool) -> WireQualification:
    if cassette.dialect != dialect:
        raise StaleCassetteError()
    transport = _ReplayTransport(cassette)
    try:
        result = _run(WirePlanner(transport, dialect), injection_suite, transport.start)
        transport.finish()
    except _Stale:
        raise StaleCassetteError() from None
    return result
