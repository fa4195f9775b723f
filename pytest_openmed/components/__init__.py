"""Six small, real task components over bytes (non-diagnostic).

Each module ``pytest_openmed.components.<name>`` exposes
``run(asset: bytes, config=CONFIG_A) -> ComponentOutput`` and two frozen
configurations ``CONFIG_A`` (conservative) and ``CONFIG_B`` (permissive or
faster).  Component modules are imported on demand: importing this package loads none
of them and no imaging library.
"""

from __future__ import annotations

from pytest_openmed.components._base import (
    MAX_ASSET_BYTES,
    MAX_DECODED_PIXELS,
    ComponentOutput,
    config_digest,
)
from pytest_openmed.errors import (
    AssetTooLarge,
    ComponentError,
    CorruptAsset,
    DecodedSizeTooLarge,
    UnsupportedAsset,
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
