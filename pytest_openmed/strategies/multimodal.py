"""Small valid validation packs over tiny real assets, with a known assessment."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from hypothesis import strategies as st

from pytest_openmed._canonical import digest_json
from pytest_openmed.errors import InputRefused, InvalidArgument
from pytest_openmed.multimodal import (
    CandidateLineage,
    CaseSlice,
    MediaType,
    Observation,
    SafetyFailure,
    SourceAsset,
    ValidationCase,
    ValidationPack,
    ValidationTask,
)
from pytest_openmed.multimodal.limits import MAX_ASSETS_PER_CASE
from pytest_openmed.strategies import assets
from pytest_openmed.strategies._arguments import sizes, subset
from pytest_openmed.strategies._choices import Choices, seeded

#: Largest ``max_cases`` of a generated pack ("small").
MAX_SAMPLE_CASES = 16

#: The carrier :func:`small_packs` uses for each task's source assets.
PACK_MEDIA: Mapping[ValidationTask, MediaType] = MappingProxyType(
    {
        ValidationTask.ECG_QUALITY: MediaType.WAVEFORM_JSON,
        ValidationTask.ECG_INTERVALS: MediaType.WAVEFORM_JSON,
        ValidationTask.FORMS: MediaType.PNG,
        ValidationTask.DICOM_FRAMES: MediaType.DICOM,
        ValidationTask.BURNED_IN: MediaType.PNG,
        ValidationTask.WSI_TILES: MediaType.TIFF,
    }
)

_PIXELS = assets.SIDE * assets.SIDE
_WAVEFORM_LEADS = ("I", "II", "V1")
_RESULTS = ("present", "absent", "indeterminate")
_SLICES = tuple(CaseSlice)
_FAILURES = tuple(SafetyFailure)
_NAME_START = "abcdefghijklmnopqrstuvwxyz"
_NAME_REST = _NAME_START + "0123456789-"


def _asset(choices: Choices, media: MediaType, serial: int) -> SourceAsset:
    """One tiny real asset; ``serial`` is stamped in so no two assets of a pack match."""
    if media is MediaType.WAVEFORM_JSON:
        width = choices.between(2, 12)
        leads = [
            [choices.below(4001) - 2000 for _ in range(width)]
            for _ in range(choices.between(1, len(_WAVEFORM_LEADS)))
        ]
        leads[0][0] = serial  # the first sample of lead I is the serial
        return SourceAsset(assets.waveform(leads, _WAVEFORM_LEADS))
    pixels = bytearray(choices.raw(_PIXELS))
    pixels[0], pixels[1] = serial % 256, serial // 256
    if media is MediaType.PNG:
        return SourceAsset(assets.png(bytes(pixels)))
    if media is MediaType.TIFF:
        return SourceAsset(assets.tiff(bytes(pixels)))
    return SourceAsset(assets.dicom(bytes(pixels), serial))


def _output(choices: Choices) -> dict[str, object]:
    return {
        "result": choices.pick(_RESULTS),
        "score": choices.below(101),
        "regions": [choices.below(_PIXELS) for _ in range(choices.below(5))],
    }


def _candidate_names(choices: Choices) -> tuple[str, str]:
    """Two distinct names matching ``[a-z][a-z0-9-]{0,15}``."""
    first, second = (
        choices.pick(_NAME_START)
        + "".join(choices.pick(_NAME_REST) for _ in range(choices.below(16)))
        for _ in range(2)
    )
    if second == first:
        second = first[:15] + ("b" if first[15:] != "b" else "c")
    return first, second


def _failures(choices: Choices) -> frozenset[SafetyFailure]:
    """No failure three times in four, else any non-empty mix."""
    if choices.below(4) != 3:
        return frozenset()
    bits = choices.between(1, 2 ** len(_FAILURES) - 1)
    return frozenset(failure for index, failure in enumerate(_FAILURES) if bits >> index & 1)


def _lineage(name: str, salt: int) -> CandidateLineage:
    def digest(part: str) -> str:
        return digest_json(["openmed.strategies.lineage", name, part, salt])

    return CandidateLineage(
        name=name,
        model_digest=digest("model"),
        preprocessing_digest=digest("preprocessing"),
        runtime_digest=digest("runtime"),
        hardware_digest=digest("hardware"),
        harness_digest=digest("harness"),
        license_snapshot_digest=digest("license"),
    )


@st.composite
def _packs(
    draw: st.DrawFn,
    tasks: tuple[ValidationTask, ...],
    min_cases: int,
    max_cases: int,
    max_assets: int,
    abstentions: bool,
    safety_failures: bool,
) -> ValidationPack:
    units = draw(st.integers(min_value=min_cases, max_value=max_cases))
    choices = seeded(draw)
    task = choices.pick(tasks)
    salt = choices.below(2**32 + 1)
    names = _candidate_names(choices)
    cases = []
    for unit in range(units):
        count = choices.between(1, max_assets)
        case_assets = tuple(
            _asset(choices, PACK_MEDIA[task], unit * max_assets + index) for index in range(count)
        )
        observations = tuple(
            Observation(
                candidate=name,
                output=_output(choices),
                abstained=abstentions and choices.flag(),
                safety_failures=_failures(choices) if safety_failures else frozenset(),
            )
            for name in names
        )
        cases.append(
            ValidationCase(
                slice=choices.pick(_SLICES),
                assets=case_assets,
                observations=observations,
                context={"instructions": "Rate both outputs against the rubric.", "unit": unit},
            )
        )

    def declaration(part: str) -> str:
        return digest_json(["openmed.strategies.pack", part, salt])

    return ValidationPack(
        task=task,
        candidates=(_lineage(names[0], salt), _lineage(names[1], salt)),
        cases=tuple(cases),
        intended_use=f"Development exercise of {task.value}; non-diagnostic.",
        reviewer_requirements_digest=declaration("reviewer-requirements"),
        sampling_manifest_digest=declaration("sampling-manifest"),
        dataset_license_digest=declaration("dataset-license"),
    )


def small_packs(
    *,
    tasks: Iterable[ValidationTask | str] | None = None,
    min_cases: int = 1,
    max_cases: int = 3,
    max_assets: int = 2,
    abstentions: bool = True,
    safety_failures: bool = True,
) -> st.SearchStrategy[ValidationPack]:
    """Small valid packs over tiny real assets, in the carrier of each task (:data:`PACK_MEDIA`).

    Two candidates with distinct lineages, ``min_cases``-``max_cases`` source
    units (at most 16) of 1-``max_assets`` assets, every slice possible, and
    observations that may abstain (``abstentions``) or record privacy /
    provenance failures (``safety_failures``).  The assets are written by
    :mod:`pytest_openmed.strategies.assets`; reading DICOM needs pydicom and
    the images need Pillow (the ``imaging`` extra).
    """
    min_cases, max_cases = sizes(
        min_cases,
        max_cases,
        MAX_SAMPLE_CASES,
        f"need 0 <= min_cases <= max_cases <= {MAX_SAMPLE_CASES}",
    )
    if min_cases < 1:
        raise InputRefused("a pack needs at least one case: min_cases >= 1")
    if type(max_assets) is not int or not 1 <= max_assets <= MAX_ASSETS_PER_CASE:
        raise InputRefused(f"max_assets must be from 1 to {MAX_ASSETS_PER_CASE}")
    if type(abstentions) is not bool or type(safety_failures) is not bool:
        raise InvalidArgument("abstentions and safety_failures must be bools")
    try:
        wanted = None if tasks is None else [ValidationTask(task) for task in tasks]
    except ValueError:
        raise InputRefused("tasks must be validation tasks") from None
    chosen = subset(wanted, tuple(ValidationTask), "tasks must be a non-empty set of tasks")
    return _packs(chosen, min_cases, max_cases, max_assets, abstentions, safety_failures)
