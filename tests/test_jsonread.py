"""Gate input files are streamed: limits apply while reading, memory follows the limit."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_openmed import _jsonread
from pytest_openmed._jsonread import RecordFileError, Refusal, json_value_bound, read_records
from pytest_openmed.claims import messages
from pytest_openmed.claims._gate import load_records
from pytest_openmed.claims.records import MAX_CLAIMS
from pytest_openmed.multimodal import _gate as pack_gate
from pytest_openmed.multimodal.errors import LimitExceeded

BIG = 1 << 30


def read(path: Path, limit: int = 10) -> list[dict[str, Any]]:
    return read_records(path, limit=limit, max_bytes=BIG)


def refusal(path: Path, limit: int = 10) -> RecordFileError:
    with pytest.raises(RecordFileError) as caught:
        read(path, limit)
    assert caught.value.__cause__ is None
    return caught.value


@pytest.mark.parametrize("layout", ["array", "lines"])
def test_the_record_limit_applies_while_reading(tmp_path: Path, layout: str) -> None:
    over = MAX_CLAIMS + 1
    text = "[" + "{}," * over + " not json" if layout == "array" else "{}\n" * over + "not json\n"
    path = tmp_path / "over"
    path.write_text(text)
    with pytest.raises(ValueError) as caught:
        load_records(path, limit=MAX_CLAIMS)
    where = "" if layout == "array" else f"line {MAX_CLAIMS + 1}: "
    assert str(caught.value) == where + messages.FILE_TOO_MANY_CLAIMS


def test_a_jsonl_file_is_refused_before_bytes_past_the_limit_are_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_jsonread, "_CHUNK", 4)
    path = tmp_path / "over.jsonl"
    path.write_bytes(b"{}\n" * 12 + b'{"a": "\xff"}\n')
    assert refusal(path).reason is Refusal.TOO_MANY


def _peak_bytes(path: Path, limit: int) -> int:
    tracemalloc.start()
    try:
        assert refusal(path, limit).reason is Refusal.TOO_MANY
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("layout", ["array", "lines"])
def test_refusing_a_huge_file_costs_what_refusing_a_barely_oversized_one_does(
    tmp_path: Path, layout: str
) -> None:
    limit = 2_000

    def write(name: str, count: int) -> Path:
        path = tmp_path / name
        record = '{"n": 1}'
        text = (
            "[" + ",".join([record] * count) + "]" if layout == "array" else (record + "\n") * count
        )
        path.write_text(text)
        return path

    barely = _peak_bytes(write("barely", limit + 1), limit)
    huge = _peak_bytes(write("huge", 400 * limit), limit)  # 7 MiB: read in chunks, not whole
    assert huge < 1.25 * barely + _jsonread._CHUNK * 6


def test_json_lines_errors_carry_their_line_number(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text('\n  \n{"a": 1}\n\n{"a": oops}\n')
    error = refusal(path)
    assert (error.reason, error.line) == (Refusal.NOT_JSON, 5)
    path.write_text('{"a": 1}\n[1]\n{"b": 2, "b": 3}\n')
    error = refusal(path)
    assert (error.reason, error.line) == (Refusal.DUPLICATE_KEY, 3)
    path.write_text('{"a": 1}\n[1]\n')
    assert (refusal(path).reason, refusal(path).line) == (Refusal.RECORD_TYPE, 2)
    path.write_text("{}\n" * 10 + "\n{}\n")
    assert (refusal(path).reason, refusal(path).line) == (Refusal.TOO_MANY, 12)


_records = st.lists(
    st.dictionaries(
        st.text(max_size=4),
        st.none()
        | st.booleans()
        | st.integers(min_value=-(10**30), max_value=10**30)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
        max_size=4,
    ),
    max_size=8,
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=_records, chunk=st.integers(min_value=1, max_value=9), lines=st.booleans())
def test_records_split_across_chunks_read_like_json_loads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    records: list[dict[str, Any]],
    chunk: int,
    lines: bool,
) -> None:
    monkeypatch.setattr(_jsonread, "_CHUNK", chunk)
    path = tmp_path / "r"
    if lines:
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    else:
        path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    if lines and not records:
        assert refusal(path, 100).reason is Refusal.EMPTY
    else:
        assert read(path, 100) == records


def test_value_bound_never_undercounts() -> None:
    document = {"a": [1, 2, {"b": [], "c": "x,y"}], "d": None}
    text = json.dumps(document).encode()
    assert json_value_bound(text) >= 9
    assert json_value_bound(b"1") == 1


def test_a_pack_document_with_too_many_values_is_refused_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "review.json"
    path.write_text('{"ratings": [' + ",".join(["0"] * pack_gate.MAX_DOCUMENT_VALUES) + "]}")

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(pack_gate.json, "loads", never)
    with pytest.raises(LimitExceeded) as caught:
        pack_gate._read_json(path, pack_gate.MAX_EVIDENCE_DOCUMENT_BYTES)
    assert "1,000,000 JSON values" in str(caught.value)
