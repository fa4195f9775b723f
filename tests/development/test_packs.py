"""Development packs: one generated unit per task, both configurations executed for real."""

from __future__ import annotations

import pytest

from pytest_openmed.components import config_digest
from pytest_openmed.development import development_pack, development_source
from pytest_openmed.development.packs import CANDIDATE_NAMES, DEVELOPMENT_SOURCES, build_pack
from pytest_openmed.multimodal import SafetyFailure, ValidationTask


def test_the_seed_snippet_runs_with_our_import_paths() -> None:
    # Seed 000, "Executable development controls", with this package's names.
    for task in ValidationTask:
        pack = development_pack(task)
        assert pack.describe()["non_diagnostic"]
        assert not pack.describe()["independent_validation"]
        assert len(pack.cases) == 1


def test_every_task_has_a_development_source() -> None:
    assert set(DEVELOPMENT_SOURCES) == {task.value for task in ValidationTask}


@pytest.mark.parametrize("task", ["forms", "burned_in"])
def test_regenerating_gives_the_same_digests(task: str) -> None:
    first, second = development_pack(task), development_pack(task)
    assert first.digest == second.digest
    assert [c.digest for c in first.candidates] == [c.digest for c in second.candidates]


def test_lineage_binds_component_source_and_each_configuration() -> None:
    import pytest_openmed.components.forms as forms

    pack = development_pack("forms")
    a, b = (pack.candidate(name) for name in CANDIDATE_NAMES)
    assert a.model_digest == b.model_digest  # one component source
    assert a.preprocessing_digest == config_digest(forms.CONFIG_A)
    assert b.preprocessing_digest == config_digest(forms.CONFIG_B)
    assert a.runtime_digest == b.runtime_digest and a.hardware_digest == b.hardware_digest
    assert a.preprocessing_digest != b.preprocessing_digest


def test_observations_are_the_components_real_outputs() -> None:
    import pytest_openmed.components.burned_in as burned_in

    pack = development_pack("burned_in")
    (case,) = pack.cases
    source = development_source("burned_in")
    expected = [burned_in.run(source.asset, c) for c in (burned_in.CONFIG_A, burned_in.CONFIG_B)]
    for observation, result in zip(case.observations, expected, strict=True):
        assert observation.abstained == result.abstained
        assert {f.value for f in observation.safety_failures} == set(result.safety_failures)
    assert SafetyFailure.PRIVACY in case.observations[1].safety_failures


def test_abstentions_are_recorded() -> None:
    (case,) = development_pack("forms").cases
    assert [o.abstained for o in case.observations] == [True, False]


def test_a_changed_source_changes_the_pack_digest() -> None:
    from dataclasses import replace

    base = DEVELOPMENT_SOURCES["forms"]
    assert (
        build_pack("forms", (base,)).digest != build_pack("forms", (replace(base, seed=1),)).digest
    )


def test_an_unknown_task_is_refused_with_the_task_list() -> None:
    with pytest.raises(ValueError, match="task must be a ValidationTask: ecg_quality"):
        development_pack("radiology")


def test_the_fixtures_cache_packs_per_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pytest_openmed.multimodal import ReviewOrigin

        def test_cached(development_pack):
            assert development_pack("forms") is development_pack("forms")

        def test_same_object_in_another_test(development_pack):
            assert development_pack("forms").describe()["non_diagnostic"]

        def test_reviewers(simulated_reviewers):
            first, second = simulated_reviewers("forms")
            assert first.origin is second.origin is ReviewOrigin.SIMULATED
            assert first.identity_digest != second.identity_digest
        """
    )
    pytester.runpytest("-p", "openmed").assert_outcomes(passed=3)
