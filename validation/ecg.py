"""Validation of ``ecg_quality`` and ``ecg_intervals`` on real ECGs and on generated cases.

Run ``python validation/ecg.py`` from the repository root (or pass ``--data DIR``,
the folder holding ``ludb-dev/`` and ``mitbih-100/``; by default
``../shared/data/ecg`` relative to the repository root).  It needs the ``dev``
extra (``wfdb`` reads the recordings).

Real data (a development set: nothing is fitted to individual records):

* LUDB records 1–100: 12 leads, 10 s, 500 Hz, every P / QRS / T onset, peak and
  offset marked by cardiologists per lead.  A record's reference interval is the
  median over leads of each lead's median over its annotated beats.
* MIT-BIH record 100: 30 min, leads MLII (read as II) and V5, 360 Hz, expert beat
  labels; analysed as 180 consecutive 10 s recordings.

Each recording is written as an ``openmed.waveform.v1`` JSON asset (mV, 0.1 µV)
and passed to the components' ``run``, exactly as a pipeline would.  An R peak
matches a reference beat (one to one) when it lies inside the beat's annotated
QRS complex ±20 ms (LUDB: a wide or QS complex has no single R point) or within
±75 ms of its beat label (MIT-BIH).  Only reference beats and detections inside
the annotated span ±75 ms (LUDB: first to last annotated QRS; MIT-BIH: 0.3 s
clear of each window edge) count.

Generated cases: the adverse slice of the ECG generator (every artefact flagged
on exactly its leads), disconnected leads and sparse R-top clipping.

Interval metrics (LUDB, per configuration): a candidate is compared with the
reference when both exist (PR never in atrial fibrillation or flutter, where
the reference has none).  The mean absolute error is over the compared
candidates; a record is a gross error when one compared candidate is off by
more than PR 50, QRS 40 or QT 60 ms, and the gross-error rate is over the
records with at least one compared candidate.  A ``null`` candidate (with its
``null_reasons``) is not an error, so each candidate must also be reported on
≥ 90 % of the non-abstained records that have its reference: refusing cannot
buy accuracy unnoticed.  "PR null in AF/flutter" is over the non-abstained
AF/flutter records.

Development split (issue 27): the components are tuned on LUDB 1–50 (the
*tuning half*) and checked on LUDB 51–100 and MIT-BIH 100 (the *check half*);
both halves are printed, and a change that helps the one and hurts the other is
no fix.  "PR reported on AF/flutter" has the target none.

Generated heart forms (issue 27): the interval generator's wide QRS forms
(bundle-branch block, anterior infarct QS/rS with an injury current, paced) and
rhythms without P waves (fibrillation, flutter) at 250–1000 Hz: every R mark
inside its beat's QRS (exact truth: onset to offset, so a mark on a pacing
stimulus is outside); PR reported on no fibrillation or flutter source;
gross errors shown for information.

Peak memory (issue 11): each component, in its own process, on the largest
12-lead asset the carriers accept (LUDB 1's leads repeated end to end), peaks
under the resource-bound target.

Every target of issues 11 and 27 is printed with its measured figure and whether
it holds; the exit status is 1 when one fails.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_openmed.carriers.ecg import MAX_SAMPLES_PER_LEAD, STANDARD_LEADS
from pytest_openmed.carriers.limits import MAX_ASSET_BYTES
from pytest_openmed.carriers.waveform import WAVEFORM_FORMAT, read_waveform
from pytest_openmed.components import ecg_intervals, ecg_quality

if __package__:  # imported as ``validation.ecg``
    from validation._report import Report, Target, peak_target
else:  # run as ``python validation/ecg.py``
    from _report import Report, Target, peak_target

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ecg"
#: LUDB's lead names: the standard twelve, lower-case.
LUDB_LEADS = tuple(name.lower() for name in STANDARD_LEADS)
STANDARD = STANDARD_LEADS
MITBIH_LEADS = {"MLII": "II", "V5": "V5"}
MITBIH_WINDOW_S = 10.0
MATCH_S = 0.075
INTERVALS = ("pr_ms", "qrs_ms", "qt_ms")
#: Issue 11 targets: mean absolute error and gross-error limits (ms).
MAE_TARGET_MS = {"pr_ms": 15.0, "qrs_ms": 12.0, "qt_ms": 20.0}
GROSS_MS = {"pr_ms": 50.0, "qrs_ms": 40.0, "qt_ms": 60.0}
#: A null candidate is neither an error nor a gross error, so nulls could hide errors: each
#: candidate must also be reported on this share of the records that have a reference.
COVERAGE_TARGET = 0.9
SINUS = ("Sinus rhythm", "Sinus bradycardia", "Sinus tachycardia", "Sinus arrhythmia")
ATRIAL = ("Atrial fibrillation", "Atrial flutter")


# -- reading ----------------------------------------------------------------------------------


def waveform_asset(fs: float, leads: dict[str, npt.NDArray[np.float64]]) -> bytes:
    """An ``openmed.waveform.v1`` JSON asset (mV, 0.1 µV) of the named leads."""
    document = {
        "format": WAVEFORM_FORMAT,
        "sampling_rate_hz": fs,
        "units": "mV",
        "leads": [
            {"name": name, "samples": np.round(leads[name], 4).tolist()}
            for name in STANDARD
            if name in leads
        ],
    }
    return json.dumps(document).encode()


@dataclass
class Reference:
    """One recording with its cardiologists' reference."""

    name: str
    fs: float
    leads: dict[str, npt.NDArray[np.float64]]
    rhythm: str
    beats: list[int]  # reference R positions (samples)
    windows: list[tuple[float, float]]  # where a detection of each reference beat may lie
    span: tuple[float, float]  # samples where reference beats and detections count
    intervals: dict[str, float | None] = field(default_factory=dict)

    @property
    def asset(self) -> bytes:
        return waveform_asset(self.fs, self.leads)

    @property
    def sinus(self) -> bool:
        return self.rhythm.startswith(SINUS)

    @property
    def atrial(self) -> bool:
        return self.rhythm.startswith(ATRIAL)


