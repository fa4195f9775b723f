"""How the plugin loads, stays inert, and refuses bad options."""

from __future__ import annotations

import pytest

from tests._imports import HEAVY, modules_after

ENGINES = ("pytest_openmed.claims", "pytest_openmed.planner", "pytest_openmed.multimodal")


def test_loads_with_dash_p_when_autoload_is_disabled(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "openmed", "--help")
    result.stdout.fnmatch_lines(["*openmed release gates*", "*--openmed-report=PATH*"])
    assert result.ret == 0


def test_not_loaded_without_dash_p_when_autoload_is_disabled(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("--help")
    assert "--openmed-report" not in result.stdout.str()


def test_unrelated_openmed_package_is_never_imported(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Users of the OpenMed SDK have a top-level ``openmed`` package.
    pytester.mkpydir("openmed").joinpath("__init__.py").write_text(
        "raise RuntimeError('the unrelated openmed package was imported')\n"
    )
    pytester.makepyfile("def test_ok():\n    pass\n")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    for autoload in ("1", ""):
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", autoload)
        result = pytester.runpytest_subprocess("-p", "openmed", "--openmed-seed", "3")
        result.assert_outcomes(passed=1)
        assert "unrelated openmed package" not in result.stdout.str() + result.stderr.str()


def test_dash_p_no_openmed_disables_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:openmed", "--openmed-seed", "3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --openmed-seed*"])


def test_importing_the_plugin_imports_no_heavy_dependency_and_no_engine() -> None:
    loaded = modules_after("import pytest_openmed.plugin")
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(ENGINES)) == []


def test_a_gate_free_run_imports_no_engine_writes_nothing_and_keeps_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = pytester.mkdir("project")
    project.joinpath("conftest.py").write_text(
        f"""
import os, sys
BEFORE = dict(os.environ)

def pytest_sessionfinish(session):
    loaded = sorted(
        m for m in sys.modules
        if m.split('.')[0] in {sorted(HEAVY)!r} or m.startswith({ENGINES!r})
    )
    changed = sorted(k for k in set(BEFORE) | set(os.environ)
                     if BEFORE.get(k) != os.environ.get(k) and not k.startswith('PYTEST_'))
    print('LOADED', loaded, 'CHANGED', changed)
"""
    )
    project.joinpath("test_plain.py").write_text("def test_ok():\n    pass\n")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.chdir(project)
    before = sorted(p.name for p in project.iterdir())
    # Other installed plugins (pytest-benchmark) and pytest's own cache write
    # files; this run checks ours alone.
    result = pytester.runpytest_subprocess(
        "-p", "openmed", "-p", "no:cacheprovider", "-p", "no:benchmark", "-s", str(project)
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*LOADED [] CHANGED []*"])
    assert sorted(p.name for p in project.iterdir()) == before
    assert "openmed gates" not in result.stdout.str()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--openmed-seed", "-1"),
        ("--openmed-seed", "x"),
        ("--openmed-resamples", "0"),
        ("--openmed-resamples", "100001"),
        ("--openmed-min-cell", "4"),
        ("--openmed-key-env", "NOT-A-NAME"),
        ("--openmed-planner", "no colon"),
    ],
)
def test_bad_option_values_are_usage_errors_before_collection(
    pytester: pytest.Pytester, option: str, value: str
) -> None:
    result = pytester.runpytest(option, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("openmed_seed", "-3"),
        ("openmed_resamples", "lots"),
        ("openmed_min_cell", "2"),
        ("openmed_key_env", "1BAD"),
        ("openmed_planners", "not a reference"),
    ],
)
def test_bad_ini_values_are_usage_errors(pytester: pytest.Pytester, key: str, value: str) -> None:
    pytester.makeini(f"[pytest]\n{key} = {value}\n")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*ini option {key}*"])


def test_markers_are_registered_for_strict_markers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_gate(kind="custom")
        @pytest.mark.openmed_claims(max_unsupported_rate=0.5)
        def test_ok():
            pass
        """
    )
    pytester.runpytest("--strict-markers").assert_outcomes(passed=1)


def test_openmed_gate_marker_with_an_unknown_kind_is_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.openmed_gate(kind="vibes")
        def test_ok():
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*openmed_gate takes one keyword argument, kind*"])
