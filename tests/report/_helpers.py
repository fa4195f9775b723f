"""A project with passing, failing, waived and suppressed gates: its files and its run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_openmed.development import (
    ALL_TRUE,
    development_pack,
    simulate_review,
    simulated_reviewer,
)
from tests.plugin._helpers import CANARY as CANARY  # the project's planted canary
from tests.plugin._helpers import NOTES_MEDICATION_GATE

KEY = "k" * 24 + "-CANARYKEY-" + "k" * 8  # at least 32 bytes; must never be shown
WAIVED = "gates.openmed.toml::claims(labs)::overall"
CLAIMS_GATES = (
    NOTES_MEDICATION_GATE
    + '[[claims]]\nname = "labs"\nclaims = "claims.json"\nevidence = "evidence.jsonl"\n'
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


def run_pytest(root: Path, *args: str) -> str:
    """pytest with the plugin run in ``root`` (a subprocess, the key in its environment); its output."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environ["OPENMED_TEST_KEY"] = KEY
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:benchmark",
            "-p",
            "openmed",
            *args,
        ],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return result.stdout + result.stderr


@dataclass(frozen=True)
class MixedRun:
    path: Path
    report: dict[str, Any]
    html: str
    html_path: Path
    output: str