def _waves(samples: Sequence[int], symbols: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
    """(onset, peak, offset) of every fully annotated wave of one lead, by symbol."""
    waves: dict[str, list[tuple[int, int, int]]] = {"p": [], "N": [], "t": []}
    for k, symbol in enumerate(symbols):
        if symbol in waves and 0 < k < len(symbols) - 1:
            if symbols[k - 1] == "(" and symbols[k + 1] == ")":
                waves[symbol].append((int(samples[k - 1]), int(samples[k]), int(samples[k + 1])))
    return waves


def _lead_intervals(waves: dict[str, list[tuple[int, int, int]]], fs: float) -> dict[str, float]:
    """Median PR / QRS / QT (ms) over the annotated beats of one lead."""
    found: dict[str, list[float]] = {name: [] for name in INTERVALS}
    ms = 1000.0 / fs
    qrs = waves["N"]
    for k, (onset, _peak, offset) in enumerate(qrs):
        found["qrs_ms"].append((offset - onset) * ms)
        previous_end = qrs[k - 1][2] if k else -math.inf
        following = qrs[k + 1][0] if k + 1 < len(qrs) else math.inf
        p = [w for w in waves["p"] if previous_end < w[1] < onset]
        if p:
            found["pr_ms"].append((onset - p[-1][0]) * ms)
        t = [w for w in waves["t"] if offset < w[1] < following]
        if t:
            found["qt_ms"].append((t[0][2] - onset) * ms)
    return {name: statistics.median(values) for name, values in found.items() if values}


def read_ludb(folder: Path, first: int, last: int) -> list[Reference]:
    import wfdb

    references = []
    for number in range(first, last + 1):
        stem = str(folder / "data" / str(number))
        record = wfdb.rdrecord(stem)
        fs = float(record.fs)
        columns = [name.lower() for name in record.sig_name]
        leads = {
            standard: np.asarray(record.p_signal[:, columns.index(ludb)], dtype=np.float64)
            for ludb, standard in zip(LUDB_LEADS, STANDARD, strict=True)
        }
        rhythm = next(
            (c.split(":", 1)[1].strip() for c in record.comments if c.startswith("Rhythm")), ""
        )
        per_lead: dict[str, list[float]] = {name: [] for name in INTERVALS}
        qrs_by_lead: list[list[tuple[int, int, int]]] = []
        for ludb in LUDB_LEADS:
            annotation = wfdb.rdann(stem, ludb)
            waves = _waves(list(annotation.sample), list(annotation.symbol))
            qrs_by_lead.append(waves["N"])
            for name, value in _lead_intervals(waves, fs).items():
                per_lead[name].append(value)
        # Reference beats: the lead with the most annotated QRS complexes (ties: lead order).
        qrs = max(qrs_by_lead, key=len)
        beats = [peak for _on, peak, _off in qrs]
        # A wide or QS complex has no single R point: a detection inside the
        # annotated QRS (±20 ms) finds the beat.
        windows = [(on - 0.02 * fs, off + 0.02 * fs) for on, _peak, off in qrs]
        span = (min(w[0] for w in qrs), max(w[2] for w in qrs))
        intervals = {
            name: (statistics.median(values) if values else None)
            for name, values in per_lead.items()
        }
        references.append(
            Reference(f"LUDB {number}", fs, leads, rhythm, beats, windows, span, intervals)
        )
    return references


def read_mitbih(folder: Path) -> list[Reference]:
    import wfdb

    stem = str(folder / "100")
    record = wfdb.rdrecord(stem)
    annotation = wfdb.rdann(stem, "atr")
    fs = float(record.fs)
    beat_symbols = set("NLRBAaJSVrFejnE/fQ")
    beats = np.asarray(
        [
            s
            for s, sym in zip(annotation.sample, annotation.symbol, strict=True)
            if sym in beat_symbols
        ]
    )
    window = round(MITBIH_WINDOW_S * fs)
    edge = round(0.3 * fs)
    references = []
    for start in range(0, record.p_signal.shape[0] - window + 1, window):
        leads = {
            MITBIH_LEADS[name]: np.asarray(record.p_signal[start : start + window, k], np.float64)
            for k, name in enumerate(record.sig_name)
        }
        inside = beats[(beats >= start) & (beats < start + window)] - start
        references.append(
            Reference(
                f"MIT-BIH 100 @{start / fs:.0f}s",
                fs,
                leads,
                "Sinus rhythm",
                [int(b) for b in inside],
                [(b - MATCH_S * fs, b + MATCH_S * fs) for b in inside],
                (edge, window - edge),
            )
        )
    return references


# -- scoring ----------------------------------------------------------------------------------


def match(detected: Sequence[int], windows: Sequence[tuple[float, float]]) -> int:
    """Detections paired one to one with reference beats, each inside its beat's window."""
    used: set[int] = set()
    matched = 0
    for low, high in windows:
        middle = (low + high) / 2.0
        options = [i for i, d in enumerate(detected) if i not in used and low <= d <= high]
        if options:
            used.add(min(options, key=lambda i: abs(detected[i] - middle)))
            matched += 1
    return matched


@dataclass
class Tally:
    true_positive: int = 0
    reference: int = 0
    detected: int = 0

    def add(self, result: Any, ref: Reference) -> None:
        """Score the detections and reference beats inside the annotated span (± 75 ms)."""
        margin = MATCH_S * ref.fs
        low, high = ref.span[0] - margin, ref.span[1] + margin
        windows = [w for b, w in zip(ref.beats, ref.windows, strict=True) if low <= b <= high]
        found = [int(p) for p in result.output["r_peaks"] if low <= p <= high]
        self.true_positive += match(found, windows)
        self.reference += len(windows)
        self.detected += len(found)

    @property
    def sensitivity(self) -> float:
        return self.true_positive / max(1, self.reference)

    @property
    def ppv(self) -> float:
        return self.true_positive / max(1, self.detected)


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100.0 * part / max(1, whole):.1f} %"


