"""Lineage: a development pack's model digest covers every project module its component runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_openmed.development import development_pack, packs
from pytest_openmed.development.packs import (
    CANDIDATE_NAMES,
    component_modules,
    component_source_digest,
)

PREFIX = "pytest_openmed.components."
CARRIERS = "pytest_openmed.carriers."


def test_the_module_set_is_read_from_the_imports() -> None:
    intervals = set(component_modules(PREFIX + "ecg_intervals"))
    assert {
        PREFIX + "ecg_intervals",
        PREFIX + "ecg_quality",  # imported as ``from pytest_openmed.components import ecg_quality``
        PREFIX + "_base",
        CARRIERS + "waveform",
        CARRIERS + "dicom",
        "pytest_openmed._canonical",
        "pytest_openmed.components",
        "pytest_openmed",
    } <= intervals
    assert CARRIERS + "png" not in intervals
    assert {CARRIERS + "png", CARRIERS + "dicom", PREFIX + "_base"} <= set(
        component_modules(PREFIX + "burned_in")
    )


def test_only_imports_that_can_run_count() -> None:
    # ``pytest_openmed/__init__`` names ``gates`` under TYPE_CHECKING and in a lazy
    # ``__getattr__``; importing a component never runs either.
    assert "pytest_openmed.contract" not in component_modules(PREFIX + "wsi_tiles")


def test_a_module_outside_the_project_is_refused() -> None:
    with pytest.raises(ValueError, match="not a project module"):
        component_modules(PREFIX + "no_such_component")


@pytest.fixture
def project_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the package source that the lineage reads instead of the installed one."""
    original = packs._module_path
    installed = Path(str(packs.sys.modules["pytest_openmed"].__file__)).parent
    copy = tmp_path / "pytest_openmed"
    shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__"))

    def redirected(name: str) -> Path | None:
        path = original(name)
        return None if path is None else copy / path.relative_to(installed)

    monkeypatch.setattr(packs, "_module_path", redirected)
    return copy


@pytest.mark.parametrize(
    ("component", "changed"),
    [
        ("ecg_intervals", "components/ecg_intervals.py"),
        ("ecg_intervals", "components/ecg_quality.py"),
        ("ecg_intervals", "components/_base.py"),
        ("ecg_intervals", "carriers/waveform.py"),
        ("ecg_intervals", "carriers/dicom.py"),
        ("ecg_intervals", "_canonical.py"),
        ("burned_in", "carriers/png.py"),
        ("forms", "carriers/png.py"),
        ("dicom_frames", "carriers/dicom.py"),
        ("wsi_tiles", "components/_base.py"),
        ("wsi_tiles", "carriers/tiff.py"),
        ("wsi_tiles", "carriers/limits.py"),
    ],
)
def test_changing_any_executed_module_changes_the_digest(
    project_copy: Path, component: str, changed: str
) -> None:
    before = component_source_digest(PREFIX + component)
    with (project_copy / changed).open("a") as handle:
        handle.write("\n# a change in behaviour would sit here\n")
    assert component_source_digest(PREFIX + component) != before


def test_a_module_the_component_does_not_run_leaves_the_digest(project_copy: Path) -> None:
    before = component_source_digest(PREFIX + "wsi_tiles")
    with (project_copy / "carriers/png.py").open("a") as handle:
        handle.write("\n# unrelated\n")
    assert component_source_digest(PREFIX + "wsi_tiles") == before


def test_the_pack_lineage_carries_that_digest() -> None:
    pack = development_pack("dicom_frames")
    for name in CANDIDATE_NAMES:
        assert pack.candidate(name).model_digest == component_source_digest(PREFIX + "dicom_frames")
