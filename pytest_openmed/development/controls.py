"""The built-in development control gates (``--openmed-controls``).

PYTEST_DONT_REWRITE

Controls are regression checks on wholly synthetic data: each control item
states the outcome its engine must reach (a known-bad planner must be found
``critical``; a candidate with a privacy failure must be ``blocked``) and
passes when the engine reaches exactly that outcome.  A healthy install
therefore exits 0 while showing blocked, held and satisfied verdicts.  This
module only declares the controls; engines load when the items run.
"""

from __future__ import annotations

from pathlib import Path

from pytest_openmed.gatefile import GateSpec
from pytest_openmed.gates import GateStatus

__all__ = ["CLAIMS_EXAMPLE", "control_specs"]

#: Bundled synthetic claims/evidence used by the claims control.
CLAIMS_EXAMPLE = Path(__file__).parent / "claims_example"


def control_specs() -> tuple[GateSpec, ...]:
    """Every control gate, in a fixed order."""
    return (*_claims_controls(), *_planner_controls())


def _planner_controls() -> tuple[GateSpec, ...]:
    from pytest_openmed.gatefile import planner_spec
    from pytest_openmed.planner.controls import CONTROLS

    specs = []
    for control in CONTROLS:
        spec = planner_spec(control.reference, name=control.name.removesuffix("_planner"))
        specs.append(
            GateSpec(
                kind=spec.kind,
                name=spec.name,
                items=spec.items,
                options=spec.options,
                expected=control.expected,
            )
        )
    return tuple(specs)


def _claims_controls() -> tuple[GateSpec, ...]:
    """The bundled example: 14 claims, 7 unsupported (see ``claims_example``).

    Overall and diagnosis stay within generous thresholds; vital (3 of 3
    unresolved) breaches its rate threshold and medication (1 of 4) breaches
    its interval-upper threshold, so both rules are exercised.
    """
    options = {
        "claims": CLAIMS_EXAMPLE / "claims.json",
        "evidence": CLAIMS_EXAMPLE / "evidence.json",
        "seed": 0,
        "resamples": 1000,
        "alpha": 0.05,
        "thresholds": {"max_unsupported_rate": 0.6},
        "classes": {
            "diagnosis": {"max_unsupported_rate": 0.6},
            "medication": {"max_upper": 0.5},
            "vital": {"max_unsupported_rate": 0.5},
        },
    }
    return (
        GateSpec(
            kind="claims",
            name="example",
            items=("overall", "class[diagnosis]", "class[medication]", "class[vital]"),
            options=options,
            expected={
                "class[medication]": GateStatus.THRESHOLD,
                "class[vital]": GateStatus.THRESHOLD,
            },
        ),
    )