def quality_lines(records: list[Reference], label: str) -> list[Target]:
    sinus = [r for r in records if r.sinus]
    results = [ecg_quality.run(r.asset, ecg_quality.CONFIG_A) for r in sinus]
    unacceptable = sum(r.output["overall"] == "unacceptable" for r in results)
    abstained = sum(r.abstained for r in results)
    leads = sum(len(r.output["leads"]) for r in results)
    flat = sum("flatline" in e["flags"] for r in results for e in r.output["leads"].values())
    brady = [
        (ref, res)
        for ref, res in zip(sinus, results, strict=True)
        if len(ref.beats) >= 2 and 60.0 * ref.fs / float(np.median(np.diff(ref.beats))) < 60.0
    ]
    brady_bad = sum(res.output["overall"] != "acceptable" for _ref, res in brady)
    wander = [
        quality.measures["baseline_wander"]
        for ref in sinus
        for quality in ecg_quality.assess_leads(read_waveform(ref.asset)).values()
    ]
    flags: dict[str, int] = {}
    for r in results:
        for entry in r.output["leads"].values():
            for flag in entry["flags"]:
                flags[flag] = flags.get(flag, 0) + 1
    return [
        Target(
            f"{label}: unacceptable ≤ 5 % of sinus records (A)",
            _pct(unacceptable, len(sinus)),
            unacceptable <= 0.05 * len(sinus),
        ),
        Target(
            f"{label}: abstention ≤ 5 % of sinus records (A)",
            _pct(abstained, len(sinus)),
            abstained <= 0.05 * len(sinus),
        ),
        Target(f"{label}: flatline ≤ 1 % of leads", _pct(flat, leads), flat <= 0.01 * leads),
        Target(
            f"{label}: sinus records under 60 bpm not acceptable (A)",
            _pct(brady_bad, len(brady)),
            None,
        ),
        Target(
            f"{label}: baseline_wander (largest move within 1 s) on sinus leads, mV",
            f"median {np.median(wander):.3f}, 99th pct {np.percentile(wander, 99):.3f}, "
            f"max {max(wander):.3f}; borderline (≥ 0.5) on "
            + _pct(sum(w >= 0.5 for w in wander), len(wander)),
            None,
        ),
        Target(
            f"{label}: flags on sinus leads",
            ", ".join(f"{k} {v}" for k, v in sorted(flags.items())) or "none",
            None,
        ),
    ]


