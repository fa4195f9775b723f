"""A claims gate file end to end: items, outcomes, report, summary, xdist, disclosure."""

from __future__ import annotations

import json

import pytest

from ._helpers import CANARY, esc, validate_report, without_timing

ITEMS = [
    "gates.openmed.toml::claims(notes)::overall",
    "gates.openmed.toml::claims(notes)::class[diagnosis]",
    "gates.openmed.toml::claims(notes)::class[medication]",
]


def test_items_pass_and_fail_as_thresholds_dictate(claims_project: pytest.Pytester) -> None:
    result = claims_project.runpytest("-v", "--openmed-report", "report.json")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"{esc(ITEMS[0])} PASSED*",
            f"{esc(ITEMS[1])} PASSED*",
            f"{esc(ITEMS[2])} FAILED*",
            "unsupported_rate 0.2000 > max 0.10; openmed claims gate: threshold (unsupported_rate); "
            "*claim_count=10*unsupported_count=2*",
            "*= openmed gates =*",
            "PASSED  *" + esc("claims(notes)::overall") + ": passed",
            "FAILED  *"
            + esc("claims(notes)::class[medication]")
            + ": threshold: unsupported_rate 0.2000 > max 0.10; claim_count=10*",
            "openmed: 3 gate items: 1 failed, 2 passed; 3 verdicts: 2 passed, 1 threshold. *",
        ]
    )
    report = validate_report(claims_project.path / "report.json")
    assert [gate["nodeid"] for gate in report["gates"]] == ITEMS
    overall = report["gates"][0]
    assert overall["metrics"]["claim_count"] == 20
    assert overall["metrics"]["unsupported_count"] == 2
    assert overall["metrics"]["unsupported_rate"] == 0.1
    assert report["summary"]["outcomes"] == {"passed": 2, "failed": 1, "error": 0, "skipped": 0}
    assert report["summary"]["statuses"]["threshold"] == 1


def test_upper_bound_threshold(pytester: pytest.Pytester) -> None:
    from ._helpers import write_claims_project

    write_claims_project(
        pytester.path,
        '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
        "max_upper = 0.20\n",
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    # 2 of 20: the bootstrap upper bound is 0.25, the exact one-sided bound 0.2826.
    result.stdout.fnmatch_lines(
        [
            "gate_upper 0.2826 > max_upper 0.20; openmed claims gate: threshold (interval_upper)*"
            "gate_upper=0.2826, gate_upper_method=clopper_pearson*upper=0.2500*"
        ]
    )


def test_keyword_selection_and_last_failed(claims_project: pytest.Pytester) -> None:
    claims_project.runpytest("-k", "medication").assert_outcomes(failed=1)
    claims_project.runpytest().assert_outcomes(passed=2, failed=1)
    result = claims_project.runpytest("--lf")
    result.assert_outcomes(failed=1)
    result = claims_project.runpytest("-x")
    result.assert_outcomes(passed=2, failed=1)


def test_xdist_report_equals_the_serial_report(claims_project: pytest.Pytester) -> None:
    serial = claims_project.runpytest("--openmed-report", "serial.json")
    serial.assert_outcomes(passed=2, failed=1)
    # A real subprocess: xdist workers are separate interpreters anyway.
    parallel = claims_project.runpytest_subprocess("-n", "2", "--openmed-report", "parallel.json")
    parallel.assert_outcomes(passed=2, failed=1)
    assert without_timing(validate_report(claims_project.path / "serial.json")) == without_timing(
        validate_report(claims_project.path / "parallel.json")
    )
    parallel.stdout.fnmatch_lines(
        ["*= openmed gates =*", "FAILED  *" + esc("class[medication]") + ": threshold: *"]
    )


def test_junit_xml_carries_verdict_properties(claims_project: pytest.Pytester) -> None:
    claims_project.runpytest("--junitxml", "junit.xml")
    xml = (claims_project.path / "junit.xml").read_text()
    assert 'name="openmed.status" value="threshold"' in xml
    assert 'name="openmed.metric.unsupported_count" value="2"' in xml


def test_nothing_identifying_reaches_terminal_junit_report_or_markdown(
    claims_project: pytest.Pytester,
) -> None:
    result = claims_project.runpytest(
        "-vv",
        "-rA",
        "--junitxml",
        "junit.xml",
        "--openmed-report",
        "r.json",
        "--openmed-markdown",
        "summary.md",
    )
    result.assert_outcomes(passed=2, failed=1)
    for text in (
        result.stdout.str(),
        result.stderr.str(),
        (claims_project.path / "junit.xml").read_text(),
        (claims_project.path / "r.json").read_text(),
        (claims_project.path / "summary.md").read_text(),
    ):
        assert CANARY not in text


def test_refused_inputs_are_errors_not_failures(claims_project: pytest.Pytester) -> None:
    rows = json.loads((claims_project.path / "claims.json").read_text())
    rows.append(dict(rows[0]))  # duplicate claim_id
    (claims_project.path / "claims.json").write_text(json.dumps(rows))
    result = claims_project.runpytest("--openmed-report", "r.json")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["openmed claims gate input refused: ValueError: *"])
    assert CANARY not in result.stdout.str()
    report = validate_report(claims_project.path / "r.json")
    assert {gate["outcome"] for gate in report["gates"]} == {"error"}
    assert {gate["status"] for gate in report["gates"]} == {None}


