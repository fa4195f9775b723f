"""Without an extra, every path that needs it errors naming the extra to install.

The extra is made uninstalled for real: a ``sitecustomize`` in the run's
``PYTHONPATH`` hides its modules from the import system (``find_spec`` finds
nothing, ``import`` raises ``ModuleNotFoundError``), as in an environment
where it was never installed.  Serial and under xdist, at the most verbose
traceback settings: the error is typed and one line, with no raw
``ModuleNotFoundError``, no plugin frame and no local.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.report._reports import gate_report

CANARY = "QQEXTRACANARY"

#: Hides the modules named in ``OPENMED_TEST_HIDDEN`` from the path finder.
HIDE = """
import importlib.machinery
import os
import sys

HIDDEN = set(os.environ.get("OPENMED_TEST_HIDDEN", "").split(","))


class Hiding(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            return None
        return super().find_spec(name, path, target)


sys.meta_path[:] = [Hiding if f is importlib.machinery.PathFinder else f for f in sys.meta_path]
"""

IMAGING = "PIL,pydicom,scipy,tifffile"
VERBOSE = ("-p", "no:randomly", "--showlocals", "--tb=long", "-rA")
WORKERS = [pytest.param([], id="serial"), pytest.param(["-n", "2"], id="xdist")]


@pytest.fixture
def without(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose runs cannot import the modules of the imaging extra."""
    site = pytester.mkdir("site")
    (site / "sitecustomize.py").write_text(HIDE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OPENMED_TEST_HIDDEN", IMAGING)
    return pytester


def assert_plain(output: str) -> None:
    assert "ModuleNotFoundError" not in output
    assert "Traceback" not in output
    assert CANARY not in output
    assert "pytest_openmed/plugin" not in output and "pytest_openmed/components" not in output


def test_the_hidden_extra_is_really_missing(without: pytest.Pytester) -> None:
    """The precondition of every test here: the imaging modules cannot be imported."""
    without.makepyfile(
        "import importlib.util\n"
        "def test_it():\n"
        "    assert importlib.util.find_spec('pydicom') is None\n"
        "    assert importlib.util.find_spec('json') is not None\n"
    )
    without.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)


@pytest.mark.parametrize("workers", WORKERS)
def test_a_development_pack_names_the_imaging_extra(
    without: pytest.Pytester, workers: list[str]
) -> None:
    without.makepyfile(
        f"def test_it(development_pack):\n    {CANARY.lower()} = '{CANARY}'\n"
        '    development_pack("dicom_frames")\n'
    )
    result = without.runpytest_subprocess(*VERBOSE, "--fulltrace", *workers)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*openmed pack gate needs pydicom, which is not installed: pip install 'pytest-openmed[[]imaging[]]'"
        ]
    )
    assert_plain(result.stdout.str() + result.stderr.str())


@pytest.mark.parametrize("workers", WORKERS)
def test_a_component_called_in_a_test_names_the_imaging_extra(
    without: pytest.Pytester, workers: list[str]
) -> None:
    without.makepyfile(
        "from pytest_openmed.components import dicom_frames\n"
        f"def test_it():\n    {CANARY.lower()} = '{CANARY}'\n"
        f"    dicom_frames.run(b'{CANARY}')\n"
    )
    result = without.runpytest_subprocess(*VERBOSE, *workers)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*pytest-openmed needs pydicom, which is not installed: pip install 'pytest-openmed[[]imaging[]]'"
        ]
    )
    assert_plain(result.stdout.str() + result.stderr.str())


def test_the_tests_own_import_is_left_to_pytest(without: pytest.Pytester) -> None:
    """Only an import the package made is the package's missing dependency."""
    without.makepyfile("def test_it():\n    import pydicom\n")
    result = without.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ModuleNotFoundError*pydicom*"])
    assert "pytest-openmed[" not in result.stdout.str()


def test_the_controls_need_imaging_only_for_the_pack_controls(without: pytest.Pytester) -> None:
    """What docs/quickstart.md says of ``--openmed-controls`` without the imaging extra."""
    result = without.runpytest_subprocess("-p", "no:randomly", "--openmed-controls")
    outcomes = result.parseoutcomes()
    assert outcomes["errors"] == 12 and outcomes["passed"] > 100, outcomes
    errors = [line for line in result.stdout.lines if line.startswith("ERROR ") and " - " in line]
    assert len(errors) == 12 and all("pack(" in line for line in errors)
    result.stdout.fnmatch_lines(["*12 missing dependency*"])


@pytest.mark.parametrize("workers", WORKERS)
def test_a_live_mcp_agent_names_the_mcp_extra(
    without: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    monkeypatch.setenv("OPENMED_TEST_HIDDEN", "mcp,mcp_types,uvicorn")
    without.makepyfile(
        "from pytest_openmed.planner.mcp_controls import mcp_control_agent\n"
        f"def test_it(qualify_mcp_agent):\n    {CANARY.lower()} = '{CANARY}'\n"
        "    qualify_mcp_agent(mcp_control_agent)\n"
    )
    result = without.runpytest_subprocess(*VERBOSE, "--fulltrace", *workers)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*openmed planner gate needs mcp*, which is not installed: pip install 'pytest-openmed[[]mcp[]]'"
        ]
    )
    assert_plain(result.stdout.str() + result.stderr.str())


def test_the_console_scripts_need_no_extra(
    without: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the extras table says: openmed-report and openmed-planner run with none installed."""
    monkeypatch.setenv("OPENMED_TEST_HIDDEN", f"{IMAGING},mcp,mcp_types,uvicorn")
    (without.path / "r.json").write_text(json.dumps(gate_report([])))
    for command in (
        ["validate", "r.json"],
        ["html", "r.json", "-o", "r.html"],
        ["markdown", "r.json", "-o", "r.md"],
        ["sarif", "r.json", "-o", "r.sarif"],
    ):
        result = without.run(sys.executable, "-m", "pytest_openmed.report.cli", *command)
        assert result.ret == 0, command
    assert (without.path / "r.html").stat().st_size > 0
    result = without.run(sys.executable, "-m", "pytest_openmed.planner", "--help")
    assert result.ret == 0 and "--planner" in result.stdout.str()


@pytest.mark.parametrize("workers", WORKERS)
def test_the_strategies_without_hypothesis_name_the_strategies_extra(
    without: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    # Hypothesis's own pytest plugin, and pytest's assertion rewriting (which finds the
    # modules of every installed plugin itself), would load it first.
    monkeypatch.setenv("OPENMED_TEST_HIDDEN", "hypothesis")
    without.makepyfile("from pytest_openmed.strategies import small_packs\n")
    result = without.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:hypothesispytest", "--assert=plain", *workers
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ModuleNotFoundError: pytest_openmed.strategies needs hypothesis, which is not installed: "
            "pip install 'pytest-openmed[[]strategies[]]'"
        ]
    )


def test_an_expected_import_error_stays_expected(without: pytest.Pytester) -> None:
    """A test that expects the missing extra (``xfail(raises=ImportError)``) is not an error."""
    without.makepyfile(
        "import pytest\n"
        "from pytest_openmed.components import dicom_frames\n"
        "@pytest.mark.xfail(raises=ImportError, strict=True)\n"
        "def test_it():\n    dicom_frames.run(b'x')\n"
    )
    without.runpytest_subprocess("-p", "no:randomly").assert_outcomes(xfailed=1)
