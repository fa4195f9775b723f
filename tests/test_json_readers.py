"""Every JSON reader of the package keeps the one reading policy (``pytest_openmed._jsonread``).

Each reader is given an otherwise valid document with one object name
repeated (with the same value, so only the repetition is wrong), and, where
its format leaves room for it, one number out of range (``1e400``, which
plain ``json`` reads as infinity, and a 400-digit integer).  Every reader
refuses each with its own error; none crashes.  The policy's own rules are
specified in ``tests/test_jsonread.py``.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.claims import UnsupportedClaimsReport
from pytest_openmed.claims._gate import load_records
from pytest_openmed.errors import ComponentError
from pytest_openmed.multimodal import _gate as pack_gate
from pytest_openmed.planner import qualify_planner
from pytest_openmed.planner.cassette import CassetteError, load_cassette
from pytest_openmed.planner.controls import control_planner
from pytest_openmed.planner.report import PlannerQualificationReport
from pytest_openmed.report.baseline import BaselineError, load_baseline
from pytest_openmed.report.history import load_history
from pytest_openmed.report.load import ReportError, parse_report
from tests.claims.test_report import sample_report
from tests.planner.test_cassette_errors import cassette
from tests.report.test_history_store import report_with

OUT_OF_RANGE = ["1e400", "-1e400", "9" * 400]


def repeated(text: str) -> str:
    """``text`` (a JSON object) with its first name written twice, with the same value."""
    name, value = next(iter(json.loads(text).items()))
    return "{" + json.dumps(name) + ":" + json.dumps(value) + "," + text.lstrip()[1:]


def report_text(extension: str = "{}") -> str:
    document = json.dumps(report_with(rate=0.1, lower=0.0, upper=0.2))
    return document.replace('"extensions": {}', f'"extensions": {{"x": {extension}}}')


def written(tmp_path: Path, text: str, name: str = "input.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the gate report and what reads it: openmed-report, the baseline, the history ------


def test_the_report_reader(tmp_path: Path) -> None:
    assert parse_report(report_text().encode())  # the valid document is read
    for bad in [repeated(report_text()), *(report_text(n) for n in OUT_OF_RANGE)]:
        with pytest.raises(ReportError, match="a repeated name, a number out of range"):
            parse_report(bad.encode())


def test_the_baseline_reader(tmp_path: Path) -> None:
    assert load_baseline(written(tmp_path, report_text())).intervals
    for bad in [repeated(report_text()), *(report_text(n) for n in OUT_OF_RANGE)]:
        with pytest.raises(BaselineError, match="a repeated name, a number out of range"):
            load_baseline(written(tmp_path, bad))


def test_the_history_reader_skips_and_counts_what_breaks_the_policy(tmp_path: Path) -> None:
    store = tmp_path / "history"
    store.mkdir()
    bad = [repeated(report_text()), *(report_text(n) for n in OUT_OF_RANGE)]
    for minute, text in enumerate([report_text(), *bad]):
        written(store, text, f"20261201T15{minute:02d}00000000Z-nocommit.json")
    loaded, skipped = load_history(store)
    assert (len(loaded), skipped) == (1, len(bad))


# -- the planner: cassettes and reports ------------------------------------------------


def test_the_cassette_reader(tmp_path: Path) -> None:
    text = json.dumps(cassette())
    assert load_cassette(written(tmp_path, text)).runs
    with pytest.raises(CassetteError, match=r"\(not strict JSON: a repeated name"):
        load_cassette(written(tmp_path, repeated(text)))
    response = text.replace('"content": "ok"', '"content": "ok", "n": {}')
    for number in OUT_OF_RANGE:
        with pytest.raises(CassetteError, match=r"\(not strict JSON: .* a number out of range"):
            load_cassette(written(tmp_path, response.replace("{}", number, 1)))


def test_the_planner_report_reader() -> None:
    text = qualify_planner(control_planner).to_json()
    assert PlannerQualificationReport.from_json(text).qualified
    with pytest.raises(ValueError, match=r"not strict JSON \(a repeated name"):
        PlannerQualificationReport.from_json(repeated(text))


# -- claims: input records and stored reports --------------------------------------------


@pytest.mark.parametrize("layout", ["array", "lines"])
def test_the_claims_record_reader(tmp_path: Path, layout: str) -> None:
    def records(value: str) -> str:
        record = f'{{"claim_id": "c1", "x": {value}}}'
        return f"[{record}]" if layout == "array" else record + "\n"

    assert load_records(written(tmp_path, records("1")))
    for number in OUT_OF_RANGE:
        with pytest.raises(ValueError, match="JSON"):
            load_records(written(tmp_path, records(number)))
    with pytest.raises(ValueError, match="duplicate field name"):
        load_records(written(tmp_path, records('1, "x": 1')))


def test_the_claims_report_reader() -> None:
    text = sample_report().to_json()
    assert UnsupportedClaimsReport.from_json(text) == sample_report()
    for bad in [repeated(text), text.replace('"alpha": 0.1', '"alpha": 1e400')]:
        with pytest.raises(ValueError):
            UnsupportedClaimsReport.from_json(bad)


# -- multimodal: pack gate inputs and the waveform carrier -----------------------------------


def test_the_pack_gate_input_reader(tmp_path: Path) -> None:
    read: Callable[[Path], Any] = lambda path: pack_gate._read_json(path, 1 << 20)  # noqa: E731
    assert read(written(tmp_path, '{"a": [1, 2.5]}'))
    for bad in ['{"a": 1, "a": 1}', '{"a": NaN}', *(f'{{"a": {n}}}' for n in OUT_OF_RANGE)]:
        with pytest.raises(ValueError, match="not valid UTF-8 JSON"):
            read(written(tmp_path, bad))


def test_the_waveform_carrier() -> None:
    from pytest_openmed.carriers.waveform import check_waveform_json

    text = (
        '{"format": "openmed.waveform.v1", "sampling_rate_hz": 500, "units": "mV", '
        '"leads": [{"name": "I", "samples": [0.5, SAMPLE]}]}'
    )
    assert check_waveform_json(text.replace("SAMPLE", "1").encode()).n_samples == 2
    for bad in [
        repeated(text.replace("SAMPLE", "1")),
        *(text.replace("SAMPLE", n) for n in OUT_OF_RANGE),
    ]:
        with pytest.raises(ComponentError):
            check_waveform_json(bad.encode())


def test_the_history_index_reader(tmp_path: Path) -> None:
    """The trend index is a cache: one that breaks the policy is not read (the runs are)."""
    from pytest_openmed.report import history

    store = tmp_path / "history"
    when = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
    history.store_run(store, report_text(), keep=5, now=when, environ={})
    index = store / history.INDEX_NAME
    assert history._read_index(store)
    history._LAST_INDEX.clear()
    index.write_text(repeated(index.read_text()))
    assert history._read_index(store) == {}


def test_the_wire_reader_of_tool_arguments() -> None:
    """Arguments a model sends as a JSON string: a repeated name or a huge number is a defect."""
    from pytest_openmed.planner.wire import MalformedCall, parse_response

    def arguments(text: str) -> list[object]:
        call = {
            "id": "c",
            "type": "function",
            "function": {"name": "episode__read", "arguments": text},
        }
        return parse_response("openai", {"choices": [{"message": {"tool_calls": [call]}}]})

    assert type(arguments('{"operation": "summarize"}')[0]) is not MalformedCall
    for bad in ['{"operation": "summarize", "operation": "summarize"}', '{"n": 1e400}']:
        (proposal,) = arguments(bad)
        assert type(proposal) is MalformedCall and proposal.defect == "arguments_not_json"
