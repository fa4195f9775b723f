"""The claims declaration: one constructor checks every field once, each source phrases it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_openmed.claims.declaration import (
    FILE,
    GateDeclaration,
    Thresholds,
    declare,
)
from pytest_openmed.contract import ArgumentSource
from pytest_openmed.plugin.gate_files import GateFileError, parse_gate_file
from pytest_openmed.plugin.markers import MarkerError, claims_marker

from ._helpers import declared


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf"), 10**400])
def test_threshold_values_must_be_rates(bad: object) -> None:
    with pytest.raises(ValueError) as caught:
        declared(max_unsupported_rate=bad)
    assert str(caught.value) == "max_unsupported_rate must be a number from 0 to 1"
    with pytest.raises(ValueError, match="max_upper must be a number from 0 to 1"):
        declared(classes={"lab": {"max_upper": bad}})


@pytest.mark.parametrize("bad", ["0.1", True, [0.1]])
def test_threshold_values_must_be_numbers(bad: object) -> None:
    with pytest.raises(ValueError) as caught:
        declared(max_upper=bad)
    assert str(caught.value) == "max_upper must be a number from 0 to 1"


def test_unknown_class_threshold_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown argument"):
        declared(classes={"lab": {"max_rate": 0.1}})


def test_allow_absent_must_be_a_boolean() -> None:
    with pytest.raises(ValueError, match="allow_absent must be True or False"):
        declared(classes={"lab": {"max_upper": 1, "allow_absent": 1}})


def test_a_class_needs_a_threshold_and_a_normalised_name() -> None:
    with pytest.raises(ValueError, match="class thresholds take"):
        declared(classes={"lab": {"allow_absent": True}})
    with pytest.raises(ValueError, match="normalised claim classes"):
        declared(classes={"Ward Round": {"max_upper": 0.1}})


def test_a_file_declaration_needs_a_threshold_and_a_marker_does_not() -> None:
    inputs = {"claims": Path("c.json"), "evidence": Path("e.json")}
    with pytest.raises(ValueError, match="a claims gate needs a threshold"):
        declare(inputs, ArgumentSource(), FILE)
    assert declared() == GateDeclaration()


def test_the_run_rate_applies_only_where_no_overall_rate_is_set() -> None:
    assert declared().with_run_rate(0.2).overall == Thresholds(max_unsupported_rate=0.2)
    assert declared(max_unsupported_rate=0.1).with_run_rate(0.2).overall.max_unsupported_rate == 0.1
    assert declared().with_run_rate(None) == declared()


def test_a_gate_file_and_a_marker_declare_the_same_thresholds(tmp_path: Path) -> None:
    (tmp_path / "g.openmed.toml").write_text(
        '[[claims]]\nname = "n"\nclaims = "c.json"\nevidence = "e.json"\nmax_upper = 0.3\n'
        "seed = 4\n[claims.classes.lab]\nmax_unsupported_rate = 0.1\nallow_absent = true\n",
        encoding="utf-8",
    )
    (spec,) = parse_gate_file(tmp_path / "g.openmed.toml")
    marker = claims_marker(
        pytest.mark.openmed_claims(
            max_upper=0.3,
            seed=4,
            classes={"lab": {"max_unsupported_rate": 0.1, "allow_absent": True}},
        ).mark
    )
    from_file = spec.declaration
    assert isinstance(from_file, GateDeclaration)
    assert (from_file.overall, dict(from_file.classes), from_file.seed) == (
        marker.overall,
        dict(marker.classes),
        marker.seed,
    )
    assert from_file.items == marker.items == ("overall", "class[lab]")


def test_each_source_phrases_the_same_refusal_in_its_own_words(tmp_path: Path) -> None:
    (tmp_path / "g.openmed.toml").write_text(
        '[[claims]]\nname = "n"\nclaims = "c.json"\nevidence = "e.json"\nmax_upper = 2\n',
        encoding="utf-8",
    )
    with pytest.raises(GateFileError) as in_file:
        parse_gate_file(tmp_path / "g.openmed.toml")
    assert str(in_file.value) == (
        "g.openmed.toml: [[claims]] #1: key 'max_upper' must be a number from 0 to 1"
    )
    with pytest.raises(MarkerError) as in_marker:
        claims_marker(pytest.mark.openmed_claims(max_upper=2).mark)
    assert str(in_marker.value) == "openmed_claims max_upper must be a number from 0 to 1"


@pytest.mark.parametrize(
    "fields",
    [
        {"classes": {"CANARY-label" * 6: {}}},
        {"max_upper": "CANARY-threshold"},
        {"seed": "CANARY-seed"},
    ],
)
def test_a_refused_declaration_echoes_no_value(fields: dict[str, object]) -> None:
    import traceback

    for refuse in (
        lambda: declared(**fields),
        lambda: claims_marker(pytest.mark.openmed_claims(**fields).mark),
    ):
        with pytest.raises(ValueError) as caught:
            refuse()
        shown = "".join(traceback.format_exception(caught.value)) + repr(caught.value)
        assert "CANARY" not in shown


def test_an_unknown_argument_from_python_is_not_echoed() -> None:
    with pytest.raises(ValueError) as caught:
        declared(**{"CANARY-argument": 1})
    assert "CANARY" not in str(caught.value)
