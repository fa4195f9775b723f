"""A project with passing, failing, waived and suppressed gates, and its JSON and HTML reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_openmed.development import (
    ALL_TRUE,
    development_pack,
    simulate_review,
    simulated_reviewer,
)
from tests.plugin.conftest import CANARY, write_claims_project

KEY = "k" * 24 + "-CANARYKEY-" + "k" * 8  # at least 32 bytes; must never be shown
WAIVED = "gates.openmed.toml::claims(labs)::overall"
CLAIMS_GATES = (
    '[[claims]]\nname = "notes"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.2\n"
    "[claims.classes.medication]\nmax_unsupported_rate = 0.1\n"
    '[[claims]]\nname = "labs"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
    "resamples = 200\nmax_unsupported_rate = 0.05\n"
)
#: Every gate of the project, as the reports group them.
GATES = (
    "gates.openmed.toml::claims(notes)",
    "gates.openmed.toml::claims(labs)",
    "pack/gates.openmed.toml::pack(burned_in-config-a)",
    "pack/gates.openmed.toml::pack(burned_in-config-b)",
)


def store_pack(root: Path) -> None:
    """A burned_in development pack with two simulated reviews: config-a passes, config-b blocks."""
    root.mkdir()
    pack = development_pack("burned_in")
    (root / "pack.json").write_text(json.dumps(pack.to_dict()))
    for number in (1, 2):
        review = simulate_review(
            pack,
            simulated_reviewer(f"r{number}", pack.task),
            key=KEY.encode(),
            ratings={"config-a": ALL_TRUE, "config-b": ALL_TRUE},
        )
        (root / f"mapping-{number}.json").write_text(json.dumps(review.prepared.mapping.to_dict()))
        (root / f"review-{number}.json").write_text(json.dumps(review.to_dict()))
    (root / "gates.openmed.toml").write_text(
        "".join(
            f'[[pack]]\nname = "burned_in-{candidate}"\npack = "pack.json"\n'
            'mappings = ["mapping-1.json", "mapping-2.json"]\n'
            f'reviews = ["review-1.json", "review-2.json"]\ncandidate = "{candidate}"\n'
            for candidate in ("config-a", "config-b")
        )
    )


@dataclass(frozen=True)
class MixedRun:
    path: Path
    report: dict[str, Any]
    html: str
    html_path: Path
    output: str


@pytest.fixture(scope="session")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> MixedRun:
    """Run the project once per session (a subprocess) with --openmed-report and --openmed-html."""
    root = tmp_path_factory.mktemp("mixed")
    write_claims_project(root, CLAIMS_GATES)
    store_pack(root / "pack")
    (root / "waivers.toml").write_text(
        f'[[waiver]]\ngate = "{WAIVED}"\nexpires = 2099-12-31\nreference = "TICKET-7"\n'
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environ["OPENMED_TEST_KEY"] = KEY
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:benchmark",
            "-p",
            "no:cacheprovider",
            "-p",
            "openmed",
            "--openmed-key-env=OPENMED_TEST_KEY",
            "--openmed-waivers=waivers.toml",
            "--openmed-report=report.json",
            "--openmed-html=report.html",
        ],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "2 failed, 2 passed, 1 xfailed" in output, output
    html_path = root / "report.html"
    return MixedRun(
        path=root,
        report=json.loads((root / "report.json").read_text()),
        html=html_path.read_text(encoding="utf-8"),
        html_path=html_path,
        output=output,
    )


__all__ = ["CANARY", "GATES", "KEY", "WAIVED", "MixedRun", "mixed_run", "store_pack"]
