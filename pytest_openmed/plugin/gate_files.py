"""Gate files (``*.openmed.toml``): parsing and validation into gate specs.

A gate file declares gates by kind (``[[claims]]``, ``[[planner]]``,
``[[pack]]``).  This module reads the TOML and hands each table to its
engine's declaration constructor (``claims.declaration.declare``…), loaded
when a gate file is collected, never at plugin load; it is the
:class:`~pytest_openmed.contract.Source` that phrases a refusal as a
:class:`GateFileError` naming the file, the key and what was expected.
Evaluation is looked up per kind in :data:`pytest_openmed.contract.EVALUATORS`
and imported only when a gate item runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_openmed._jsonread import read_limited
from pytest_openmed._toml import TomlError, cap, parse_toml
from pytest_openmed._validate import check_text
from pytest_openmed.contract import NAME_PATTERN, NAME_WORDING, Expected, GateSpec
from pytest_openmed.errors import InputRefused

_MAX_GATE_FILE_BYTES = 1024 * 1024


class GateFileError(InputRefused):
    """A gate file is malformed; the message names file, key and expectation: correct that key."""


def parse_gate_file(path: Path) -> tuple[GateSpec, ...]:
    """Read and validate one gate file; every problem is a :class:`GateFileError`."""
    where = path.name
    raw = read_limited(
        path,
        _MAX_GATE_FILE_BYTES,
        too_large=lambda: GateFileError(
            f"{where}: the gate file exceeds {_MAX_GATE_FILE_BYTES // 2**20} MiB"
        ),
        unreadable=lambda: GateFileError(f"{where}: the gate file could not be read"),
    )
    try:
        document = parse_toml(raw)
    except TomlError as error:
        raise GateFileError(f"{where}: the gate file {error}") from None
    unknown = sorted(set(document) - set(_TABLE_PARSERS))
    if unknown:
        raise GateFileError(
            f"{where}: unknown top-level key {cap(unknown[0])!r}; expected arrays of tables "
            "[[claims]], [[planner]] or [[pack]]"
        )
    specs: list[GateSpec] = []
    seen: set[str] = set()
    for kind, parser in _TABLE_PARSERS.items():
        tables = document.get(kind, [])
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise GateFileError(f"{where}: '{kind}' must be an array of tables ([[{kind}]])")
        for index, table in enumerate(tables):
            context = _Context(where=f"{where}: [[{kind}]] #{index + 1}", base=path.parent)
            spec = parser(table, context)
            if spec.label in seen:
                raise GateFileError(
                    f"{context.where}: duplicate gate name (names must be unique per kind)"
                )
            seen.add(spec.label)
            specs.append(spec)
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class _Context:
    """One table of a gate file, as the :class:`~pytest_openmed.contract.Source` of a declaration.

    Refusals name the file, the table and the key; paths are resolved
    against the gate file's directory and may not be absolute.
    """

    where: str
    base: Path
    #: A gate's own table (its keys include ``name``), not a nested one.
    top: bool = True

    def fail(self, key: str, expected: str) -> GateFileError:
        return GateFileError(f"{self.where}: key '{cap(key)}' {expected}")

    def refuse(self, key: str, expected: Expected) -> GateFileError:
        return self.fail(key, expected.text)

    def whole(self, message: str) -> GateFileError:
        return GateFileError(f"{self.where}: {message}")

    def check_keys(
        self, fields: Mapping[str, object], required: Sequence[str], optional: Sequence[str]
    ) -> None:
        # Every gate has a name; the engine's declaration names the rest.
        required = ("name", *required) if self.top else tuple(required)
        allowed = {*required, *optional}
        for key in sorted(required):
            if key not in fields:
                raise self.fail(key, "is required")
        for key in sorted(fields):
            if key not in allowed:
                raise self.fail(key, f"is not known; expected one of: {', '.join(sorted(allowed))}")

    def within(self, key: str, label: str) -> _Context:
        return _Context(where=f"{self.where} {key}.{cap(label)}", base=self.base, top=False)

    def path(self, key: str, value: object) -> Path:
        if type(value) is not str or not value or "\x00" in value:
            raise self.fail(key, "must be a non-empty path string relative to the gate file")
        candidate = Path(value)
        if candidate.is_absolute():
            raise self.fail(key, "must be relative to the gate file, not absolute")
        try:
            return (self.base / candidate).resolve()
        except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
            raise self.fail(key, "names a path that cannot be resolved (a symlink loop?)") from None

    def name(self, table: Mapping[str, Any]) -> str:
        """The gate's name (checked before its engine's fields, as a gate file reads)."""
        if "name" not in table:
            raise self.fail("name", "is required")
        return check_text(
            table["name"],
            NAME_PATTERN,
            lambda: self.fail("name", f"must be a string of {NAME_WORDING}"),
        )


def _sorted_tables(table: Mapping[str, Any]) -> dict[str, Any]:
    """A gate file's class tables in name order: its class items are listed sorted."""
    classes = table.get("classes")
    if not isinstance(classes, dict):
        return dict(table)
    return {**table, "classes": dict(sorted(classes.items()))}


def _parse_claims(table: Mapping[str, Any], context: _Context) -> GateSpec:
    from pytest_openmed.claims.declaration import declare

    name = context.name(table)
    return GateSpec(kind="claims", name=name, declaration=declare(_sorted_tables(table), context))


def _parse_planner(table: Mapping[str, Any], context: _Context) -> GateSpec:
    from pytest_openmed.planner.declaration import declare

    name = context.name(table)
    return GateSpec(kind="planner", name=name, declaration=declare(table, context))


def _parse_pack(table: Mapping[str, Any], context: _Context) -> GateSpec:
    from pytest_openmed.multimodal.declaration import declare

    name = context.name(table)
    return GateSpec(kind="pack", name=name, declaration=declare(table, context))


_TABLE_PARSERS: dict[str, Callable[[Mapping[str, Any], _Context], GateSpec]] = {
    "claims": _parse_claims,
    "planner": _parse_planner,
    "pack": _parse_pack,
}