def test_missing_input_file_is_an_error(claims_project: pytest.Pytester) -> None:
    (claims_project.path / "evidence.jsonl").unlink()
    result = claims_project.runpytest()
    result.assert_outcomes(errors=3)
    after_header = result.stdout.str().split("collected 3 items", 1)[1]
    assert str(claims_project.path) not in after_header
    assert "evidence.jsonl" not in after_header


def test_seed_option_and_ini_twin_change_nothing_but_the_interval(
    claims_project: pytest.Pytester,
) -> None:
    claims_project.runpytest("--openmed-seed", "1", "--openmed-report", "a.json")
    claims_project.makeini("[pytest]\nopenmed_seed = 1\nopenmed_report = b.json\n")
    claims_project.runpytest()
    assert without_timing(validate_report(claims_project.path / "a.json")) == without_timing(
        validate_report(claims_project.path / "b.json")
    )


def test_hooks_see_every_verdict_and_may_amend_the_report(claims_project: pytest.Pytester) -> None:
    claims_project.makeconftest(
        """
        SEEN = []

        def pytest_openmed_gate_result(config, item, result):
            SEEN.append((item.name, result.status.value))

        def pytest_openmed_report(config, report):
            report["extensions"]["seen"] = sorted(SEEN)
        """
    )
    claims_project.runpytest("--openmed-report", "r.json")
    report = validate_report(claims_project.path / "r.json")
    assert report["extensions"]["seen"] == [
        ["class[diagnosis]", "passed"],
        ["class[medication]", "threshold"],
        ["overall", "passed"],
    ]


@pytest.mark.parametrize("option", ["--openmed-report", "--openmed-markdown"])
def test_an_unwritable_output_path_is_a_usage_error_before_any_gate_runs(
    claims_project: pytest.Pytester, option: str
) -> None:
    result = claims_project.runpytest_subprocess(option, "missing-dir/r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*openmed: {option} names a file that cannot be written*"])
    assert "missing-dir" not in result.stdout.str() + result.stderr.str()
    assert "collected" not in result.stdout.str()  # found at configure time
    claims_project.makeini("[pytest]\nopenmed_report = .\n")  # a directory, from the ini
    result = claims_project.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*openmed: ini openmed_report names a file that cannot be*"])


