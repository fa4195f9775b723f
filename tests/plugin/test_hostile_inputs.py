"""Hostile configuration files and paths end in the documented exit code, never a crash."""

from __future__ import annotations

import pytest

from ._helpers import write_claims_project

HEAD = '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
DEEP_TOML = "x = " + "[" * 5000 + "]" * 5000 + "\n"


def _clean(result: pytest.RunResult) -> str:
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    return output


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_deeply_nested_waiver_file_is_a_usage_error(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_claims_project(pytester.path, HEAD + "max_upper = 1.0\n")
    (pytester.path / "waivers.toml").write_text(DEEP_TOML)
    result = pytester.runpytest_subprocess(*workers, "--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the waiver file is not valid TOML: it nests too deeply" in _clean(result)


def test_waiver_syntax_errors_give_line_and_column_and_a_bom_is_accepted(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(pytester.path, HEAD + "max_upper = 1.0\n")
    waiver = '[[waiver]]\ngate = "{gate}"\nexpires = 2999-01-01\nreference = "R-1"\n'
    (pytester.path / "waivers.toml").write_text(
        waiver.format(gate="ZQXCANARY") + 'gate = "again"\n'
    )
    result = pytester.runpytest("--openmed-waivers", "waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the waiver file is not valid TOML at line 5, column *"])
    assert "ZQXCANARY" not in _clean(result)
    gate = "gates.openmed.toml::claims(notes)::overall"
    (pytester.path / "waivers.toml").write_bytes(
        b"\xef\xbb\xbf" + waiver.format(gate=gate).encode()
    )
    pytester.runpytest("--openmed-waivers", "waivers.toml").assert_outcomes(passed=1)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_deeply_nested_gate_file_is_a_collection_error(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    (pytester.path / "deep.openmed.toml").write_text(DEEP_TOML)
    result = pytester.runpytest_subprocess(*workers)
    # A collection error: pytest exits 2 (interrupted); pytest-xdist reports it as exit 1.
    assert result.ret in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED)
    assert "deep.openmed.toml: the gate file is not valid TOML: it nests too deeply" in _clean(
        result
    )


def test_a_symlink_loop_data_path_is_a_collection_error_without_the_path(
    pytester: pytest.Pytester,
) -> None:
    write_claims_project(
        pytester.path, HEAD.replace("claims.json", "loop/c.json") + "max_upper = 1.0\n"
    )
    (pytester.path / "loop").symlink_to(pytester.path / "loop")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = _clean(result)
    assert "key 'claims' names a path that cannot be resolved" in output
    assert str(pytester.path) not in output.split("rootdir:", 1)[1].split("\n", 1)[1]


def test_a_planner_module_raising_system_exit_at_import_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(exits="raise SystemExit(0)\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--openmed-planner", "exits:plan"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*(OPENMED-PLANNER-IMPORT-RAISED)"])
    _clean(result)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--openmed-seed", "x", "seed must be a whole number from 0 to 9223372036854775807"),
        ("--openmed-resamples", "0", "resamples must be a whole number from 1 to 100000"),
        ("--openmed-min-cell", "4", "min_cell must be a whole number from 5 to 1000000"),
        ("--openmed-key-env", "1X", "key_env must be an environment variable name: *"),
        ("--openmed-planner", "a b", "planner reference must look like 'package.module:attribute'"),
    ],
)
def test_command_line_values_give_the_allowed_range_like_the_ini(
    pytester: pytest.Pytester, option: str, value: str, message: str
) -> None:
    result = pytester.runpytest(option, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument {option}: {message}"])
    assert "invalid" not in result.stderr.str() and "parse_" not in result.stderr.str()
