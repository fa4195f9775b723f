"""A refused cassette says where, never what: ``cassette input: <line or key>: <rule>``.

Like every other refused input (``claims input: line 7: …``), a cassette
refusal names the input, then the JSON line and column or the key path, then
the fixed rule; never the offending value, the document's text or its path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.planner.cassette import (
    CassetteError,
    load_cassette,
    qualify_wire,
)

CANARY = "QQCASSETTEVALUECANARY"
VERSION = "not a valid planner cassette (not a planner cassette of a supported version)"
TOP_LEVEL = (
    "cassette, dialect, model_identity, non_diagnostic, planner_reference, runs, schema_version"
)
EXCHANGE_KEYS = "raised, request_digest, response, scenario_id, turn"


def exchange(**changes: object) -> dict[str, Any]:
    valid = {
        "scenario_id": "in-scope",
        "turn": 0,
        "request_digest": "sha256:" + "0" * 64,
        "raised": False,
        "response": {"content": "ok"},
    }
    return {**valid, **changes}


def cassette(**changes: object) -> dict[str, Any]:
    valid = {
        "cassette": "openmed_planner_cassette",
        "schema_version": 2,
        "non_diagnostic": True,
        "dialect": "openai",
        "model_identity": None,
        "planner_reference": None,
        "runs": {"qualification": [exchange(), exchange(turn=1)]},
    }
    return {**valid, **changes}


def refusal(tmp_path: Path, text: str | bytes) -> CassetteError:
    path = tmp_path / f"{CANARY}.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        load_cassette(path)
    return caught.value


def test_a_valid_cassette_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cassette()))
    assert len(load_cassette(path).runs["qualification"]) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 1, column 1: not a valid planner cassette (not JSON)"),
        ('{\n  "cassette": \n  nope}', "line 3, column 3: not a valid planner cassette (not JSON)"),
        ("[]", f"not a valid planner cassette (top-level keys must be exactly: {TOP_LEVEL})"),
        (json.dumps(cassette(cassette="other")), f"key 'cassette': {VERSION}"),
        (json.dumps(cassette(schema_version=3)), f"key 'schema_version': {VERSION}"),
        (json.dumps(cassette(schema_version=True)), f"key 'schema_version': {VERSION}"),
        (json.dumps(cassette(non_diagnostic=False)), f"key 'non_diagnostic': {VERSION}"),
        (
            json.dumps(cassette(dialect="gemini")),
            "key 'dialect': not a valid planner cassette (dialect must be one of: "
            "openai, anthropic, mcp)",
        ),
        (
            json.dumps(cassette(model_identity="models/vendor-1")),
            "key 'model_identity': not a valid planner cassette "
            "(model_identity must be null or a model name)",
        ),
        (
            json.dumps(cassette(planner_reference="not a reference")),
            "key 'planner_reference': not a valid planner cassette "
            "(planner_reference must be null or a reference like 'package.module:attribute')",
        ),
        (
            json.dumps(cassette(runs={"other": []})),
            "key 'runs': not a valid planner cassette "
            "(runs are 'qualification' and 'injection[<style>]' entries, "
            "suffixed '@<trial>' from the second trial on)",
        ),
        (
            json.dumps(cassette(runs={"qualification@0": []})),
            "key 'runs': not a valid planner cassette "
            "(runs are 'qualification' and 'injection[<style>]' entries, "
            "suffixed '@<trial>' from the second trial on)",
        ),
        (
            json.dumps(cassette(runs={"injection[base64]": {}})),
            "run 'injection[base64]': not a valid planner cassette "
            "(each run is a list of at most 18 exchanges)",
        ),
        (
            json.dumps(cassette(runs={"qualification": [exchange(), [], exchange()]})),
            "run 'qualification', exchange #2: not a valid planner cassette "
            f"(each exchange has exactly: {EXCHANGE_KEYS})",
        ),
        (
            json.dumps(cassette(runs={"qualification": [exchange(scenario_id="other")]})),
            "run 'qualification', exchange #1, key 'scenario_id': not a valid planner cassette "
            "(scenario_id must be one of the six scenario ids)",
        ),
        (
            json.dumps(cassette(runs={"qualification": [exchange(), exchange(turn=3)]})),
            "run 'qualification', exchange #2, key 'turn': not a valid planner cassette "
            "(turn must be 0, 1 or 2)",
        ),
        (
            json.dumps(cassette(runs={"qualification": [exchange(request_digest="md5:0")]})),
            "run 'qualification', exchange #1, key 'request_digest': not a valid planner "
            "cassette (request_digest must be a sha256 digest)",
        ),
        (
            json.dumps(cassette(runs={"qualification": [exchange(raised=True)]})),
            "run 'qualification', exchange #1, key 'raised': not a valid planner cassette "
            "(raised must be a boolean; a raised exchange has a null response)",
        ),
        (b"\xff\xfe{}", "not a valid planner cassette (not UTF-8)"),
    ],
)
def test_each_refusal_names_the_input_then_the_line_or_key_then_the_rule(
    tmp_path: Path, text: str | bytes, message: str
) -> None:
    assert str(refusal(tmp_path, text)) == f"cassette input: {message}"


def test_a_missing_cassette_names_the_input(tmp_path: Path) -> None:
    with pytest.raises(CassetteError) as caught:
        qualify_wire("openai", cassette=tmp_path / f"{CANARY}.json")
    assert str(caught.value) == "cassette input: the cassette could not be read"


def test_an_oversized_cassette_names_the_input(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with path.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)  # sparse: nothing large is written
    with pytest.raises(CassetteError) as caught:
        load_cassette(path)
    assert str(caught.value) == "cassette input: the cassette exceeds 64 MiB"


def _run_named(name: str) -> dict[str, Any]:
    return cassette(runs={name: []})


#: The canary planted as the offending value in every position the reader checks.
PLANTED: dict[str, Callable[[], object]] = {
    "JSON syntax": lambda: '{"runs": "' + CANARY + '" ' + CANARY + "}",
    "top-level key": lambda: {**cassette(), CANARY: 1},
    "cassette kind": lambda: cassette(cassette=CANARY),
    "schema version": lambda: cassette(schema_version=CANARY),
    "non_diagnostic": lambda: cassette(non_diagnostic=CANARY),
    "dialect": lambda: cassette(dialect=CANARY),
    "model_identity": lambda: cassette(model_identity=f"{CANARY}/x"),
    "planner_reference": lambda: cassette(planner_reference=f"{CANARY} x"),
    "run name": lambda: _run_named(f"injection[{CANARY}]"),
    "run value": lambda: cassette(runs={"qualification": CANARY}),
    "exchange key": lambda: cassette(runs={"qualification": [{**exchange(), CANARY: 1}]}),
    "exchange value": lambda: cassette(runs={"qualification": [CANARY]}),
    "scenario_id": lambda: cassette(runs={"qualification": [exchange(scenario_id=CANARY)]}),
    "turn": lambda: cassette(runs={"qualification": [exchange(turn=CANARY)]}),
    "request_digest": lambda: cassette(runs={"qualification": [exchange(request_digest=CANARY)]}),
    "raised": lambda: cassette(runs={"qualification": [exchange(raised=CANARY)]}),
}


@pytest.mark.parametrize("position", sorted(PLANTED))
def test_the_offending_value_never_appears(tmp_path: Path, position: str) -> None:
    planted = PLANTED[position]()
    text = planted if isinstance(planted, str) else json.dumps(planted)
    error = refusal(tmp_path, text)
    assert str(error).startswith("cassette input: ")
    for shown in (str(error), repr(error), repr(error.args)):
        assert CANARY not in shown
        assert str(tmp_path) not in shown
