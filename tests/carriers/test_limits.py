"""The carriers hold each shared limit once, and importing one loads no format library."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_openmed
from pytest_openmed import components
from pytest_openmed.carriers import limits
from pytest_openmed.components import _base
from pytest_openmed.multimodal import limits as multimodal_limits
from tests._imports import HEAVY, modules_after

PACKAGE = Path(pytest_openmed.__file__).parent


def test_the_asset_limit_is_one_value_for_packs_and_components() -> None:
    assert limits.MAX_ASSET_BYTES == 4 * 1024 * 1024
    assert multimodal_limits.MAX_ASSET_BYTES is limits.MAX_ASSET_BYTES
    assert components.MAX_ASSET_BYTES is limits.MAX_ASSET_BYTES
    assert components.MAX_DECODED_PIXELS is limits.MAX_DECODED_PIXELS
    assert _base.check_decoded_pixels is limits.check_decoded_pixels


def _assigned_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


def test_no_module_outside_the_carriers_defines_a_carrier_fact() -> None:
    facts = {"MAX_ASSET_BYTES", "MAX_DECODED_PIXELS", "PNG_SIGNATURE", "WAVEFORM_FORMAT"}
    facts |= {"STANDARD_LEADS", "NATIVE_TRANSFER_SYNTAXES", "MDC_CODES"}
    defined = {
        path.relative_to(PACKAGE).as_posix(): found
        for path in PACKAGE.rglob("*.py")
        if (found := _assigned_names(path) & facts)
    }
    assert set(defined) == {
        "carriers/limits.py",
        "carriers/png.py",
        "carriers/dicom.py",
        "carriers/ecg.py",
        "carriers/waveform.py",
    }


def test_a_carrier_import_loads_no_format_library() -> None:
    modules = modules_after(
        "import pytest_openmed.carriers.png, pytest_openmed.carriers.tiff\n"
        "import pytest_openmed.carriers.dicom, pytest_openmed.carriers.ecg\n"
        "import pytest_openmed.carriers.waveform"
    )
    assert modules.isdisjoint(HEAVY)
    loaded = {m for m in modules if m.startswith("pytest_openmed.")}
    allowed = {"pytest_openmed.errors", "pytest_openmed._validate", "pytest_openmed.carriers"}
    assert {m for m in loaded if not m.startswith("pytest_openmed.carriers.")} <= allowed
