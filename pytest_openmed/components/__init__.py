"""Six small, real task components over bytes (non-diagnostic).

Each module ``pytest_openmed.components.<name>`` exposes
``run(asset: bytes, config=CONFIG_A) -> ComponentOutput`` and two frozen
configurations ``CONFIG_A`` (conservative) and ``CONFIG_B`` (permissive or
faster).  Modules are imported on demand, and the names below load on first
use (PEP 562): importing this package or one component loads only what it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_openmed._lazy import lazy_surface

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_surface(
    __name__,
    {
        "pytest_openmed.components._base": (
            "MAX_ASSET_BYTES",
            "MAX_DECODED_PIXELS",
            "ComponentOutput",
            "config_digest",
        ),
        "pytest_openmed.errors": (
            "AssetTooLarge",
            "ComponentError",
            "CorruptAsset",
            "DecodedSizeTooLarge",
            "UnsupportedAsset",
        ),
    },
    __all__,
)
