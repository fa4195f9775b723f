"""JSON Schemas (Draft 2020-12) of every JSON document the package emits.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["SCHEMA_NAMES", "load_schema"]

SCHEMA_NAMES = ("gate-report",)


def load_schema(name: str) -> dict[str, Any]:
    """Return the parsed schema ``<name>.schema.json`` shipped with the package."""
    if not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise ValueError("schema name must be a plain name such as 'gate-report'")
    text = (resources.files(__package__) / f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