def interval_lines(
    records: list[Reference], label: str, config: Any, config_name: str, *, delineation: bool
) -> list[Target]:
    tally = Tally()
    errors: dict[str, list[float]] = {name: [] for name in INTERVALS}
    gross_records = evaluated = 0
    impossible = 0
    abstained = 0
    atrial = atrial_null = 0
    covered: dict[str, list[int]] = {name: [0, 0] for name in INTERVALS}
    nulls: dict[str, int] = {}
    sinus_pr = [0, 0]
    for ref in records:
        result = ecg_intervals.run(ref.asset, config)
        if result.abstained:
            abstained += 1
            continue
        tally.add(result, ref)
        candidates = result.output["candidates"]
        impossible += len(implausible(result.output))
        if ref.atrial:
            atrial += 1
            atrial_null += candidates["pr_ms"] is None
        if not delineation:
            continue
        gross = False
        compared = False
        for name in INTERVALS:
            expected, value = ref.intervals.get(name), candidates[name]
            if expected is None or (name == "pr_ms" and ref.atrial):
                continue
            covered[name][1] += 1
            if name == "pr_ms" and ref.sinus:
                sinus_pr[1] += 1
                sinus_pr[0] += value is not None
            if value is None:
                continue
            covered[name][0] += 1
            compared = True
            error = abs(value - expected)
            errors[name].append(error)
            gross = gross or error > GROSS_MS[name]
        evaluated += compared
        gross_records += gross
        for name in INTERVALS:
            reason = result.output["null_reasons"][name]
            if reason is not None and not (name == "pr_ms" and ref.atrial):
                key = f"{name} {reason}"
                nulls[key] = nulls.get(key, 0) + 1
    tag = f"{label} ({config_name})"
    lines = [
        Target(
            f"{tag}: R-peak sensitivity ≥ 99.5 %",
            f"{tally.true_positive}/{tally.reference} = {100 * tally.sensitivity:.2f} %",
            tally.sensitivity >= 0.995,
        ),
        Target(
            f"{tag}: R-peak PPV ≥ 99.5 %",
            f"{tally.true_positive}/{tally.detected} = {100 * tally.ppv:.2f} %",
            tally.ppv >= 0.995,
        ),
        Target(f"{tag}: abstentions", _pct(abstained, len(records)), None),
        Target(
            f"{tag}: no physiologically impossible value", f"{impossible} emitted", impossible == 0
        ),
    ]
    if delineation:
        for name in INTERVALS:
            values = errors[name]
            mae = statistics.fmean(values) if values else math.inf
            lines.append(
                Target(
                    f"{tag}: {name} MAE ≤ {MAE_TARGET_MS[name]:g} ms",
                    f"{mae:.1f} ms over {len(values)} records",
                    mae <= MAE_TARGET_MS[name],
                )
            )
            reported, expected = covered[name]
            lines.append(
                Target(
                    f"{tag}: {name} reported on ≥ {100 * COVERAGE_TARGET:.0f} % of records"
                    " with a reference",
                    _pct(reported, expected),
                    reported >= COVERAGE_TARGET * expected,
                )
            )
        lines.append(
            Target(
                f"{tag}: gross errors ≤ 2 % of records",
                _pct(gross_records, evaluated),
                gross_records <= 0.02 * evaluated,
            )
        )
        lines.append(
            Target(
                f"{tag}: PR reported on sinus records with a reference PR", _pct(*sinus_pr), None
            )
        )
        lines.append(
            Target(
                f"{tag}: null candidates outside AF/flutter PR, by reason",
                ", ".join(f"{k} {v}" for k, v in sorted(nulls.items())) or "none",
                None,
            )
        )
        lines.append(
            Target(
                f"{tag}: PR reported on no AF/flutter record",
                _pct(atrial - atrial_null, atrial),
                atrial_null == atrial,
            )
        )
    return lines


