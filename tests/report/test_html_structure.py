"""The HTML report, checked without a browser: it parses, shows every gate, loads nothing, leaks nothing."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from pytest_openmed.report.html import NOT_RECORDED, render_html

from ._helpers import CANARY, GATES, KEY, WAIVED, MixedRun
from ._reports import gate_report

#: Elements that never close (HTML void elements) and those SVG writes self-closed.
_VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr"}
#: Attributes through which a page could fetch something.
_FETCHING = {"src", "href", "srcset", "action", "data", "poster", "xlink:href", "background"}


class _Page(HTMLParser):
    """Checks nesting and collects text, tags and every attribute that could fetch."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.tags: list[str] = []
        self.fetching: list[tuple[str, str, str]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in _FETCHING:
                self.fetching.append((tag, name, value or ""))
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in _FETCHING:
                self.fetching.append((tag, name, value or ""))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def test_the_page_parses_with_every_element_closed(mixed_run: MixedRun) -> None:
    page = parse(mixed_run.html)
    assert page.errors == []
    assert page.stack == []
    assert mixed_run.html.startswith("<!DOCTYPE html>")


def test_every_gate_appears_with_its_chart_or_table(mixed_run: MixedRun) -> None:
    page = parse(mixed_run.html)
    text = " ".join(page.text)
    for gate in GATES:
        assert gate in text
    # one forest plot per claims gate, a public report table per pack gate
    assert mixed_run.html.count("<title>Unsupported claim rate of") == 2
    assert text.count("public report (burned_in") == 2
    assert "FAILED" in text and "waived" in text and "passed" in text
    # in the forest plots, failing and waived rows say so in words
    assert "class[medication] (fails)" in text and "overall (waived)" in text


def test_suppressed_cells_are_shown_as_suppressed_never_as_zero(mixed_run: MixedRun) -> None:
    text = " ".join(parse(mixed_run.html).text)
    assert "suppressed (a cell below the publication size 5; not zero)" in text
    pack = [g for g in mixed_run.report["gates"] if g["kind"] == "pack"]
    assert all(g["public_report"]["overall"] == {"suppressed": True} for g in pack)
    assert "Development simulation" in text


def test_failures_say_which_comparison_failed(mixed_run: MixedRun) -> None:
    text = " ".join(parse(mixed_run.html).text)
    assert "unsupported_rate 0.2000 > max 0.10" in text
    assert "decision blocked: a privacy or provenance rating failed" in text


def test_waivers_are_listed_with_their_expiry_and_use(mixed_run: MixedRun) -> None:
    text = " ".join(parse(mixed_run.html).text)
    assert WAIVED in text and "2099-12-31" in text and "TICKET-7" in text
    assert "applied (the gate failed and was waived)" in text


def test_nothing_can_be_fetched_and_no_script_runs(mixed_run: MixedRun) -> None:
    page = parse(mixed_run.html)
    assert all(value.startswith("#") for _, _, value in page.fetching), page.fetching
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    assert "@import" not in mixed_run.html and "url(" not in mixed_run.html
    assert "default-src 'none'" in mixed_run.html  # the CSP forbids any fetch
    # the only URLs are the SVG namespace and the schema's description-free ids
    urls = set(re.findall(r"https?://[^\s\"'<>]+", mixed_run.html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls


def test_no_canary_key_or_machine_path_reaches_the_page(mixed_run: MixedRun) -> None:
    assert CANARY not in mixed_run.html
    assert "CANARYKEY" not in mixed_run.html and KEY not in mixed_run.html
    assert str(mixed_run.path) not in mixed_run.html
    assert "/tmp" not in mixed_run.html and "pytest-of" not in mixed_run.html


def test_a_chart_always_has_a_table_and_a_text_alternative(mixed_run: MixedRun) -> None:
    charts = re.findall(r'<svg[^>]*class="chart"[^>]*>(.*?)</svg>', mixed_run.html, re.S)
    assert charts
    assert all("<title>" in chart and "<desc>" in chart for chart in charts)
    assert mixed_run.html.count("<table>") >= len(charts)
    assert "@media print" in mixed_run.html


def test_the_rendering_is_a_pure_function_of_the_json_report(mixed_run: MixedRun) -> None:
    assert render_html(mixed_run.report) == mixed_run.html


def test_run_metadata_absent_from_the_report_reads_not_recorded(mixed_run: MixedRun) -> None:
    report = {key: value for key, value in mixed_run.report.items() if key != "run"}
    text = " ".join(parse(render_html(report)).text)
    for field in ("pytest exit status", "partial selection", "bootstrap seed"):
        assert re.search(rf"{field}\s+{NOT_RECORDED}", text), field


def test_run_metadata_present_in_the_report_is_shown(mixed_run: MixedRun) -> None:
    report = dict(mixed_run.report)
    report["run"] = {
        "exit_status": 1,
        "partial_selection": True,
        "keyword_selection": True,
        "marker_selection": False,
        "last_failed": False,
        "deselected": 3,
        "stopped_early": False,
        "seed": 424242,
        "resamples": 777,
    }
    report["summary"] = {**report["summary"], "items": {"failed": 2, "passed": 2, "xfailed": 1}}
    text = " ".join(parse(render_html(report)).text)
    assert "pytest exit status 1" in text and "424242" in text and "777" in text
    assert "yes (-k, 3 deselected)" in text
    assert "2 failed, 2 passed, 1 xfailed" in text


def test_text_from_the_report_is_escaped() -> None:
    report = gate_report(
        [
            {
                "nodeid": "test_x.py::test_<script>alert(1)</script>",
                "part": None,
                "kind": "custom",
                "status": None,
                "expected": None,
                "reason": None,
                "metrics": {},
                "outcome": "passed",
            }
        ]
    )
    page = render_html(report)
    assert "<script>" not in page
    assert "&lt;script&gt;" in page


def _entry(nodeid: str, kind: str, **fields: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "nodeid": nodeid,
        "part": None,
        "kind": kind,
        "status": None,
        "expected": "passed",
        "reason": None,
        "metrics": {},
        "outcome": "error",
    }
    entry.update(fields)
    return entry


def test_refused_and_sparse_verdicts_render_without_guessing() -> None:
    report = gate_report(
        [
            _entry("g.openmed.toml::claims(a)::overall", "claims"),
            _entry("g.openmed.toml::planner(p)::qualification", "planner"),
            _entry("g.openmed.toml::pack(k)::config-a", "pack"),
        ]
    )
    text = " ".join(parse(render_html(report, [("run1", report)])).text)
    # each refused verdict twice: in "What failed" at the top, and in its gate's details
    assert text.count("input refused (no verdict)") == 6
    assert f"public report metrics {NOT_RECORDED}" in text
    assert "GATES FAILED" in text
    assert f"suppressed or {NOT_RECORDED} in every stored run" in text
