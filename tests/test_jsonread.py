"""The one JSON reading policy: size first, strict JSON, records bounded while parsed."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed._jsonread import (
    MAX_JSON_INT,
    RecordFileError,
    Refusal,
    json_value_bound,
    loads,
    read_limited,
    read_records,
)
from pytest_openmed.claims import messages
from pytest_openmed.claims._gate import load_records
from pytest_openmed.claims.records import MAX_CLAIMS
from pytest_openmed.errors import InputRefused
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


def test_a_jsonl_file_is_refused_before_bytes_past_the_limit_are_decoded(tmp_path: Path) -> None:
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
def test_refusing_a_huge_file_holds_its_text_not_its_records(tmp_path: Path, layout: str) -> None:
    """``json.loads`` of this 7 MiB file takes some 17 times its size; refusing it, at most 3."""
    limit = 2_000
    path = tmp_path / "huge"
    record = '{"n": 1}'
    count = 400 * limit
    text = "[" + ",".join([record] * count) + "]" if layout == "array" else (record + "\n") * count
    path.write_text(text)
    assert _peak_bytes(path, limit) < 3 * len(text)


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
        | st.integers(min_value=-MAX_JSON_INT, max_value=MAX_JSON_INT)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
        max_size=4,
    ),
    max_size=8,
)


@settings(max_examples=120, deadline=None)
@given(records=_records, lines=st.booleans(), bom=st.booleans())
def test_records_read_like_json_loads(
    tmp_path_factory: pytest.TempPathFactory,
    records: list[dict[str, Any]],
    lines: bool,
    bom: bool,
) -> None:
    path = tmp_path_factory.mktemp("records") / "r"
    if lines:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    else:
        text = json.dumps(records, ensure_ascii=False, indent=1)
    path.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")
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

    monkeypatch.setattr(pack_gate, "loads", never)
    with pytest.raises(LimitExceeded) as caught:
        pack_gate._read_json(path, pack_gate.MAX_EVIDENCE_DOCUMENT_BYTES)
    assert "1,000,000 JSON values" in str(caught.value)


# -- the policy every reader shares -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"a": NaN}',
        "[Infinity]",
        "[-Infinity]",
        '{"rate": 1e400}',
        "[-1e400]",
        "[" + "9" * 400 + "]",
        "[" + str(MAX_JSON_INT + 1) + "]",
        "[" + str(-MAX_JSON_INT - 1) + "]",
        "[" * 100_000 + "]" * 100_000,
        '{"a": 1',
        "",
    ],
)
def test_the_policy_refuses(text: str) -> None:
    with pytest.raises(InputRefused, match=r"^refused$"):
        loads(text.encode(), "refused")
    with pytest.raises(InputRefused, match=r"^refused$"):
        loads(text, "refused")


def test_the_policy_refuses_bytes_that_are_not_utf8() -> None:
    with pytest.raises(InputRefused, match=r"^refused$"):
        loads(b'{"a": "\xff"}', "refused")


def test_the_policy_reads_every_other_number_as_json_does() -> None:
    text = f"[0, -0.0, 1.5e300, 5e-324, {MAX_JSON_INT}, {-MAX_JSON_INT}, 1E+2]"
    assert loads(text, "refused") == json.loads(text)


def test_a_repeated_name_may_have_its_own_refusal() -> None:
    with pytest.raises(InputRefused, match=r"^twice$"):
        loads('{"a": 1, "a": 2}', "refused", duplicate="twice")


def test_the_size_is_checked_before_a_byte_is_read(tmp_path: Path) -> None:
    """A 1 GiB file (sparse) over a 1 MiB limit is refused without reading it."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(1 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(InputRefused, match=r"^too large$"):
            read_limited(path, 1 << 20, too_large="too large", unreadable="unreadable")
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


def test_an_unreadable_file_is_a_bare_os_error(tmp_path: Path) -> None:
    missing = tmp_path / "CANARY-missing.json"
    with pytest.raises(OSError) as caught:
        read_limited(missing, 10, too_large="too large", unreadable="could not read")
    assert str(caught.value) == "could not read"
    assert caught.value.__cause__ is None
    assert read_limited(_written(tmp_path, b"[1]"), 3, too_large="x", unreadable="y") == b"[1]"
    with pytest.raises(InputRefused, match=r"^x$"):
        read_limited(_written(tmp_path, b"[1] "), 3, too_large="x", unreadable="y")


def _written(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "small.json"
    path.write_bytes(data)
    return path