def implausible(output: Any) -> list[str]:
    """Emitted candidates that break a physiological bound (the issue's consistency rules)."""
    found = []
    candidates = output["candidates"]
    rr = statistics.median(output["rr_ms"]) if output["rr_ms"] else None
    if candidates["qt_ms"] is not None and rr is not None and candidates["qt_ms"] >= 0.9 * rr:
        found.append("qt_ms")
    if candidates["qrs_ms"] is not None and candidates["qrs_ms"] > 200.0:
        found.append("qrs_ms")
    if candidates["pr_ms"] is not None and candidates["pr_ms"] > 400.0:
        found.append("pr_ms")
    return found


# -- generated cases ---------------------------------------------------------------------------


def generated_lines(count: int) -> list[Target]:
    from pytest_openmed.development.sources.ecg import generate_ecg_quality

    def flagged(result: Any) -> dict[str, set[str]]:
        return {k: set(v["flags"]) for k, v in result.output["leads"].items() if v["flags"]}

    lines = []
    exact = 0
    for seed in range(count):
        source = generate_ecg_quality(1000 + seed, "adverse_acquisition")
        expected = {k: set(v) for k, v in source.truth["flagged_leads"].items()}
        exact += flagged(ecg_quality.run(source.asset)) == expected
    lines.append(
        Target(
            "generated adverse slice: every artefact flagged on exactly its leads",
            _pct(exact, count),
            exact == count,
        )
    )
    lines.extend(_new_artefact_lines(count, flagged))
    return lines


