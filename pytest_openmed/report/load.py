"""Reading a JSON gate report at the trust boundary: size, JSON, then the schema.

Errors say where (a JSON pointer into the document) and what was expected,
never the offending value: a report handed to ``openmed-report`` may be any file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_openmed._jsonread import POLICY_REFUSALS, loads, read_limited
from pytest_openmed.errors import InputRefused

__all__ = [
    "INCOMPLETE_KEY",
    "MAX_REPORT_BYTES",
    "IncompleteRun",
    "ReportError",
    "parse_report",
    "parse_stored",
    "read_report",
]

#: Largest gate report read.
MAX_REPORT_BYTES = 64 * 1024 * 1024
_TOO_LARGE = f"the report exceeds {MAX_REPORT_BYTES // 2**20} MiB"
#: Text that breaks the reading policy (pytest_openmed._jsonread): the refusal names the policy.
_NOT_STRICT_JSON = f"the report is not strict UTF-8 JSON ({POLICY_REFUSALS})"


class ReportError(InputRefused):
    """The file is not a valid pytest-openmed gate report; the message names where it fails."""


#: Top-level key (``true``) of the report written when a run starts: the run has not finished.
INCOMPLETE_KEY = "incomplete"


class IncompleteRun(ReportError):
    """The report is the one written when its run started: the run never finished.

    Never a pass: the run crashed or was killed before it replaced the report.
    """

    def __init__(self) -> None:
        super().__init__(
            "the report is of a run that never finished (incomplete: it crashed or was killed); "
            "it is not a pass (OPENMED-REPORT-INCOMPLETE)"
        )


#: What each minor version of the report added: ``(top-level keys, run keys, summary keys)``.
#: A stored report of an older minor version is checked against everything else.
_ADDED_IN = {
    "1.2": ((), ("timing", "environment"), ()),
    "1.1": (("run",), (), ("items",)),
}


def _schema_for(document: object) -> dict[str, Any]:
    """The shipped schema; for an older minor version (stored history), less what came later."""
    import copy

    from pytest_openmed.schemas import load_schema

    schema = load_schema("gate-report")
    version = document.get("schema_version") if isinstance(document, dict) else None
    later = [added for minor, added in _ADDED_IN.items() if str(version) < minor]
    if version not in ("1.0", "1.1") or not later:
        return schema
    old = copy.deepcopy(schema)
    old["properties"]["schema_version"] = {"const": version}
    for top, run, summary in later:
        old["required"] = [name for name in old["required"] if name not in top]
        for key, names in (("run", run), ("summary", summary)):
            part = old["properties"][key]
            part["required"] = [name for name in part["required"] if name not in names]
    return old


def parse_report(raw: bytes) -> dict[str, Any]:
    """The validated report in ``raw``; a :class:`ReportError` names the failing location."""
    import jsonschema

    if len(raw) > MAX_REPORT_BYTES:
        raise ReportError(_TOO_LARGE)
    document = loads(raw, lambda: ReportError(_NOT_STRICT_JSON))
    validator = jsonschema.Draft202012Validator(_schema_for(document))
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/" + "/".join(str(part) for part in error.absolute_path)
        raise ReportError(
            f"the report does not match the gate-report schema at {where} (rule: {error.validator})"
        )
    if not isinstance(document, dict):  # pragma: no cover - the schema requires an object
        raise ReportError("the report is not a JSON object")
    if document.get(INCOMPLETE_KEY) is True:
        raise IncompleteRun()
    return document


def parse_stored(raw: bytes) -> dict[str, Any]:
    """A stored run of the history, checked for what a page draws from it.

    Strict JSON, a gate report of a readable schema version, and every gate
    entry with a string node id, a string or null part, a known kind, outcome
    and status, and an object of metrics: the fields the trends and the
    run list read.  Every value drawn is type-checked again where it is used.
    """
    if len(raw) > MAX_REPORT_BYTES:
        raise ReportError(_TOO_LARGE)
    document = loads(raw, lambda: ReportError(_NOT_STRICT_JSON))
    if not isinstance(document, dict) or document.get("schema_version") not in _STORED_VERSIONS:
        raise ReportError("the stored run is not a gate report of a readable schema version")
    gates = document.get("gates")
    if not isinstance(gates, list) or not all(_entry_ok(entry) for entry in gates):
        raise ReportError("the stored run's gate list does not match the gate-report schema")
    if document.get(INCOMPLETE_KEY) is True:
        raise IncompleteRun()
    return document


#: Gate report versions the history reads back.
_STORED_VERSIONS = ("1.0", *sorted(_ADDED_IN))
_KINDS = frozenset(("claims", "planner", "pack", "custom"))
_ENTRY_OUTCOMES = frozenset(("passed", "failed", "error", "skipped"))


def _entry_ok(entry: object) -> bool:
    from pytest_openmed.contract import STATUSES

    if not isinstance(entry, dict):
        return False
    part, status = entry.get("part"), entry.get("status")
    return (
        type(entry.get("nodeid")) is str
        and (part is None or type(part) is str)
        and entry.get("kind") in _KINDS
        and entry.get("outcome") in _ENTRY_OUTCOMES
        and (status is None or status in STATUSES)
        and isinstance(entry.get("metrics"), dict)
        and (entry.get("reason") is None or type(entry.get("reason")) is str)
    )


def read_report(path: Path) -> dict[str, Any]:
    """Read and validate the report at ``path`` (its path is never echoed)."""
    raw = read_limited(
        path,
        MAX_REPORT_BYTES,
        too_large=lambda: ReportError(_TOO_LARGE),
        unreadable=lambda: ReportError("the report could not be read"),
    )
    return parse_report(raw)
