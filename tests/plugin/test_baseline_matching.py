"""A baseline must compare something: unmatched and malformed entries are counted, none matching is exit 4."""

from __future__ import annotations

import json

import pytest

from ._helpers import NOTES_GATE, write_claims_project

OVERALL = "gates.openmed.toml::claims(notes)::overall"
INTERVAL = {"lower": 0.0, "unsupported_rate": 0.1, "upper": 0.3}


def _entry(nodeid: object, metrics: object = INTERVAL) -> dict[str, object]:
    return {"nodeid": nodeid, "part": None, "kind": "claims", "metrics": metrics}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_claims_project(pytester.path, NOTES_GATE)
    return pytester


def _write(project: pytest.Pytester, gates: list[object]) -> None:
    document = {"schema_version": "1.0", "gates": gates}
    (project.path / "base.json").write_text(json.dumps(document))


def test_unmatched_and_malformed_entries_are_counted_never_listed(
    project: pytest.Pytester,
) -> None:
    _write(
        project,
        [
            _entry(OVERALL),
            _entry("ZQXCANARY.openmed.toml::claims(gone)::overall"),
            _entry(7),
            _entry(
                OVERALL.replace("notes", "bad"),
                {"lower": 0.5, "unsupported_rate": 0.1, "upper": 0.2},
            ),
            "not an object",
        ],
    )
    result = project.runpytest("--openmed-baseline", "base.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["openmed: baseline: 1 of 2 entries match no collected gate; 3 malformed entries ignored"]
    )
    assert "ZQXCANARY" not in result.stdout.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_baseline_matching_no_collected_gate_is_a_usage_error(
    project: pytest.Pytester, workers: list[str]
) -> None:
    # The same gate seen from another rootdir: its node id has a directory prefix.
    _write(project, [_entry("gates/" + OVERALL), _entry(OVERALL, {})])
    result = project.runpytest_subprocess(*workers, "--openmed-baseline", "base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "the baseline matches no collected claims gate (1 usable, 0 malformed entries)" in output
    assert "OPENMED-BASELINE-UNMATCHED" in output
    assert "gates/" not in output
    assert "INTERNALERROR" not in output and "Traceback" not in output


def test_under_xdist_the_controller_reports_the_workers_count(project: pytest.Pytester) -> None:
    _write(project, [_entry(OVERALL), _entry("elsewhere::overall"), "junk"])
    result = project.runpytest_subprocess("-n", "2", "--openmed-baseline", "base.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["openmed: baseline: 1 of 2 entries match no collected gate; 1 malformed entries ignored"]
    )


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"schema_version": "1.0", "gates": [{"kind": "claims", "nodeid": "x", "part": null, '
        '"metrics": {"lower": 1' + "0" * 400 + ', "unsupported_rate": 0, "upper": 0}}]}',
    ],
    ids=["deeply-nested", "400-digit-integer"],
)
def test_a_hostile_baseline_is_a_usage_error_not_a_crash(
    project: pytest.Pytester, text: str
) -> None:
    (project.path / "base.json").write_text(text)
    result = project.runpytest_subprocess("--openmed-baseline", "base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "openmed: " in output and "Traceback" not in output and "INTERNALERROR" not in output


def test_a_collection_error_is_shown_rather_than_the_unmatched_baseline(
    project: pytest.Pytester,
) -> None:
    _write(project, [_entry(OVERALL)])
    (project.path / "gates.openmed.toml").write_text(NOTES_GATE + "max_upper = 'high'\n")
    result = project.runpytest("--openmed-baseline", "base.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*key 'max_upper' must be a number from 0 to 1"])
