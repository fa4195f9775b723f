"""Packs: limits, distinct source units, and a digest that binds every input."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.multimodal import (
    CaseSlice,
    MediaType,
    Observation,
    SourceAsset,
    SourceReference,
    ValidationCase,
    ValidationPack,
    ValidationTask,
)
from pytest_openmed.multimodal.errors import (
    InvalidInput,
    LimitExceeded,
    MediaTypeRefused,
    UnknownCandidate,
)
from pytest_openmed.multimodal.limits import MAX_ASSET_BYTES, MAX_UNITS
from pytest_openmed.multimodal.vocabulary import LIMITATIONS

from ._helpers import (
    CANDIDATES,
    candidate,
    d,
    dicom_bytes,
    make_case,
    make_pack,
    padded_png,
    png_bytes,
    replaced,
    tiff_bytes,
    waveform_bytes,
)


def test_describe_states_non_diagnostic_and_not_independent() -> None:
    description = make_pack(
        3, slices=[CaseSlice.NOMINAL, CaseSlice.NOMINAL, CaseSlice.AMBIGUITY_CONFLICT]
    ).describe()
    assert description["non_diagnostic"] is True
    assert description["independent_validation"] is False
    assert description["units"] == 3
    assert description["candidates"] == 2
    assert description["slices"] == {
        "nominal": 2,
        "adverse_acquisition": 0,
        "ambiguity_conflict": 1,
    }
    assert description["limitations"][: len(LIMITATIONS)] == list(LIMITATIONS)


def test_asset_is_hashed_once_at_construction() -> None:
    data = png_bytes(5)
    asset = SourceAsset(data)
    import hashlib

    assert asset.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    assert asset.media_type is MediaType.PNG
    assert asset.size == len(data)


@pytest.mark.parametrize(
    ("data", "media"),
    [
        (png_bytes(1), MediaType.PNG),
        (tiff_bytes(1), MediaType.TIFF),
        (dicom_bytes(1), MediaType.DICOM),
        (waveform_bytes(1), MediaType.WAVEFORM_JSON),
    ],
)
def test_all_four_carriers_make_assets(data: bytes, media: MediaType) -> None:
    assert SourceAsset(data).media_type is media


def test_asset_over_4_mib_is_refused_before_parsing() -> None:
    with pytest.raises(LimitExceeded):
        SourceAsset(b"\x00" * (MAX_ASSET_BYTES + 1))
    assert SourceAsset(padded_png(1, MAX_ASSET_BYTES)).size == MAX_ASSET_BYTES


def test_asset_of_unknown_content_is_refused() -> None:
    with pytest.raises(MediaTypeRefused):
        SourceAsset(b"just text, whatever its file name says")


def test_pack_over_64_mib_is_refused() -> None:
    cases = [make_case(unit, asset=padded_png(unit, MAX_ASSET_BYTES - unit)) for unit in range(17)]
    with pytest.raises(LimitExceeded):
        make_pack(cases=cases)


def test_pack_needs_at_least_one_unit() -> None:
    with pytest.raises(InvalidInput):
        make_pack(cases=[])


def test_more_than_256_units_is_refused_consuming_at_most_257() -> None:
    case = make_case(0)
    consumed = 0

    def endless() -> Iterator[ValidationCase]:
        nonlocal consumed
        while True:
            consumed += 1
            yield case

    with pytest.raises(LimitExceeded):
        ValidationPack(
            task=ValidationTask.FORMS,
            candidates=(candidate("cand-a"), candidate("cand-b")),
            cases=endless(),  # type: ignore[arg-type]
            intended_use="x",
            reviewer_requirements_digest=d(1),
            sampling_manifest_digest=d(2),
            dataset_license_digest=d(3),
        )
    assert consumed == MAX_UNITS + 1


def test_256_units_are_accepted() -> None:
    assert len(make_pack(256).cases) == 256


def test_repeated_source_digest_is_refused_across_cases() -> None:
    asset = png_bytes(7)
    with pytest.raises(InvalidInput):
        make_pack(cases=[make_case(0, asset=asset), make_case(1, asset=asset)])


def test_repeated_asset_within_a_case_is_refused() -> None:
    asset = SourceAsset(png_bytes(7))
    with pytest.raises(InvalidInput):
        replaced(make_case(0), assets=(asset, asset))


def test_at_most_eight_assets_per_case() -> None:
    assets = tuple(SourceAsset(png_bytes(100 + i)) for i in range(9))
    with pytest.raises(LimitExceeded):
        replaced(make_case(0), assets=assets)
    assert len(replaced(make_case(0), assets=assets[:8]).assets) == 8
    with pytest.raises(InvalidInput):
        replaced(make_case(0), assets=())


def test_exactly_two_observations_of_different_candidates() -> None:
    case = make_case(0)
    with pytest.raises(InvalidInput):
        replaced(case, observations=case.observations[:1])
    with pytest.raises(LimitExceeded):
        replaced(case, observations=case.observations * 2)
    with pytest.raises(InvalidInput):
        replaced(case, observations=(case.observations[0], case.observations[0]))


def test_observations_must_name_the_pack_candidates() -> None:
    with pytest.raises(InvalidInput):
        make_pack(candidates=[candidate("cand-a"), candidate("cand-c")])


def test_exactly_two_distinct_candidates() -> None:
    with pytest.raises(InvalidInput):
        make_pack(candidates=[candidate("cand-a")])
    with pytest.raises(LimitExceeded):
        make_pack(candidates=[candidate("cand-a"), candidate("cand-b"), candidate("cand-c")])
    with pytest.raises(InvalidInput):  # same lineage under two names
        make_pack(candidates=[candidate("cand-a", "same"), candidate("cand-b", "same")])


@pytest.mark.parametrize(
    "field_name",
    ["reviewer_requirements_digest", "sampling_manifest_digest", "dataset_license_digest"],
)
@pytest.mark.parametrize("value", ["https://example.org/license", "org/dataset", "v1.2"])
def test_declaration_digests_refuse_urls_and_names(field_name: str, value: str) -> None:
    with pytest.raises(InvalidInput):
        replaced(make_pack(1), **{field_name: value})


def test_unknown_task_and_slice_are_refused() -> None:
    with pytest.raises(InvalidInput):
        replaced(make_pack(1), task="radiology")
    with pytest.raises(InvalidInput):
        make_case(0, case_slice="easy")  # type: ignore[arg-type]


def test_observation_records_output_abstention_and_safety_failures() -> None:
    observation = Observation("cand-a", {"x": [1, 2]}, abstained=True, safety_failures=["privacy"])  # type: ignore[arg-type]
    assert observation.output["x"] == (1, 2)
    assert observation.abstained is True
    assert {f.value for f in observation.safety_failures} == {"privacy"}
    with pytest.raises(InvalidInput):
        Observation("cand-a", {}, safety_failures=["quality"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Observation("cand-a", {}, abstained="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Observation("cand-a", {}, safety_failures="privacy")  # type: ignore[arg-type]


def test_observation_from_a_component_result() -> None:
    from pytest_openmed.components import ComponentOutput

    result = ComponentOutput({"overall": "abstain"}, True, "low_signal", ("privacy",))
    observation = Observation.from_component("cand-a", result)
    assert observation.abstained and observation.output == {"overall": "abstain"}
    assert [f.value for f in observation.safety_failures] == ["privacy"]


def test_pack_resolves_source_references_to_its_own_assets() -> None:
    pack = make_pack(2)
    asset = pack.cases[1].assets[0]
    assert pack.asset(asset.digest) is asset
    with pytest.raises(InvalidInput):
        pack.asset(d("not-an-asset"))


def test_candidate_lookup_by_name() -> None:
    pack = make_pack(1)
    assert pack.candidate("cand-b") is pack.candidates[1]
    with pytest.raises(UnknownCandidate):
        pack.candidate("cand-z")


def _with_case(
    change: Callable[[ValidationCase], ValidationCase],
) -> Callable[[ValidationPack], ValidationPack]:
    def apply(pack: ValidationPack) -> ValidationPack:
        return replaced(pack, cases=(change(pack.cases[0]), *pack.cases[1:]))

    return apply


def _flip_asset_byte(case: ValidationCase) -> ValidationCase:
    data = bytearray(case.assets[0].data)
    data[45] ^= 0x01  # inside the image data: still a PNG, different bytes
    return replaced(case, assets=(SourceAsset(bytes(data)),))


def _observation(case: ValidationCase, **change: Any) -> ValidationCase:
    first = case.observations[0]
    changed = Observation(
        candidate=first.candidate,
        output=change.get("output", first.output),
        abstained=change.get("abstained", first.abstained),
        safety_failures=change.get("safety_failures", first.safety_failures),
    )
    return replaced(case, observations=(changed, case.observations[1]))


BINDINGS: dict[str, Callable[[ValidationPack], ValidationPack]] = {
    "asset byte": _with_case(_flip_asset_byte),
    "output": _with_case(lambda c: _observation(c, output={"different": True})),
    "abstention": _with_case(lambda c: _observation(c, abstained=True)),
    "safety failure": _with_case(lambda c: _observation(c, safety_failures={"provenance"})),
    "context": _with_case(lambda c: replaced(c, context={"instructions": "other"})),
    "slice": _with_case(lambda c: replaced(c, slice=CaseSlice.ADVERSE_ACQUISITION)),
    "case order": lambda p: replaced(p, cases=tuple(reversed(p.cases))),
    "lineage digest": lambda p: replaced(
        p,
        candidates=(replaced(p.candidates[0], runtime_digest=d("rt2")), p.candidates[1]),
    ),
    "candidate names": lambda p: make_pack(
        3, candidates=[candidate("cand-a", "cand-b"), candidate("cand-b", "cand-a")]
    ),
    "intended use": lambda p: replaced(p, intended_use="another use"),
    "limitations": lambda p: replaced(p, limitations=("one more",)),
    "task": lambda p: replaced(p, task=ValidationTask.BURNED_IN),
    "sampling manifest": lambda p: replaced(p, sampling_manifest_digest=d("s2")),
    "dataset license": lambda p: replaced(p, dataset_license_digest=d("l2")),
    "reviewer requirements": lambda p: replaced(p, reviewer_requirements_digest=d("r2")),
}


@pytest.mark.parametrize("what", sorted(BINDINGS))
def test_pack_digest_binds_every_input(what: str) -> None:
    pack = make_pack(3)
    assert BINDINGS[what](pack).digest != pack.digest


@settings(max_examples=30, deadline=None)
@given(units=st.integers(1, 6), abstain=st.sets(st.integers(0, 5)))
def test_pack_digest_is_deterministic(units: int, abstain: set[int]) -> None:
    spec = {u: [CANDIDATES[0]] for u in abstain if u < units}
    assert make_pack(units, abstain=spec).digest == make_pack(units, abstain=spec).digest


def test_reprs_show_no_values() -> None:
    pack = make_pack(2, intended_use="canary-intended-use")
    case = make_case(
        0, context={"canary": "canary-context"}, outputs={"cand-a": {"v": "canary-output"}}
    )
    for text in (repr(pack), repr(case), repr(case.observations[0]), repr(case.assets[0])):
        assert "canary" not in text
        assert "sha256" not in text
        assert "cand-" not in text


def test_case_references_equal_the_public_constructors_references() -> None:
    """A case builds its source references from its checked assets without checking again."""
    case = make_case(3)
    assert case.references == tuple(SourceReference(a.digest, a.media_type) for a in case.assets)
    assert all(type(r.media_type) is MediaType for r in case.references)
