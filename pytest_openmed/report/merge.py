"""Merging the shard reports of one run into one report, one verdict, one exit code.

Each ``--openmed-shard I/N`` run records under ``run.shard`` which gates it
was assigned and what proves it belongs to the same run as the others (the
plugin version, gate-file digests, seed, resamples, overrides, selection
switches, the commit, the run's whole gate set).  :func:`merge_reports`
refuses shards that do not make one complete run — a missing shard, a shard
twice, overlapping gates, an incomplete shard run, any disagreement — with a
:class:`MergeError` that names the shard by its position on the command line
(``SHARD #2``) and the key, never a path or a value.  Totals, the verdict,
waivers and the partial-selection flag are recomputed over the merged
verdicts; only item counts, which are disjoint across shards, are added up.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_openmed.errors import InputRefused

__all__ = ["MergeError", "gate_counts", "merge_reports"]

#: pytest exit statuses of a shard run that ran to its end (5: the shard had nothing to run).
_COMPLETE_EXITS = (0, 1, 5)
#: What every shard of one run must agree on: (what the message calls it, how to read it).
_AGREEMENT: tuple[tuple[str, Any], ...] = (
    ("the report schema version (schema_version)", lambda r: r["schema_version"]),
    ("the plugin version (generator.version)", lambda r: r["generator"]["version"]),
    ("the gate-file digests (run.shard.gate_files)", lambda r: r["run"]["shard"]["gate_files"]),
    ("the seed (run.seed)", lambda r: r["run"]["seed"]),
    ("the resamples (run.resamples)", lambda r: r["run"]["resamples"]),
    ("the threshold overrides (overrides)", lambda r: r.get("overrides")),
    ("the commit (run.environment.commit)", lambda r: r["run"]["environment"]["commit"]),
    (
        "the selection switches (run.keyword_selection, marker_selection, last_failed, "
        "deselected, run.shard.gate_selection)",
        lambda r: (
            [
                r["run"][key]
                for key in ("keyword_selection", "marker_selection", "last_failed", "deselected")
            ]
            + [r["run"]["shard"]["gate_selection"]]
        ),
    ),
    ("the run's gates (run.shard.collected)", lambda r: r["run"]["shard"]["collected"]),
    ("the balancing run (run.shard.balanced_by)", lambda r: r["run"]["shard"]["balanced_by"]),
    ("the waivers (waivers)", lambda r: [_waiver_key(w) for w in r["waivers"]]),
    ("the baseline compared against (run.comparison)", lambda r: r["run"].get("comparison")),
    ("the hook extensions (extensions)", lambda r: r["extensions"]),
)


class MergeError(InputRefused):
    """The shard reports do not make one complete run; the message says which shard and key."""


def _waiver_key(waiver: Mapping[str, Any]) -> tuple[str, str, str]:
    return waiver["gate"], waiver["expires"], waiver["reference"]


def _check_shards(reports: Sequence[Mapping[str, Any]]) -> None:
    """Every refusal, in a fixed order; the first found is raised."""
    if not reports:
        raise MergeError("no shard report given")
    for number, report in enumerate(reports, start=1):
        run = report["run"]
        if "shards" in run:
            raise MergeError(f"SHARD #{number}: already a merged report (run.shards)")
        if "shard" not in run:
            raise MergeError(
                f"SHARD #{number}: not a shard run (no run.shard: run it with --openmed-shard I/N)"
            )
        if (
            run.get("incomplete")
            or run["stopped_early"]
            or run["exit_status"] not in (_COMPLETE_EXITS)
        ):
            raise MergeError(
                f"SHARD #{number}: the shard run is incomplete (run.exit_status, "
                "run.stopped_early): rerun that shard"
            )
    count = reports[0]["run"]["shard"]["count"]
    seen: dict[int, int] = {}
    for number, report in enumerate(reports, start=1):
        shard = report["run"]["shard"]
        if shard["count"] != count:
            raise MergeError(
                f"SHARD #{number}: shard of {shard['count']}, but SHARD #1 is a shard of {count} "
                "(run.shard.count)"
            )
        if shard["index"] in seen:
            raise MergeError(
                f"SHARD #{number}: shard {shard['index']}/{count} is present twice "
                f"(also SHARD #{seen[shard['index']]})"
            )
        seen[shard["index"]] = number
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise MergeError(
            f"shard {missing[0]}/{count} is missing ({len(missing)} of {count} missing)"
        )
    for what, read in _AGREEMENT:
        first = read(reports[0])
        for number, report in enumerate(reports[1:], start=2):
            if read(report) != first:
                raise MergeError(f"SHARD #{number} disagrees with SHARD #1 on {what}")
    owner: dict[str, int] = {}
    for number, report in enumerate(reports, start=1):
        assigned = set(report["run"]["shard"]["gates"])
        for gate in sorted(assigned):
            if gate in owner:
                raise MergeError(
                    f"SHARD #{number}: a gate it evaluated is also on SHARD #{owner[gate]} "
                    "(run.shard.gates overlap)"
                )
            owner[gate] = number
        positions = report["run"]["shard"]["positions"]
        for index, entry in enumerate(report["gates"]):
            if entry["nodeid"] not in positions:
                raise MergeError(
                    f"SHARD #{number}: /gates/{index} has no run.shard.positions entry"
                )
            if positions[entry["nodeid"]]["gate"] not in assigned:
                raise MergeError(
                    f"SHARD #{number}: /gates/{index} belongs to no gate assigned to this shard "
                    "(run.shard.gates)"
                )
    collected = reports[0]["run"]["shard"]["collected"]
    if not collected["gates"]:
        raise MergeError(
            "the run has no gate (run.shard.collected): nothing was evaluated, so nothing passed"
        )
    union = "".join(f"{gate}\n" for gate in sorted(owner))
    digest = "sha256:" + hashlib.sha256(union.encode("utf-8", "surrogatepass")).hexdigest()
    if len(owner) != collected["gates"] or digest != collected["digest"]:
        raise MergeError(
            f"the shards' gates ({len(owner)}) are not the run's {collected['gates']} gates "
            "(run.shard.collected): the shards split differently"
        )


def _parse_stamp(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)


def _timing(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """From the first shard's start to the last shard's end; every gate's own seconds."""
    from pytest_openmed.report.provenance import utc_stamp

    timings = [report["run"]["timing"] for report in reports]
    starts = [_parse_stamp(timing["started"]) for timing in timings]
    duration: float | None = None
    if all(timing["duration"] is not None for timing in timings):
        ends = [
            start + datetime.timedelta(seconds=timing["duration"])
            for start, timing in zip(starts, timings, strict=True)
        ]
        duration = round((max(ends) - min(starts)).total_seconds(), 6)
    gates: dict[str, float] = {}
    for timing in timings:
        gates.update(timing["gates"])
    return {
        "started": utc_stamp(min(starts)),
        "duration": duration,
        "gates": dict(sorted(gates.items())),
    }


