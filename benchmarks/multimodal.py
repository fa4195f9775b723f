"""Benchmark of the multimodal engine against hashing the pack's bytes once.

Run ``python benchmarks/multimodal.py``.  For each scenario it generates
(outside the timed region) 256 distinct source units of about 254 KiB each —
real PNG, TIFF and native DICOM carriers in rotation, and a share of JSON
waveforms spread evenly among them — totalling just under the 64 MiB pack
limit, and two candidate observations per unit.  The timed pipeline is what an
evaluator runs:

1. build: ``SourceAsset`` per asset (hash once, sniff by content), cases, pack;
2. three ``prepare_review`` calls (three reviewers);
3. ``CompletedReview`` for each of the three reviewers (ratings are built
   outside the timed region: they stand for the humans' work);
4. one ``assess_validation`` over those three reviews.

The baseline is ``hashlib.sha256`` over all asset bytes, measured in the same
run.  Both are the best of ``--repeats`` alternating runs, in wall and in CPU
time (the machine may be shared; CPU time is less sensitive to other load).

Targets (issue 24, which replaced hand-tuned code by the standard library):
the pipeline ≤ 2 × baseline for the PNG/TIFF/DICOM pack, ≤ 6 × with a quarter
of the units JSON waveforms (each is parsed by :mod:`json`).  For a pack with
waveforms it also times ``json.loads`` of those waveforms alone: the standard
library's floor, which no plain check can go below.  A third part times the
waveform carrier's check (``is_waveform_json``, the pack's sniff) of one
waveform, and ``json.loads`` of it, against the SHA-256 of the same bytes.
``--waveforms SHARE`` runs one scenario with that share instead (target 6 ×
when it is above zero).

Figures (issue 24, 3 December 2026, the shared 2-core machine, CPU time, best
of 3; ``float("0.123")`` took 0.19 µs): SHA-256 of the 62 MiB 41.7 ms; the
mixed pack 94–102 ms, 2.2–2.4 × (build 63 ms of which hashing 42 ms, three
preparations 23 ms, reviews and assessment 9 ms: each asset is hashed once,
the sniffs read headers only (0.8 ms for the 256), the rest is canonical JSON,
HMAC and the pack's value objects, about 0.2 ms a unit); the quarter-waveform
pack 667–687 ms, 16–17 ×, of which ``json.loads`` of its 64 waveforms alone takes
450–506 ms, 11–12 × (7.0 ms a 238 KiB waveform, against 8.6–8.9 ms for the
whole check and 0.17 ms for SHA-256).  Neither target holds on this machine,
and the 6 × cannot with :mod:`json`: its float parsing alone is twice the
budget.  The targets were set from a machine where the same pack took 0.28 s.
Measured and not taken: ``orjson.loads`` parses the waveform in 1.05 ms but keeps
the last of two equal names and reads ``10**30`` as a float, so it is not the
check the schema pins; ``parse_float=str.encode`` (2.4 ms) leaves the floats to
be parsed or judged finite by hand; ``parse_float=str, parse_int=str`` and one
``numpy.fromstring`` per lead give the same arrays but take longer (11.7 ms
against 7.8 ms for the parse and the arrays).

Why the targets hold elsewhere (measured 3 December, later, same machine and
code).  The baseline's speed depends on the processor more than the pipeline
does: this machine's SHA-256 runs on the processor's SHA extensions, 1.5 GB/s.
With them masked (``OPENSSL_ia32cap=":~0x20000000"``: OpenSSL then hashes in
its vector code, 0.48 GB/s, as on processors without them) SHA-256 of the
pack takes 135–137 ms and the same code meets both targets: the mixed pack
193 ms, **1.41 ×**, the quarter-waveform pack 748 ms, **5.53 ×** (``json.loads``
alone 3.63 ×) — the figures the targets were set from.  The interpreter's
build counts too: the machine's default CPython 3.11.7 is a pyenv build
(``--enable-shared``, no profile-guided or link-time optimisation); Debian's
CPython 3.11.2 (``/usr/bin/python3``, in a virtual environment with the
``imaging`` and ``strategies`` extras) parses the same waveform in 2.6 ms
instead of 7.1 ms and, with the SHA extensions on, gives 1.97 × (met) and
8.05 × (not met; ``json.loads`` alone 5.25 ×).  So on a processor with SHA
extensions the 6 × leaves less than 1 × beside the standard library's own
parse, where the rest of the pipeline needs about 2 ×.  Each run prints the
baseline's throughput, so a reader can tell which case a figure is.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import time
from collections.abc import Callable
from typing import Any

from pytest_openmed._canonical import digest_json
from pytest_openmed.carriers.ecg import STANDARD_LEADS
from pytest_openmed.carriers.waveform import is_waveform_json
from pytest_openmed.multimodal import (
    CandidateLineage,
    CaseSlice,
    CompletedReview,
    MediaType,
    Observation,
    PacketRating,
    PreparedReview,
    ReviewerQualification,
    ReviewOrigin,
    SourceAsset,
    ValidationCase,
    ValidationPack,
    ValidationTask,
    assess_validation,
    prepare_review,
)
from pytest_openmed.multimodal.limits import MAX_PACK_BYTES
from pytest_openmed.multimodal.vocabulary import ALIASES
from pytest_openmed.strategies import assets

UNITS = 256
SIDE = 504  # 504 × 504 8-bit pixels ≈ 248 KiB of pixel data per asset
KEY = b"benchmark-evaluator-key-0123456789abcdef"
#: The pipeline's CPU time over SHA-256's, without and with JSON waveforms.
PACK_TARGET = 2.0
WAVEFORM_PACK_TARGET = 6.0


def _pixels(rng: random.Random) -> bytes:
    return rng.randbytes(SIDE * SIDE)


def _png(rng: random.Random) -> bytes:
    return assets.png(_pixels(rng), SIDE, level=0)


def _tiff(rng: random.Random) -> bytes:
    return assets.tiff(_pixels(rng), SIDE, tile=256 if rng.random() < 0.5 else None)


def _dicom(rng: random.Random) -> bytes:
    return assets.dicom(_pixels(rng), rng.randrange(10**12), SIDE)


def _waveform(rng: random.Random) -> bytes:
    """A 12-lead, 500 Hz JSON waveform of about the same size as the images."""
    samples = 2_750
    leads = [[round(rng.gauss(0, 0.3), 3) for _ in range(samples)] for _ in STANDARD_LEADS]
    return assets.waveform(leads, STANDARD_LEADS)


def generate_assets(waveform_share: float, seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    makers: tuple[Callable[[random.Random], bytes], ...] = (_png, _tiff, _dicom)
    assets = []
    for unit in range(UNITS):
        if int((unit + 1) * waveform_share) > int(unit * waveform_share):  # evenly spread
            assets.append(_waveform(rng))
        else:
            assets.append(makers[unit % len(makers)](rng))
    total = sum(len(a) for a in assets)
    if total > MAX_PACK_BYTES:
        raise SystemExit(f"generated {total} bytes, over the pack limit")
    return assets


def _lineage(name: str) -> CandidateLineage:
    return CandidateLineage(name, *(digest_json([name, field]) for field in range(6)))


def build_pack(assets: list[bytes]) -> ValidationPack:
    slices = tuple(CaseSlice)
    cases = []
    for unit, data in enumerate(assets):
        cases.append(
            ValidationCase(
                slice=slices[unit % 3],
                assets=(SourceAsset(data),),
                observations=(
                    Observation("config-a", {"regions": [[unit, 0, 10, 10]], "coverage": 1.0}),
                    Observation(
                        "config-b", {"regions": [], "coverage": 0.5}, abstained=unit % 17 == 0
                    ),
                ),
                context={"instructions": "Rate both blinded outputs against the source."},
            )
        )
    return ValidationPack(
        task=ValidationTask.BURNED_IN,
        candidates=(_lineage("config-a"), _lineage("config-b")),
        cases=tuple(cases),
        intended_use="Benchmark of the non-diagnostic review pipeline.",
        reviewer_requirements_digest=digest_json("requirements"),
        sampling_manifest_digest=digest_json("sampling"),
        dataset_license_digest=digest_json("license"),
    )


def reviewers() -> list[ReviewerQualification]:
    return [
        ReviewerQualification(
            identity_digest=digest_json(["reviewer", i]),
            task_scope=frozenset({ValidationTask.BURNED_IN}),
            qualification_evidence_digest=digest_json(["evidence", i]),
            conflict_screening_digest=digest_json(["screening", i]),
            origin=ReviewOrigin.SIMULATED,
        )
        for i in range(3)
    ]


def ratings(prepared: PreparedReview) -> tuple[PacketRating, ...]:
    return tuple(
        PacketRating(packet.digest, alias, True, True, True, True)
        for packet in prepared.packets
        for alias in ALIASES
    )


def interleaved_best(
    repeats: int, first: Callable[[], Any], second: Callable[[], Any]
) -> tuple[list[float], list[float], Any]:
    """Best wall and CPU time of each callable, alternating them so load drift hits both.

    Returns ``([wall_first, wall_second], [cpu_first, cpu_second], last result of second)``.
    The machine may be shared: CPU time (``time.process_time``) is less sensitive to
    other processes than wall time, so both are reported.
    """
    wall = [float("inf"), float("inf")]
    cpu = [float("inf"), float("inf")]
    result = None
    for _ in range(repeats):
        for index, run in enumerate((first, second)):
            start, start_cpu = time.perf_counter(), time.process_time()
            value = run()
            wall[index] = min(wall[index], time.perf_counter() - start)
            cpu[index] = min(cpu[index], time.process_time() - start_cpu)
            if index == 1:
                result = value
    return wall, cpu, result


def _is_waveform(case: ValidationCase) -> bool:
    return case.assets[0].media_type is MediaType.WAVEFORM_JSON


def run_scenario(waveform_share: float, target: float, repeats: int) -> bool:
    """Time one pack; print its figures and whether ``target`` holds (in CPU time)."""
    assets = generate_assets(waveform_share)
    total = sum(len(a) for a in assets)
    quals = reviewers()
    # Ratings stand for reviewers' work: prepared once outside the timed region.
    reference = build_pack(assets)
    scored = {q.identity_digest: ratings(prepare_review(reference, q, key=KEY)) for q in quals}

    def baseline() -> str:
        hasher = hashlib.sha256()
        for data in assets:
            hasher.update(data)
        return hasher.hexdigest()

    def pipeline() -> tuple[dict[str, float], str]:
        marks: dict[str, float] = {}
        start = time.perf_counter()
        pack = build_pack(assets)
        marks["build"] = time.perf_counter() - start
        start = time.perf_counter()
        prepared = [prepare_review(pack, q, key=KEY) for q in quals]
        marks["prepare x3"] = time.perf_counter() - start
        start = time.perf_counter()
        completed = [
            CompletedReview(q, p, scored[q.identity_digest])
            for q, p in zip(quals, prepared, strict=True)
        ]
        assessment = assess_validation(pack, pack.candidates[0], completed, key=KEY)
        marks["reviews + assess"] = time.perf_counter() - start
        return marks, assessment.decision.value

    wall, cpu, (marks, decision) = interleaved_best(repeats, baseline, pipeline)
    media: dict[str, int] = {}
    for case in reference.cases:
        for asset in case.assets:
            media[asset.media_type.value] = media.get(asset.media_type.value, 0) + 1
    print(f"pack: {UNITS} units, {total / 2**20:.2f} MiB of assets, media {media}")
    print(f"best of {repeats}:                      wall        cpu")
    print(f"sha256 over all asset bytes : {wall[0] * 1000:8.1f} ms {cpu[0] * 1000:8.1f} ms")
    print(f"    sha256 throughput       {total / cpu[0] / 1e9:8.2f} GB/s (cpu)")
    print(f"build + 3 prepares + assess : {wall[1] * 1000:8.1f} ms {cpu[1] * 1000:8.1f} ms")
    for name, seconds in marks.items():
        print(f"    {name:<24}{seconds * 1000:8.1f} ms (wall, last run)")
    print(f"decision: {decision}")
    waveforms = [a for a, c in zip(assets, reference.cases, strict=True) if _is_waveform(c)]
    if waveforms:
        _, floor, _ = interleaved_best(
            repeats, lambda: None, lambda: [json.loads(w) for w in waveforms]
        )
        print(
            f"json.loads of its {len(waveforms)} waveforms alone: {floor[1] * 1000:.1f} ms cpu, "
            f"{floor[1] / cpu[0]:.2f}x sha256 (the standard library's floor)"
        )
    for label, pair in (("wall", wall), ("cpu", cpu)):
        ratio = pair[1] / pair[0]
        verdict = "met" if ratio <= target else "NOT met"
        print(f"ratio ({label}): {ratio:.2f}x  (target <= {target:.2f}x): {verdict}")
    return cpu[1] / cpu[0] <= target


def waveform_check(repeats: int) -> None:
    """The JSON waveform check of one waveform against the SHA-256 of its bytes.

    Two waveforms are checked in turn: the carrier keeps the last document it
    checked, so checking one document again would time a lookup.  ``json.loads``
    alone is the standard library's share of the check, its floor.
    """
    pair = (_waveform(random.Random(11)), _waveform(random.Random(12)))
    turn = itertools.cycle(pair)
    runs = max(repeats, 1) * 20
    wall, cpu, accepted = interleaved_best(
        runs, lambda: hashlib.sha256(pair[0]).digest(), lambda: is_waveform_json(next(turn))
    )
    if accepted is not True:
        raise SystemExit("the benchmark waveform was refused")
    _, parse_cpu, _ = interleaved_best(runs, lambda: None, lambda: json.loads(next(turn)))
    print(f"one waveform ({len(pair[0]) / 1024:.0f} KiB), best of {runs}:  wall        cpu")
    print(f"sha256                      : {wall[0] * 1000:8.3f} ms {cpu[0] * 1000:8.3f} ms")
    print(f"is_waveform_json            : {wall[1] * 1000:8.3f} ms {cpu[1] * 1000:8.3f} ms")
    print(f"    of which json.loads     :             {parse_cpu[1] * 1000:8.3f} ms")
    print(f"ratio: {wall[1] / wall[0]:.1f}x wall, {cpu[1] / cpu[0]:.1f}x cpu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--waveforms", type=float, default=None, help="share of JSON waveform units"
    )
    args = parser.parse_args()
    if args.waveforms is None:
        scenarios = [(0.0, PACK_TARGET), (0.25, WAVEFORM_PACK_TARGET)]
    else:
        share = args.waveforms
        scenarios = [(share, WAVEFORM_PACK_TARGET if share > 0 else PACK_TARGET)]
    held = []
    for share, target in scenarios:
        print(f"-- waveform share {share:.0%} (target <= {target:.1f}x sha256) --")
        held.append(run_scenario(share, target, args.repeats))
    print("-- the waveform carrier's check --")
    waveform_check(args.repeats)
    print("targets (cpu): " + ("all met" if all(held) else "NOT all met"))


if __name__ == "__main__":
    main()
