"""Nothing unchecked reaches a test report: reserved properties, marker kinds, report hooks."""

from __future__ import annotations

import pytest

from ._helpers import NOTES_GATE, WORKERS, validate_report, write_claims_project


@WORKERS
def test_a_test_recording_the_reserved_property_fails_and_the_run_reports(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(
        """
        def test_forged(record_property):
            record_property("openmed_gate", object())

        def test_forged_kind(record_property):
            record_property("openmed_gate_kind", "ZQXCANARY")

        def test_ok():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*workers, "--openmed-report", "r.json")
    result.assert_outcomes(passed=1, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*reserved for the plugin's own gate verdicts*"])
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "ZQXCANARY" not in output
    assert validate_report(pytester.path / "r.json")["gates"] == []


@WORKERS
def test_an_unserialisable_marker_kind_is_an_error_of_the_test(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_gate(kind=object())
        def test_tagged():
            pass

        @pytest.mark.openmed_gate(kind="claim")
        def test_typo():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*workers, "--openmed-report", "r.json")
    result.assert_outcomes(errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["openmed_gate takes one keyword argument, kind, one of: *"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    report = validate_report(pytester.path / "r.json")  # schema-valid despite the typo
    assert [(g["kind"], g["outcome"]) for g in report["gates"]] == [("custom", "error")] * 2


def test_marker_argument_mistakes_name_the_argument_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_claims(max_unsuported_rate=0.1)
        def test_claims(claim_scorer):
            pass

        @pytest.mark.openmed_gate(knd="claims")
        def test_gate():
            pass

        @pytest.mark.openmed_claims(classes={"lab": {"max_upper": 0.1, "allow": True}})
        def test_class():
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "openmed_claims: unknown argument 'max_unsuported_rate'; it takes: classes, *",
            "openmed_gate: unknown argument 'knd'; it takes: kind",
            "openmed_claims classes[[]lab[]]: unknown argument 'allow'; it takes: *allow_absent",
        ],
        consecutive=False,
    )
    assert "Traceback" not in result.stdout.str()
    assert "pytest_openmed" not in result.stdout.str()  # no plugin frame


def test_a_report_hook_adding_non_json_data_is_a_clear_error(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, NOTES_GATE)
    pytester.makeconftest(
        """
        def pytest_openmed_report(config, report):
            report["extensions"]["when"] = object()
        """
    )
    result = pytester.runpytest_subprocess("--openmed-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["openmed: a pytest_openmed_report hook implementation left the gate report invalid*"]
    )
    assert not (pytester.path / "r.json").exists()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_report_hook_breaking_the_schema_is_a_clear_error(pytester: pytest.Pytester) -> None:
    write_claims_project(pytester.path, NOTES_GATE)
    pytester.makeconftest(
        """
        def pytest_openmed_report(config, report):
            report["gates"][0]["kind"] = "claim"
        """
    )
    result = pytester.runpytest_subprocess("--openmed-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*(OPENMED-REPORT-HOOK)"])
    assert not (pytester.path / "r.json").exists()