def _environment(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each value the shards share; ``null`` where they ran on different versions or platforms."""
    environments = [report["run"]["environment"] for report in reports]
    return {
        key: value if all(env[key] == value for env in environments) else None
        for key, value in environments[0].items()
    }


def _shard_entry(report: Mapping[str, Any]) -> dict[str, Any]:
    record = {key: value for key, value in report["run"]["shard"].items() if key != "positions"}
    run = report["run"]
    return {
        **record,
        "exit_status": run["exit_status"],
        "timing": run["timing"],
        "environment": run["environment"],
    }


def gate_counts(gates: Sequence[Mapping[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """A gate report's ``summary.outcomes`` and ``summary.statuses`` of its ``gates`` entries.

    One rule for the plugin's report and a merged one, so the two count alike.
    """
    from pytest_openmed.contract import STATUSES

    outcomes = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    statuses = dict.fromkeys(STATUSES, 0)
    for entry in gates:
        outcomes[entry["outcome"]] += 1
        if entry["status"] is not None:
            statuses[entry["status"]] += 1
    return outcomes, statuses


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One report of the whole run from its validated shard reports (any order).

    Raises :class:`MergeError` when they do not make one complete run.
    """
    _check_shards(reports)
    first = reports[0]
    entries: list[tuple[tuple[int, str, str], dict[str, Any]]] = []
    for report in reports:
        positions = report["run"]["shard"]["positions"]
        for entry in report["gates"]:
            key = (positions[entry["nodeid"]]["position"], entry["nodeid"], entry["part"] or "")
            entries.append((key, dict(entry)))
    entries.sort(key=lambda pair: pair[0])
    gates = [entry for _, entry in entries]
    outcomes, statuses = gate_counts(gates)
    items = dict.fromkeys(first["summary"]["items"], 0)
    for report in reports:
        for category, count in report["summary"]["items"].items():
            items[category] += count  # each gate item ran on exactly one shard
    applied = {
        waiver["gate"] for report in reports for waiver in report["waivers"] if waiver["applied"]
    }
    source = first["run"]
    failed = outcomes["failed"] + outcomes["error"] > 0
    run = {
        "exit_status": 1 if failed else 0,
        "partial_selection": bool(
            source["keyword_selection"]
            or source["marker_selection"]
            or source["last_failed"]
            or source["deselected"]
        ),
        **{
            key: source[key]
            for key in ("keyword_selection", "marker_selection", "last_failed", "deselected")
        },
        "stopped_early": False,
        "seed": source["seed"],
        "resamples": source["resamples"],
        "timing": _timing(reports),
        "environment": _environment(reports),
        **({"comparison": source["comparison"]} if "comparison" in source else {}),
        "shards": [
            _shard_entry(report)
            for report in sorted(reports, key=lambda r: r["run"]["shard"]["index"])
        ],
    }
    merged: dict[str, Any] = {
        "schema_version": first["schema_version"],
        "generator": dict(first["generator"]),
        "non_diagnostic": True,
        "run": run,
        "summary": {
            "gates": len(gates),
            "outcomes": outcomes,
            "statuses": statuses,
            "items": items,
        },
        "gates": gates,
        "waivers": [
            {**waiver, "applied": waiver["gate"] in applied} for waiver in first["waivers"]
        ],
        "extensions": first["extensions"],
    }
    if "overrides" in first:
        merged["overrides"] = first["overrides"]
    if "deselected_gates" in first or first["run"]["shard"]["gate_selection"] is not None:
        merged["deselected_gates"] = sorted(
            {gate for report in reports for gate in report.get("deselected_gates", ())}
        )
    return merged
