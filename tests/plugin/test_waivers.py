"""Waiver files: every malformed file is a WaiverError; expiry is checked against today."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.plugin.waivers import Waiver, WaiverError, load_waivers, unmatched_waivers
from tests._files import file_writer, read_or_refuse

TODAY = datetime.date(2026, 11, 30)


write = file_writer("waivers.toml")


def test_a_valid_waiver_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path, '[[waiver]]\ngate = "g::x"\nexpires = 2026-11-30\nreference = "RISK-1"\n'
    )
    assert load_waivers(path, today=TODAY) == (
        Waiver("g::x", datetime.date(2026, 11, 30), "RISK-1"),
    )


def test_a_waiver_expiring_yesterday_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path, '[[waiver]]\ngate = "g::x"\nexpires = 2026-11-29\nreference = "RISK-1"\n'
    )
    with pytest.raises(WaiverError, match="waiver #1 expired on 2026-11-29"):
        load_waivers(path, today=TODAY)


def test_a_gate_is_waived_once(tmp_path: Path) -> None:
    table = '[[waiver]]\ngate = "g::x"\nexpires = 2027-01-01\nreference = "R"\n'
    with pytest.raises(WaiverError, match="waived only once"):
        load_waivers(write(tmp_path, table * 2), today=TODAY)


def test_unmatched_waivers_are_numbered() -> None:
    waivers = [Waiver("a", TODAY, "R"), Waiver("b", TODAY, "R")]
    assert unmatched_waivers(waivers, ["a"]) == [2]


def test_an_unreadable_file_does_not_echo_its_path(tmp_path: Path) -> None:
    with pytest.raises(WaiverError) as info:
        load_waivers(tmp_path / "missing-CANARY.toml", today=TODAY)
    assert "CANARY" not in str(info.value)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_arbitrary_text_is_read_or_refused_with_a_waiver_error(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    read_or_refuse(
        tmp_path_factory, "waivers.toml", text, lambda p: load_waivers(p, today=TODAY), WaiverError
    )


@settings(max_examples=200, deadline=None)
@given(
    gate=st.one_of(st.text(max_size=20), st.integers(), st.none()),
    reference=st.one_of(st.text(max_size=70), st.integers()),
)
def test_arbitrary_field_values_are_read_or_refused(
    tmp_path_factory: pytest.TempPathFactory, gate: object, reference: object
) -> None:
    import json

    def toml(value: object) -> str:
        return json.dumps(value) if value is not None else '""'

    path = write(
        tmp_path_factory.mktemp("w"),
        f"[[waiver]]\ngate = {toml(gate)}\nexpires = 2027-01-01\nreference = {toml(reference)}\n",
    )
    try:
        (waiver,) = load_waivers(path, today=TODAY)
    except WaiverError:
        return
    assert isinstance(waiver.gate, str) and isinstance(waiver.reference, str)
