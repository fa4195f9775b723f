"""The control run's HTML report (the page the docs' screenshot shows): every gate with its plot or matrix."""

from __future__ import annotations

import json
import re

import pytest

from pytest_openmed.development.control_run import control_specs


def test_the_control_run_page_shows_every_gate_and_no_machine_path(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        "-p", "openmed", "--openmed-controls", "--openmed-html=c.html", "--openmed-report=c.json"
    )
    assert result.ret == 0
    page = (pytester.path / "c.html").read_text()
    report = json.loads((pytester.path / "c.json").read_text())
    kinds = {}
    for entry in report["gates"]:
        kinds[entry["nodeid"].rpartition("::")[0]] = entry["kind"]
    assert len(kinds) == len(control_specs())  # every control gate has its section
    for gate, kind in kinds.items():
        section = re.search(
            rf"<h3>{re.escape(gate)} <small>\({kind} gate: .*?</small></h3>(.*?)</section>",
            page,
            re.S,
        )
        assert section is not None, gate
        body = section.group(1)
        if kind == "claims":
            assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in body
        elif kind == "planner":
            assert "Scenario × counter matrix" in body
        else:
            assert "public report (" in body and "suppressed" in body
    assert "▲" in page  # the failing-on-purpose planner controls mark critical cells
    for path in (str(pytester.path), "/tmp/", "/home/", "/root/", "/work/", "file:"):
        assert path not in page
