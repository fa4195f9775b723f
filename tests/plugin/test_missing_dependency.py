"""A missing optional package is reported as a missing dependency, never as refused input."""

from __future__ import annotations

import json

import pytest

GATES = """
[[pack]]
name = "forms"
pack = "pack.json"
mappings = []
reviews = []
candidates = ["config-a", "config-b"]
"""


def test_a_missing_extra_is_a_missing_dependency_in_every_channel(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pytest_openmed.multimodal._gate as gate

    def needs_pydicom(spec: object, settings: object) -> None:
        raise ModuleNotFoundError("No module named 'pydicom'", name="pydicom")

    monkeypatch.setattr(gate, "evaluate_gate", needs_pydicom)
    pytester.makefile(".openmed.toml", gates=GATES)
    result = pytester.runpytest(
        "-p", "openmed", "--openmed-report", "r.json", "--openmed-markdown", "r.md"
    )
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "openmed pack gate needs pydicom, which is not installed: "
            "pip install 'pytest-openmed[[]imaging[]]'",
            "ERROR   gates.openmed.toml::pack(forms)::config-a: missing dependency",
            "ERROR   gates.openmed.toml::pack(forms)::config-b: missing dependency",
            "openmed: 2 gate items: 2 errors; 2 verdicts: 2 missing dependency. *",
        ]
    )
    summary = result.stdout.str().split("openmed gates")[1]
    assert "refused" not in summary
    gates = json.loads((pytester.path / "r.json").read_text())["gates"]
    assert [(g["status"], g["reason"]) for g in gates] == [(None, "missing_dependency")] * 2
    markdown = (pytester.path / "r.md").read_text()
    assert "2 verdicts: 2 missing dependency" in markdown
    assert "missing dependency (no verdict)" in markdown and "refused" not in markdown
