"""The smaller things a reader trips over: headings, captions, deselected gates, slices, suppression."""

from __future__ import annotations

import re
from typing import Any

from pytest_openmed.report.html import render_html

SUPPRESSED = {"suppressed": True}


def _pack(name: str, public: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeid": f"p.openmed.toml::pack({name})::config-a",
        "part": None,
        "kind": "pack",
        "status": "passed",
        "expected": "passed",
        "reason": "ok",
        "metrics": {},
        "outcome": "passed",
        "public_report": public,
    }


def _report() -> dict[str, Any]:
    block = {
        "suppressed": False,
        "metrics": {
            "emission": {
                "count": 9,
                "denominator": 10,
                "rate": 0.9,
                "interval": {"lower": 0.6, "upper": 1.0},
            },
        },
    }
    shown = {
        "task": "forms",
        "review_origin": "attested",
        "min_cell": 5,
        "limitations": ["L1"],
        "slices": {"alpha": block, "nominal": block, "zeta": block},
        "overall": block,
    }
    hidden = {
        "task": "forms",
        "review_origin": "attested",
        "min_cell": 5,
        "limitations": [],
        "slices": {"alpha": SUPPRESSED, "nominal": SUPPRESSED},
        "overall": SUPPRESSED,
    }
    return {
        "schema_version": "1.2",
        "generator": {"name": "pytest-openmed", "version": "0"},
        "summary": {"gates": 2, "outcomes": {}, "statuses": {}},
        "gates": [_pack("shown", shown), _pack("hidden", hidden)],
        "waivers": [],
        "deselected_gates": [
            "g.openmed.toml::claims(a)::overall",
            "g.openmed.toml::claims(b)::overall",
        ],
    }


def test_headings_nest_and_every_table_has_its_own_caption() -> None:
    page = render_html(_report())
    assert "<h4>config-a: public report" in page and "<h3>config-a: public report" not in page
    captions = re.findall(r"<caption>(.*?)</caption>", page)
    per_gate = [c for c in captions if "p.openmed.toml" in c]
    assert len(per_gate) == len(set(per_gate)) >= 2


def test_deselected_gates_are_listed_not_only_counted() -> None:
    page = render_html(_report())
    for nodeid in _report()["deselected_gates"]:
        assert page.count(f"<li>{nodeid}</li>") == 2  # collapsed on screen, expanded in print


def test_nominal_slice_first_and_an_all_suppressed_report_is_one_line() -> None:
    page = render_html(_report())
    shown = page.partition("pack(shown)")[2]
    order = [m for m in re.findall(r'<th scope="row">(alpha|nominal|zeta)</th>', shown)]
    assert order[0] == "nominal" and order.index("alpha") < order.index("zeta")
    assert "All 3 blocks (nominal, alpha, overall): suppressed" in page
    assert '<div class="print-only"><p>Limitations:</p><ul><li>L1</li>' in page
