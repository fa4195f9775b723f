"""A gate's declaration prints no value under ``--fulltrace --showlocals`` (serial and xdist)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_openmed.claims.declaration import GateDeclaration
from pytest_openmed.contract import ArgumentSource, GateSpec
from pytest_openmed.planner.declaration import declare

from ._helpers import write_claims_project

CANARY = "QQREPRCANARY"


def test_a_gate_spec_repr_names_its_kind_and_hides_its_options() -> None:
    planner = declare({"planner": f"{CANARY.lower()}.plans:plan"}, ArgumentSource())
    spec = GateSpec("planner", "mine", planner)
    assert repr(spec) == "GateSpec(kind='planner', items=7, <options hidden>)"
    claims = GateDeclaration(claims=Path(f"/{CANARY}/c.json"))
    hidden = GateSpec("claims", "x", claims)
    for shown in (repr(hidden), str(hidden), repr(claims), repr(planner)):
        assert CANARY not in shown and CANARY.lower() not in shown
    assert repr(claims) == "GateDeclaration(items=1, <options hidden>)"


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_refused_gate_under_showlocals_shows_no_data_path(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    """Its item's setup frame holds the declaration: shown, but only by kind and item count."""
    write_claims_project(
        pytester.path,
        f'[[claims]]\nname = "notes"\nclaims = "{CANARY}/claims.json"\n'
        f'evidence = "{CANARY}/gone.jsonl"\nresamples = 50\nmax_unsupported_rate = 0.01\n',
    )
    data = pytester.mkdir(CANARY)
    (pytester.path / "claims.json").rename(data / "claims.json")
    result = pytester.runpytest_subprocess(*workers, "--fulltrace", "--showlocals", "--tb=long")
    result.assert_outcomes(errors=1)
    output = result.stdout.str() + result.stderr.str()
    assert "GateSpec(kind='claims', items=1, <options hidden>)" in output
    assert CANARY not in output
