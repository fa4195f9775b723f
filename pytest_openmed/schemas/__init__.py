"""JSON Schemas (Draft 2020-12) of every JSON document the package emits.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pytest_openmed.errors import InputRefused

__all__ = ["load_schema", "schema_names"]


def schema_names() -> tuple[str, ...]:
    """Names of every shipped schema (``<name>.schema.json``), sorted."""
    suffix = ".schema.json"
    return tuple(
        sorted(
            entry.name.removesuffix(suffix)
            for entry in resources.files(__package__).iterdir()
            if entry.name.endswith(suffix)
        )
    )


def load_schema(name: str) -> dict[str, Any]:
    """Return the parsed schema ``<name>.schema.json`` shipped with the package."""
    if not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise InputRefused("schema name must be a plain name such as 'gate-report'")
    text = (resources.files(__package__) / f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
