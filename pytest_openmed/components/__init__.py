"""Six small, real task components over bytes (non-diagnostic).

PYTEST_DONT_REWRITE

Each module ``pytest_openmed.components.<name>`` exposes
``run(asset: bytes, config=CONFIG_A) -> ComponentOutput`` and two frozen
configurations ``CONFIG_A`` (conservative) and ``CONFIG_B`` (permissive or
faster).  Modules are imported on demand; importing this package is cheap.
"""

from __future__ import annotations

from pytest_openmed.components._base import (
    MAX_ASSET_BYTES,
    MAX_DECODED_PIXELS,
    AssetTooLarge,
    ComponentError,
    ComponentOutput,
    CorruptAsset,
    DecodedSizeTooLarge,
    UnsupportedAsset,
    config_digest,
)

__all__ = [
    "COMPONENT_NAMES",
    "MAX_ASSET_BYTES",
    "MAX_DECODED_PIXELS",
    "AssetTooLarge",
    "ComponentError",
    "ComponentOutput",
    "CorruptAsset",
    "DecodedSizeTooLarge",
    "UnsupportedAsset",
    "config_digest",
]

COMPONENT_NAMES = (
    "ecg_quality",
    "ecg_intervals",
    "forms",
    "dicom_frames",
    "burned_in",
    "wsi_tiles",
)
