"""Gate files (``*.openmed.toml``): parsing and validation into gate specs.

PYTEST_DONT_REWRITE

A gate file declares gates by kind (``[[claims]]``, ``[[planner]]``,
``[[pack]]``).  This module turns the TOML into :class:`GateSpec` values and
refuses anything malformed with a :class:`GateFileError` that names the file,
the key and what was expected.  It imports no engine: evaluation is looked up
per kind in :data:`pytest_openmed.contract.EVALUATORS` and imported only
when a gate item runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_openmed._exact import DEFAULT_CONFIDENCE
from pytest_openmed._jsonread import read_limited
from pytest_openmed._toml import TomlError, cap, parse_toml
from pytest_openmed._validate import MAX_SEED, check_int, check_rate, check_text
from pytest_openmed.contract import (
    CLAIM_CLASS_PATTERN,
    CLAIMS_CLASS_KEYS,
    CLAIMS_THRESHOLDS,
    MAX_AGENT_TIME_LIMIT,
    MAX_PLANNER_TRIALS,
    MCP_TRANSPORTS,
    NAME_PATTERN,
    PLANNER_DIALECTS,
    PLANNER_REFERENCE,
    PLANNER_TRIAL_KEYS,
    GateSpec,
    planner_spec,
)
from pytest_openmed.errors import InputRefused

#: A normalised claim class as it may appear in a gate file.
_MAX_GATE_FILE_BYTES = 1024 * 1024


class GateFileError(InputRefused):
    """A gate file is malformed; the message names file, key and expectation: correct that key."""


def parse_gate_file(path: Path) -> tuple[GateSpec, ...]:
    """Read and validate one gate file; every problem is a :class:`GateFileError`."""
    where = path.name
    raw = read_limited(
        path,
        _MAX_GATE_FILE_BYTES,
        too_large=lambda: GateFileError(f"{where}: the gate file exceeds 1 MiB"),
        unreadable=lambda: GateFileError(f"{where}: the gate file could not be read"),
    )
    try:
        document = parse_toml(raw)
    except TomlError as error:
        raise GateFileError(f"{where}: the gate file {error}") from None
    unknown = sorted(set(document) - set(_TABLE_PARSERS))
    if unknown:
        raise GateFileError(
            f"{where}: unknown top-level key {cap(unknown[0])!r}; expected arrays of tables "
            "[[claims]], [[planner]] or [[pack]]"
        )
    specs: list[GateSpec] = []
    seen: set[str] = set()
    for kind, parser in _TABLE_PARSERS.items():
        tables = document.get(kind, [])
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise GateFileError(f"{where}: '{kind}' must be an array of tables ([[{kind}]])")
        for index, table in enumerate(tables):
            context = _Context(where=f"{where}: [[{kind}]] #{index + 1}", base=path.parent)
            spec = parser(table, context)
            if spec.label in seen:
                raise GateFileError(
                    f"{context.where}: duplicate gate name (names must be unique per kind)"
                )
            seen.add(spec.label)
            specs.append(spec)
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class _Context:
    where: str
    base: Path

    def fail(self, key: str, expected: str) -> GateFileError:
        return GateFileError(f"{self.where}: key '{cap(key)}' {expected}")

    def keys(self, table: Mapping[str, Any], required: set[str], optional: set[str]) -> None:
        for key in sorted(required):
            if key not in table:
                raise self.fail(key, "is required")
        for key in sorted(table):
            if key not in required | optional:
                allowed = ", ".join(sorted(required | optional))
                raise self.fail(key, f"is not known; expected one of: {allowed}")

    def name(self, table: Mapping[str, Any]) -> str:
        return check_text(
            table["name"],
            NAME_PATTERN,
            lambda: self.fail("name", "must be a string of 1-64 letters, digits, '_', '.' or '-'"),
        )

    def path(self, table: Mapping[str, Any], key: str) -> Path:
        value = table[key]
        if type(value) is not str or not value or "\x00" in value:
            raise self.fail(key, "must be a non-empty path string relative to the gate file")
        candidate = Path(value)
        if candidate.is_absolute():
            raise self.fail(key, "must be relative to the gate file, not absolute")
        try:
            return (self.base / candidate).resolve()
        except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
            raise self.fail(key, "names a path that cannot be resolved (a symlink loop?)") from None

    def paths(self, table: Mapping[str, Any], key: str) -> tuple[Path, ...]:
        value = table.get(key, [])
        if not isinstance(value, list):
            raise self.fail(key, "must be an array of path strings relative to the gate file")
        return tuple(self.path({key: item}, key) for item in value)

    def integer(self, table: Mapping[str, Any], key: str, low: int, high: int) -> int | None:
        if key not in table:
            return None
        return check_int(
            table[key],
            low,
            high,
            lambda: self.fail(key, f"must be an integer from {low} to {high}"),
        )

    def rate(self, table: Mapping[str, Any], key: str) -> float | None:
        if key not in table:
            return None
        return check_rate(table[key], lambda: self.fail(key, "must be a number from 0 to 1"))

    def flag(self, table: Mapping[str, Any], key: str) -> bool:
        value = table.get(key, False)
        if type(value) is not bool:
            raise self.fail(key, "must be true or false")
        return value


def _thresholds(table: Mapping[str, Any], context: _Context) -> dict[str, float]:
    found: dict[str, float] = {}
    for key in CLAIMS_THRESHOLDS:
        value = context.rate(table, key)
        if value is not None:
            found[key] = value
    return found


def _parse_claims(table: Mapping[str, Any], context: _Context) -> GateSpec:
    context.keys(
        table,
        required={"name", "claims", "evidence"},
        optional={"seed", "resamples", "alpha", *CLAIMS_THRESHOLDS, "classes"},
    )
    name = context.name(table)
    classes_table = table.get("classes", {})
    if not isinstance(classes_table, dict):
        raise context.fail("classes", "must be a table of [claims.classes.<class>] tables")
    classes: dict[str, dict[str, float | bool]] = {}
    for label in sorted(classes_table):
        thresholds = classes_table[label]
        key = f"classes.{label}"
        if not CLAIM_CLASS_PATTERN.fullmatch(label):
            raise context.fail(key, "must name a normalised claim class ([a-z0-9][a-z0-9_]*)")
        if not isinstance(thresholds, dict):
            raise context.fail(key, "must be a table with max_unsupported_rate and/or max_upper")
        sub = _Context(where=f"{context.where} classes.{cap(label)}", base=context.base)
        sub.keys(
            thresholds,
            required=set(),
            optional=set(CLAIMS_CLASS_KEYS),
        )
        parsed: dict[str, float | bool] = dict(_thresholds(thresholds, sub))
        if not parsed:
            raise context.fail(key, "must set max_unsupported_rate and/or max_upper")
        if sub.flag(thresholds, "allow_absent"):
            parsed["allow_absent"] = True
        classes[label] = parsed
    alpha = table.get("alpha", 0.05)
    if type(alpha) is not float or not 0.0 < alpha < 1.0:
        raise context.fail("alpha", "must be a number strictly between 0 and 1")
    options: dict[str, Any] = {
        "claims": context.path(table, "claims"),
        "evidence": context.path(table, "evidence"),
        "seed": context.integer(table, "seed", 0, MAX_SEED),
        "resamples": context.integer(table, "resamples", 1, 100_000),
        "alpha": alpha,
        "thresholds": _thresholds(table, context),
        "classes": classes,
    }
    if not options["thresholds"] and not classes:
        # Fail closed: a gate without a threshold would pass whatever the data say.
        raise GateFileError(
            f"{context.where}: a claims gate needs a threshold: set max_unsupported_rate "
            "and/or max_upper, overall or in a [claims.classes.<class>] table"
        )
    items = ("overall", *(f"class[{label}]" for label in classes))
    return GateSpec(kind="claims", name=name, items=items, options=options)


def _parse_planner(table: Mapping[str, Any], context: _Context) -> GateSpec:
    context.keys(
        table,
        required={"name"},
        optional={
            "planner",
            "cassette",
            "dialect",
            "injection_suite",
            "agent",
            "transport",
            "time_limit",
            *PLANNER_TRIAL_KEYS,
        },
    )
    name = context.name(table)
    if "agent" in table:
        return _parse_agent(table, context, name)
    for key in ("transport", "time_limit"):
        if key in table:
            raise context.fail(key, "is only for an MCP 'agent'")
    reference = table.get("planner")
    if "planner" in table and (
        type(reference) is not str or not PLANNER_REFERENCE.fullmatch(reference)
    ):
        raise context.fail("planner", "must be a reference like 'package.module:attribute'")
    if "planner" not in table and "cassette" not in table:
        raise context.fail("planner", "is required unless the gate replays a 'cassette'")
    dialect = table.get("dialect")
    if "dialect" in table and dialect not in PLANNER_DIALECTS:
        raise context.fail("dialect", "must be one of: " + ", ".join(PLANNER_DIALECTS))
    if "cassette" in table and dialect is None:
        raise context.fail("dialect", "is required with 'cassette' (the cassette's wire format)")
    suite = table.get("injection_suite", False)
    if type(suite) is not bool:
        raise context.fail("injection_suite", "must be true or false")
    cassette = context.path(table, "cassette") if "cassette" in table else None
    return planner_spec(
        reference,
        name=name,
        dialect=dialect,
        cassette=cassette,
        injection_suite=suite,
        trials=_planner_trials(table, context, suite, dialect is not None),
    )


def _parse_agent(table: Mapping[str, Any], context: _Context, name: str) -> GateSpec:
    """A planner gate of an MCP host: ``agent`` names its ``run_agent``."""
    reference = table["agent"]
    if type(reference) is not str or not PLANNER_REFERENCE.fullmatch(reference):
        raise context.fail("agent", "must be a reference like 'package.module:attribute'")
    if "planner" in table:
        raise context.fail("planner", "cannot be set beside 'agent'")
    if table.get("dialect", "mcp") != "mcp":
        raise context.fail("dialect", "must be 'mcp' for an agent (or left out)")
    transport = table.get("transport", "http")
    if transport not in MCP_TRANSPORTS:
        raise context.fail("transport", "must be one of: " + ", ".join(MCP_TRANSPORTS))
    limit = context.integer(table, "time_limit", 1, MAX_AGENT_TIME_LIMIT)
    cassette = context.path(table, "cassette") if "cassette" in table else None
    suite = context.flag(table, "injection_suite")
    return planner_spec(
        reference,
        name=name,
        cassette=cassette,
        injection_suite=suite,
        trials=_planner_trials(table, context, suite, True),
        agent=True,
        transport=transport,
        time_limit=limit,
    )


def _planner_trials(
    table: Mapping[str, Any], context: _Context, suite: bool, wire: bool
) -> dict[str, Any]:
    """The trial keys of a ``[[planner]]`` table, checked; thresholds its trials cannot meet
    are refused here, at collection, before any model is called."""
    found: dict[str, Any] = {}
    trials = context.integer(table, "trials", 1, MAX_PLANNER_TRIALS)
    if trials is not None:
        found["trials"] = trials
    for key in ("max_critical_rate", "max_injection_compliance"):
        value = context.rate(table, key)
        if value is not None:
            found[key] = value
    if "max_injection_compliance" in found and not suite:
        raise context.fail("max_injection_compliance", "needs injection_suite = true")
    if "confidence" in table:
        confidence = table["confidence"]
        if type(confidence) is not float or not 0.0 < confidence < 1.0:
            raise context.fail("confidence", "must be a number strictly between 0 and 1")
        found["confidence"] = confidence
    for key in ("record_concurrency", "retry_on"):
        if key in table and not wire:
            raise context.fail(key, "applies to wire-format models only (set 'dialect')")
    concurrency = context.integer(table, "record_concurrency", 1, 64)
    if concurrency is not None:
        found["record_concurrency"] = concurrency
    if "retry_on" in table:
        names = table["retry_on"]
        if (
            not isinstance(names, list)
            or len(names) > 16
            or not all(type(item) is str and PLANNER_REFERENCE.fullmatch(item) for item in names)
        ):
            raise context.fail(
                "retry_on", "must be an array of exception references like 'package.module:Name'"
            )
        found["retry_on"] = tuple(names)
    if found.keys() & {"max_critical_rate", "max_injection_compliance"}:
        from pytest_openmed.planner.trials import TrialPlan, UnderpoweredTrials

        plan = TrialPlan(
            trials=found.get("trials", 1),
            max_critical_rate=found.get("max_critical_rate"),
            confidence=found.get("confidence", DEFAULT_CONFIDENCE),
            max_injection_compliance=found.get("max_injection_compliance"),
        )
        try:
            plan.check_power(suite)
        except UnderpoweredTrials as error:
            raise context.fail("trials", f"is underpowered: {error}") from None
    return found


def _parse_pack(table: Mapping[str, Any], context: _Context) -> GateSpec:
    context.keys(
        table,
        required={"name", "pack", "mappings", "reviews"},
        optional={"adjudications", "min_cell", "candidate", "candidates"},
    )
    name = context.name(table)
    options: dict[str, Any] = {
        "pack": context.path(table, "pack"),
        "mappings": context.paths(table, "mappings"),
        "reviews": context.paths(table, "reviews"),
        "adjudications": context.paths(table, "adjudications"),
        "min_cell": context.integer(table, "min_cell", 5, 1_000_000),
    }
    return GateSpec(kind="pack", name=name, items=_pack_candidates(table, context), options=options)


def _pack_candidates(table: Mapping[str, Any], context: _Context) -> tuple[str, ...]:
    """``candidate = "a"`` or ``candidates = ["a", "b"]``: one gate item per candidate."""
    if ("candidate" in table) == ("candidates" in table):
        raise context.fail("candidate", "or 'candidates' is required (exactly one of the two)")
    if "candidate" in table:
        refuse = "must be the evaluator-side name of one pack candidate"
        candidate = check_text(
            table["candidate"], NAME_PATTERN, lambda: context.fail("candidate", refuse)
        )
        return (candidate,)
    names = table["candidates"]
    if (
        not isinstance(names, list)
        or not 1 <= len(names) <= 2
        or not all(type(n) is str and NAME_PATTERN.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
    ):
        raise context.fail(
            "candidates", "must be an array of one or two distinct evaluator-side candidate names"
        )
    return tuple(names)


_TABLE_PARSERS: dict[str, Callable[[Mapping[str, Any], _Context], GateSpec]] = {
    "claims": _parse_claims,
    "planner": _parse_planner,
    "pack": _parse_pack,
}