def _new_artefact_lines(count: int, flagged: Callable[[Any], dict[str, set[str]]]) -> list[Target]:
    """Disconnected leads and sparse R-top clipping at 40–180 bpm, one lead each."""
    from pytest_openmed.development.sources.ecg import Artefact, generate_ecg_quality

    lines = []
    for label, make in (
        (
            "disconnected lead (10 µV RMS amplifier noise)",
            lambda lead: Artefact("flatline", lead, 1.0, "disconnected"),
        ),
        (
            "clipping of 1 % of samples at R-wave tops",
            lambda lead: Artefact("clipping", lead, 0.01),
        ),
    ):
        exact = 0
        for seed in range(count):
            lead = STANDARD[seed % len(STANDARD)]
            source = generate_ecg_quality(
                2000 + seed,
                "adverse_acquisition",
                heart_rate_bpm=40.0 + 140.0 * seed / max(1, count - 1),
                artefacts=[make(lead)],
            )
            expected = {k: set(v) for k, v in source.truth["flagged_leads"].items()}
            exact += bool(expected) and flagged(ecg_quality.run(source.asset)) == expected
        lines.append(
            Target(
                f"generated, 40-180 bpm: {label} flagged on that lead only",
                _pct(exact, count),
                exact == count,
            )
        )
    return lines


# -- lead-count dependence ---------------------------------------------------------------------


def lead_count_lines(records: list[Reference]) -> list[Target]:
    """QRS / QT mean absolute error with 12 leads, the six limb leads, and lead II alone."""
    lines = []
    for label, subset in (
        ("12 leads", STANDARD),
        ("limb leads", STANDARD[:6]),
        ("lead II", ("II",)),
    ):
        errors: dict[str, list[float]] = {name: [] for name in INTERVALS}
        for ref in records:
            if not ref.sinus:
                continue
            asset = waveform_asset(ref.fs, {k: v for k, v in ref.leads.items() if k in subset})
            result = ecg_intervals.run(asset, ecg_intervals.CONFIG_A)
            if result.abstained:
                continue
            for name in INTERVALS:
                expected, value = ref.intervals.get(name), result.output["candidates"][name]
                if expected is not None and value is not None:
                    errors[name].append(abs(value - expected))
        text = ", ".join(
            f"{name} {statistics.fmean(v):.1f} ms (n={len(v)})" for name, v in errors.items() if v
        )
        lines.append(Target(f"lead-count dependence, sinus LUDB, {label} (A): MAE", text, None))
    return lines


# -- generated heart forms --------------------------------------------------------------------


def form_lines(count: int) -> list[Target]:
    """R marks inside the QRS on wide forms; no PR without P waves (generated, both configs)."""
    from pytest_openmed.development.sources.ecg import QRS_FORMS, RHYTHMS, generate_ecg_intervals

    rates = (250.0, 360.0, 500.0, 1000.0)
    forms = [(form, "sinus") for form in QRS_FORMS[1:]] + [("narrow", r) for r in RHYTHMS[1:]]
    lines = []
    for form, rhythm in forms:
        label = form if rhythm == "sinus" else rhythm
        for config_name, config in (("A", ecg_intervals.CONFIG_A), ("B", ecg_intervals.CONFIG_B)):
            marks = outside = analysed = abstained = pr = gross = 0
            for seed in range(count):
                source = generate_ecg_intervals(
                    seed,
                    "nominal",
                    qrs_form=form,
                    rhythm=rhythm,
                    sampling_rate_hz=rates[seed % len(rates)],
                )
                result = ecg_intervals.run(source.asset, config)
                if result.abstained:
                    abstained += 1
                    continue
                analysed += 1
                truth = source.truth
                # The truth is exact: a mark before the QRS onset (on a pacing stimulus)
                # or after its offset is outside, with no tolerance.
                spans = [(b["qrs_onset"], b["qrs_offset"]) for b in truth["beats"]]
                for mark in result.output["r_peaks"]:
                    marks += 1
                    outside += not any(low <= mark <= high for low, high in spans)
                candidates = result.output["candidates"]
                pr += rhythm != "sinus" and candidates["pr_ms"] is not None
                gross += any(
                    candidates[name] is not None
                    and truth[name] is not None
                    and abs(candidates[name] - truth[name]) > GROSS_MS[name]
                    for name in INTERVALS
                )
            tag = f"generated {label}, 250-1000 Hz ({config_name})"
            if rhythm == "sinus":
                lines.append(
                    Target(
                        f"{tag}: every R mark inside its QRS",
                        f"{outside}/{marks} outside; {abstained}/{count} abstained",
                        outside == 0,
                    )
                )
            else:
                lines.append(Target(f"{tag}: PR reported on none", _pct(pr, analysed), pr == 0))
            lines.append(
                Target(f"{tag}: sources with a gross interval error", _pct(gross, analysed), None)
            )
    return lines


