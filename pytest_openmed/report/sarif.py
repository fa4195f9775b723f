"""SARIF 2.1.0 and GitHub workflow commands from a gate report: the formats CI already reads.

:func:`sarif_document` is a pure function of a gate report (and, for line
numbers, of the gate files and test modules the report names): one result per
failing or waived verdict, with its closed rule, its level, a location (the
line of the gate's ``[[kind]]`` table in its gate file, or of the test
function) and a ``partialFingerprints`` entry that stays the same across runs,
so code scanning tracks one failure from run to run.  Messages hold the rule
and its public numbers only, never data.  ``--openmed-sarif``, ``openmed-report
sarif`` and ``openmed-report merge --sarif`` all write this one document.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_openmed.report.rules import (
    gate_group,
    is_failing,
    item_label,
    rule_text,
    verdict_label,
    verdict_outcome,
)

__all__ = [
    "FINGERPRINT",
    "SARIF_VERSION",
    "annotation_lines",
    "locate",
    "sarif_document",
]

SARIF_VERSION = "2.1.0"
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The ``partialFingerprints`` key: versioned, so a change of the hashed fields gets a new key.
FINGERPRINT = "openmedVerdict/v1"
#: Largest gate file or test module read for a line number; larger files get no line.
_MAX_SOURCE_BYTES = 4 * 1024 * 1024
_GATE_SUFFIX = ".openmed.toml"
_KINDS = ("claims", "planner", "pack")
_GATE_NODE = re.compile(r"(?P<kind>claims|planner|pack)\((?P<name>[^()]*)\)")
_TABLE = re.compile(r"^[ \t]*\[\[[ \t]*(claims|planner|pack)[ \t]*\]\][ \t]*(#.*)?$")


def _rule_id(entry: Mapping[str, Any]) -> str:
    """``openmed/<kind>/<reason>``: one SARIF rule per closed reason of a gate kind."""
    reason = entry.get("reason") or ("no_verdict" if entry.get("status") is None else "failed")
    return f"openmed/{entry['kind']}/{reason}"


def _name(entry: Mapping[str, Any]) -> str:
    return str(entry["nodeid"]) + (f" [{entry['part']}]" if entry.get("part") else "")


def _fingerprint(entry: Mapping[str, Any]) -> str:
    """Stable across runs: the verdict's node id, part and rule; nothing that varies by run."""
    text = "\0".join((str(entry["nodeid"]), str(entry.get("part") or ""), _rule_id(entry)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _message(entry: Mapping[str, Any]) -> str:
    status = entry.get("status") or "no verdict"
    return (
        f"{verdict_label(entry)} {status}: {rule_text(entry)} "
        f"(openmed {entry['kind']} gate {gate_group(entry)}, verdict {item_label(entry)}). "
        "Non-diagnostic evaluation evidence."
    )


def _read_source(root: Path, relative: str) -> str | None:
    """A file under ``root`` named by a node id; ``None`` when absent, too large or outside."""
    if not relative or relative.startswith(("/", "\\")) or ".." in Path(relative).parts:
        return None
    try:
        with (root / relative).open("rb") as handle:
            raw = handle.read(_MAX_SOURCE_BYTES + 1)
    except OSError:
        return None
    if len(raw) > _MAX_SOURCE_BYTES:
        return None
    return raw.decode("utf-8", errors="replace")


def _gate_lines(text: str) -> dict[tuple[str, str], int]:
    """(kind, name) -> 1-based line of its ``[[kind]]`` table header in a gate file."""
    from pytest_openmed._toml import TomlError, parse_toml

    try:
        document = parse_toml(text.encode("utf-8"))
    except TomlError:
        return {}
    headers: dict[str, list[int]] = {kind: [] for kind in _KINDS}
    for number, line in enumerate(text.splitlines(), start=1):
        found = _TABLE.match(line)
        if found:
            headers[found.group(1)].append(number)
    lines: dict[tuple[str, str], int] = {}
    for kind in _KINDS:
        tables = document.get(kind)
        if not isinstance(tables, list) or len(tables) != len(headers[kind]):
            continue  # inline or mixed tables: no reliable line, the file is still named
        for table, number in zip(tables, headers[kind], strict=True):
            if isinstance(table, dict) and isinstance(table.get("name"), str):
                lines.setdefault((kind, table["name"]), number)
    return lines


def _test_line(text: str, nodeid: str) -> int | None:
    """1-based line of the ``def`` of the test function a Python node id names."""
    function = nodeid.split("::")[-1].partition("[")[0]
    if not function.isidentifier():
        return None
    pattern = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{function}[ \t]*\(")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def locate(report: Mapping[str, Any], root: Path | None) -> dict[str, tuple[str, int | None]]:
    """Per node id: (file relative to the rootdir, line or ``None``).

    The file is the node id's first part; the line is read from that file
    under ``root`` (the rootdir) when it can be: a gate file's table header,
    or a test module's ``def``.  Without ``root`` no file is read.
    """
    located: dict[str, tuple[str, int | None]] = {}
    sources: dict[str, str | None] = {}
    gate_files: dict[str, dict[tuple[str, str], int]] = {}
    for entry in report.get("gates", []):
        nodeid = str(entry["nodeid"])
        if nodeid in located:
            continue
        path, _, rest = nodeid.partition("::")
        line: int | None = None
        if root is not None and path.endswith((_GATE_SUFFIX, ".py")):
            if path not in sources:
                sources[path] = _read_source(root, path)
            text = sources[path]
            if text is not None and path.endswith(_GATE_SUFFIX):
                if path not in gate_files:
                    gate_files[path] = _gate_lines(text)
                found = _GATE_NODE.fullmatch(rest.split("::")[0])
                if found:
                    line = gate_files[path].get((found.group("kind"), found.group("name")))
            elif text is not None:
                line = _test_line(text, nodeid)
        located[nodeid] = (path, line)
    return located


def _reported(report: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], str | None]]:
    """Failing verdicts, and waived ones with the waiver that suppressed them."""
    waivers = {
        str(w["gate"]): f"waived until {w['expires']} (ref {w['reference']})"
        for w in report.get("waivers", [])
        if w.get("applied")
    }
    for entry in report.get("gates", []):
        waiver = waivers.get(str(entry["nodeid"]))
        if is_failing(entry):
            yield entry, None
        elif verdict_outcome(entry) == "skipped" and waiver is not None:
            yield entry, waiver


def _location(
    entry: Mapping[str, Any], located: Mapping[str, tuple[str, int | None]]
) -> dict[str, Any]:
    path, line = located[str(entry["nodeid"])]
    physical: dict[str, Any] = {"artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return {
        "physicalLocation": physical,
        "logicalLocations": [{"fullyQualifiedName": _name(entry), "kind": "test"}],
    }


def sarif_document(report: Mapping[str, Any], root: Path | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of ``report``: one result per failing (or waived) verdict.

    ``root`` is the directory node ids are relative to (pytest's rootdir);
    when given, gate files and test modules under it are read for line numbers.
    """
    located = locate(report, root)
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for entry, waiver in _reported(report):
        rule = _rule_id(entry)
        if rule not in rules:
            rules[rule] = {
                "id": rule,
                "name": rule.replace("/", "_"),
                "shortDescription": {
                    "text": f"openmed {entry['kind']} gate: "
                    + (
                        f"{entry['status']} ({entry['reason']})"
                        if entry.get("status")
                        else "no verdict (input refused or missing)"
                    )
                },
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["openmed", str(entry["kind"]), "non-diagnostic"]},
            }
        result: dict[str, Any] = {
            "ruleId": rule,
            "ruleIndex": list(rules).index(rule),
            "level": "error",
            "kind": "fail",
            "message": {"text": _message(entry)},
            "locations": [_location(entry, located)],
            "partialFingerprints": {FINGERPRINT: _fingerprint(entry)},
        }
        if waiver is not None:
            result["suppressions"] = [{"kind": "external", "justification": waiver}]
        results.append(result)
    generator = report.get("generator") or {}
    run = report.get("run") if isinstance(report.get("run"), Mapping) else {}
    exit_status = run.get("exit_status") if isinstance(run, Mapping) else None
    invocation: dict[str, Any] = {
        "executionSuccessful": isinstance(exit_status, int) and exit_status in (0, 1),
    }
    if isinstance(exit_status, int) and not isinstance(exit_status, bool):
        invocation["exitCode"] = exit_status
    return {
        "$schema": _SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": str(generator.get("name", "pytest-openmed")),
                        "version": str(generator.get("version", "")) or "unknown",
                        "rules": list(rules.values()),
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {"non_diagnostic": True, "verdicts": len(report.get("gates", []))},
            }
        ],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_lines(report: Mapping[str, Any], root: Path | None = None) -> list[str]:
    """GitHub Actions ``::error`` workflow commands: one per failing gate, rule and numbers only.

    GitHub shows each as an annotation on the gate file's table (or the test)
    beside the step summary.  Waived gates are not annotated.
    """
    located = locate(report, root)
    failing: dict[str, list[Mapping[str, Any]]] = {}
    for entry in report.get("gates", []):
        if is_failing(entry):
            failing.setdefault(gate_group(entry), []).append(entry)
    lines = []
    for group, entries in failing.items():
        path, line = located[str(entries[0]["nodeid"])]
        where = f"file={_escape_property(path)}" + (f",line={line}" if line is not None else "")
        title = _escape_property(f"openmed {entries[0]['kind']} gate failed")
        rules = "; ".join(f"{item_label(entry)}: {rule_text(entry)}" for entry in entries[:10])
        more = f"; and {len(entries) - 10} more" if len(entries) > 10 else ""
        message = _escape_data(f"{group}: {len(entries)} failing: {rules}{more}")
        lines.append(f"::error {where},title={title}::{message}")
    return lines
