"""JSON Schemas (Draft 2020-12) of every JSON document the package emits."""

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
    _embed_siblings(schema)
    return schema


_SIBLING = ".schema.json"


def _embed_siblings(node: Any) -> None:
    """Replace each ``$ref`` to another shipped schema with that schema, embedded.

    The gate report holds a pack gate's public report, whose schema ships
    beside it; embedding it (it keeps its ``$id``) lets any validator check
    the whole report without fetching or registering anything.
    """
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.endswith(_SIBLING) and "/" not in reference:
            del node["$ref"]
            node["allOf"] = [load_schema(reference.removesuffix(_SIBLING))]
        for value in node.values():
            _embed_siblings(value)
    elif isinstance(node, list):
        for value in node:
            _embed_siblings(value)