# -- peak memory -------------------------------------------------------------------------------


def longest_asset(record: Reference) -> tuple[bytes, int]:
    """The record's leads repeated end to end into the largest asset the carriers accept (at
    most ``MAX_SAMPLES_PER_LEAD`` samples per lead and ``MAX_ASSET_BYTES``), and the repeats."""
    asset, repeats = record.asset, 1
    while (repeats + 1) * record.leads["II"].shape[0] <= MAX_SAMPLES_PER_LEAD:
        longer = waveform_asset(
            record.fs, {name: np.tile(lead, repeats + 1) for name, lead in record.leads.items()}
        )
        if len(longer) > MAX_ASSET_BYTES:
            break
        asset, repeats = longer, repeats + 1
    return asset, repeats


def peak_lines(report: Report, record: Reference) -> None:
    """Each ECG component's peak memory on the largest 12-lead asset accepted (issue 11)."""
    asset, repeats = longest_asset(record)
    label = f"{record.name} x{repeats}, 12 leads ({len(asset) // 1024} KiB)"
    for component in ("ecg_quality", "ecg_intervals"):
        peak_target(report, f"{label}, {component}", component, asset, "ran")


# -- main --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--generated", type=int, default=24, help="generated cases per check")
    parser.add_argument("--skip-lead-count", action="store_true")
    parser.add_argument("--forms", type=int, default=16, help="generated sources per heart form")
    parser.add_argument("--skip-peak", action="store_true", help="skip the peak-memory runs")
    args = parser.parse_args(argv)
    ludb_dir, mit_dir = args.data / "ludb-dev", args.data / "mitbih-100"
    if not ludb_dir.is_dir() or not mit_dir.is_dir():
        print("ECG data not found: pass --data DIR holding ludb-dev/ and mitbih-100/")
        return 2
    halves = (
        ("LUDB 1-50 (tuning half)", read_ludb(ludb_dir, 1, 50)),
        ("LUDB 51-100 (check half)", read_ludb(ludb_dir, 51, 100)),
    )
    mitbih = read_mitbih(mit_dir)
    lines: list[Target] = []
    for label, records in halves:
        lines += quality_lines(records, label)
    lines += quality_lines(mitbih, "MIT-BIH 100 (10 s windows, check half)")
    for name, config in (("A", ecg_intervals.CONFIG_A), ("B", ecg_intervals.CONFIG_B)):
        for label, records in halves:
            lines += interval_lines(records, label, config, name, delineation=True)
        lines += interval_lines(mitbih, "MIT-BIH 100 (check half)", config, name, delineation=False)
    if not args.skip_lead_count:
        lines += lead_count_lines(halves[0][1] + halves[1][1])
    lines += generated_lines(args.generated)
    lines += form_lines(args.forms)
    report = Report()
    for line in lines:
        report.add(line)
    if not args.skip_peak:
        peak_lines(report, halves[0][1][0])
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
