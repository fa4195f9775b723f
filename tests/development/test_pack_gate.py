"""``[[pack]]`` gates over stored packs and reviews: blocked, hold and pass; refusals are errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_openmed.development import (
    ALL_TRUE,
    Rating,
    development_pack,
    simulate_review,
    simulated_reviewer,
)
from pytest_openmed.schemas import load_schema

KEY = "k" * 24 + "-CANARYKEY-" + "k" * 8  # at least 32 bytes; must never be printed
DISPUTED = Rating(quality=False, utility=True, privacy=True, provenance=True)


def store(root: Path, task: str, ratings: list[dict[str, Rating]]) -> None:
    pack = development_pack(task)
    (root / "pack.json").write_text(json.dumps(pack.to_dict()))
    for number, given in enumerate(ratings, start=1):
        review = simulate_review(
            pack, simulated_reviewer(f"r{number}", pack.task), key=KEY.encode(), ratings=given
        )
        (root / f"mapping-{number}.json").write_text(json.dumps(review.prepared.mapping.to_dict()))
        (root / f"review-{number}.json").write_text(json.dumps(review.to_dict()))
    items = "\n".join(
        f'[[pack]]\nname = "{task}"\npack = "pack.json"\n'
        f'mappings = ["mapping-1.json", "mapping-2.json"]\n'
        f'reviews = ["review-1.json", "review-2.json"]\ncandidate = "{candidate}"\n'.replace(
            f'name = "{task}"', f'name = "{task}-{candidate}"'
        )
        for candidate in ("config-a", "config-b")
    )
    (root / "gates.openmed.toml").write_text(items)


@pytest.fixture
def keyed(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("OPENMED_TEST_KEY", KEY)
    return pytester


def test_stored_reviews_pass_and_block_as_they_dictate(keyed: pytest.Pytester) -> None:
    store(keyed.path, "burned_in", [{"config-a": ALL_TRUE, "config-b": ALL_TRUE}] * 2)
    result = keyed.runpytest(
        "-p",
        "openmed",
        "--openmed-key-env",
        "OPENMED_TEST_KEY",
        "--openmed-report",
        "r.json",
        "-rA",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "decision blocked: a privacy or provenance rating failed; openmed pack gate: blocked (safety); "
            "adjudications=0, review_origin=development_simulation, reviews=2, units=1"
        ]
    )
    document = json.loads((keyed.path / "r.json").read_text())
    import jsonschema

    jsonschema.validate(document, load_schema("gate-report"))
    assert [(g["nodeid"].rsplit("::", 1)[1], g["status"]) for g in document["gates"]] == [
        ("config-a", "passed"),
        ("config-b", "blocked"),
    ]
    assert "CANARYKEY" not in result.stdout.str() + (keyed.path / "r.json").read_text()


def test_unresolved_disagreement_holds(keyed: pytest.Pytester) -> None:
    store(
        keyed.path,
        "ecg_intervals",
        [
            {"config-a": ALL_TRUE, "config-b": ALL_TRUE},
            {"config-a": ALL_TRUE, "config-b": DISPUTED},
        ],
    )
    result = keyed.runpytest("-p", "openmed", "--openmed-key-env", "OPENMED_TEST_KEY")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "decision hold: *; openmed pack gate: hold (disagreement); adjudications=0, review_origin=development_simulation, reviews=2, units=1"
        ]
    )


def test_a_wrong_key_is_an_error_with_a_fixed_message(
    keyed: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(keyed.path, "forms", [{"config-a": ALL_TRUE, "config-b": ALL_TRUE}] * 2)
    monkeypatch.setenv("OPENMED_TEST_KEY", "x" * 40)
    result = keyed.runpytest("-p", "openmed", "--openmed-key-env", "OPENMED_TEST_KEY")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["openmed pack gate input refused: WrongKey: *"])


def test_missing_key_configuration_is_an_error_that_says_what_to_do(keyed: pytest.Pytester) -> None:
    store(keyed.path, "forms", [{"config-a": ALL_TRUE, "config-b": ALL_TRUE}] * 2)
    result = keyed.runpytest("-p", "openmed")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*set --openmed-key-env*"])


def test_evidence_changed_after_review_is_refused(keyed: pytest.Pytester) -> None:
    store(keyed.path, "forms", [{"config-a": ALL_TRUE, "config-b": ALL_TRUE}] * 2)
    # Re-store the pack built from another seed: the reviews now describe a pack that no longer exists.
    from dataclasses import replace

    from pytest_openmed.development.packs import DEVELOPMENT_SOURCES, build_pack

    changed = build_pack("forms", (replace(DEVELOPMENT_SOURCES["forms"], seed=1),))
    (keyed.path / "pack.json").write_text(json.dumps(changed.to_dict()))
    result = keyed.runpytest("-p", "openmed", "--openmed-key-env", "OPENMED_TEST_KEY")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["openmed pack gate input refused: *"])
    assert "Traceback" not in result.stdout.str()