def test_claim_scorer_enforces_the_marker(claims_project: pytest.Pytester) -> None:
    claims_project.makepyfile(
        """
        import json
        from pathlib import Path
        import pytest

        def load():
            claims = json.loads(Path("claims.json").read_text())
            rows = [json.loads(l) for l in Path("evidence.jsonl").read_text().splitlines()]
            return claims, rows

        @pytest.mark.openmed_claims(max_unsupported_rate=0.2, classes={"medication": {"max_upper": 0.5}})
        def test_within():
            pass

        @pytest.mark.openmed_claims(max_unsupported_rate=0.2, classes={"medication": {"max_upper": 0.6}})
        def test_within_thresholds(claim_scorer):
            report = claim_scorer(*load())
            assert report.overall.claim_count == 20

        @pytest.mark.openmed_claims(classes={"medication": {"max_unsupported_rate": 0.1}}, resamples=50)
        def test_over_threshold(claim_scorer):
            claim_scorer(*load())
        """
    )
    result = claims_project.runpytest(
        "test_claim_scorer_enforces_the_marker.py", "--openmed-report", "r.json"
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            esc("class[medication]")
            + ": unsupported_rate 0.2000 > max 0.10; openmed claims gate: threshold*",
            "FAILED  *::test_over_threshold",
            "          " + esc("class[medication]") + ": threshold: unsupported_rate *",
            "          overall: passed",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert CANARY not in result.stdout.str()
    report = validate_report(claims_project.path / "r.json")
    parts = [
        (gate["nodeid"].split("::")[-1], gate["part"], gate["outcome"]) for gate in report["gates"]
    ]
    assert parts == [  # collection order, then part
        ("test_within_thresholds", "class[medication]", "passed"),
        ("test_within_thresholds", "overall", "passed"),
        ("test_over_threshold", "class[medication]", "failed"),
        ("test_over_threshold", "overall", "failed"),
    ]


def test_bad_marker_arguments_are_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_claims(max_unsupported_rate=2)
        def test_x(claim_scorer):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret != 0
    assert (
        "max_unsupported_rate must be a number from 0 to 1"
        in result.stdout.str() + result.stderr.str()
    )


def test_a_report_is_written_even_when_no_gate_ran(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    pytester.runpytest("--openmed-report", "r.json").assert_outcomes(passed=1)
    assert validate_report(pytester.path / "r.json")["gates"] == []


def test_custom_gate_marker_is_listed_with_its_outcome(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_gate(kind="custom")
        def test_signed_off():
            assert False
        """
    )
    pytester.runpytest("--openmed-report", "r.json").assert_outcomes(failed=1)
    (gate,) = validate_report(pytester.path / "r.json")["gates"]
    assert (gate["kind"], gate["status"], gate["outcome"]) == ("custom", None, "failed")


def test_an_unexpected_engine_failure_is_an_error_that_withholds_its_text(
    claims_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pytest_openmed.claims._gate as gate

    def broken(spec: object, settings: object) -> None:
        raise KeyError(f"{CANARY}-claim-3")

    monkeypatch.setattr(gate, "evaluate_gate", broken)
    result = claims_project.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        ["openmed claims gate failed unexpectedly (KeyError); *--fulltrace*"]
    )
    assert CANARY not in result.stdout.str()
    result = claims_project.runpytest("--fulltrace")
    result.assert_outcomes(errors=3)
    assert CANARY in result.stdout.str()  # asked for explicitly


def test_a_missing_optional_dependency_says_what_to_install(
    claims_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pytest_openmed.claims._gate as gate

    def needs_scipy(spec: object, settings: object) -> None:
        raise ModuleNotFoundError("No module named 'scipy'", name="scipy")

    monkeypatch.setattr(gate, "evaluate_gate", needs_scipy)
    result = claims_project.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "openmed claims gate needs scipy, which is not installed: pip install 'pytest-openmed[imaging]'"
        ]
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_an_underpowered_gate_is_an_error_naming_the_claims_it_needs(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    from ._helpers import claim, evidence

    def project(count: int) -> None:
        claims = [claim(i, "diagnosis", [f"{CANARY}-ev-{i}"]) for i in range(count)]
        pytester.path.joinpath("claims.json").write_text(json.dumps(claims))
        rows = "\n".join(json.dumps(evidence(i)) for i in range(count))
        pytester.path.joinpath("evidence.jsonl").write_text(rows + "\n")
        pytester.path.joinpath("gates.openmed.toml").write_text(
            '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
            "max_unsupported_rate = 0.05\nmax_upper = 0.10\n"
        )

    project(3)
    result = pytester.runpytest(*workers, "--openmed-report", "r.json")
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*openmed claims gate input refused: overall: underpowered: *"
            "(claim_count=3, needed_claims=29, max_upper=0.1000, confidence=0.9500)*"
        ]
    )
    assert CANARY not in result.stdout.str()
    project(29)
    result = pytester.runpytest(*workers, "--openmed-report", "r.json")
    result.assert_outcomes(passed=1)
    gate = validate_report(pytester.path / "r.json")["gates"][0]
    assert gate["metrics"]["gate_upper_method"] == "clopper_pearson"
    assert 0.098 < gate["metrics"]["gate_upper"] <= 0.10
