"""The API reference builds offline and lists exactly the public names of each public package.

Builds the docs site with ``mkdocs build --strict`` (mkdocstrings reads the
source statically; no inventory, so no network) and compares the anchors of
each ``::: module`` section of ``docs/api.md`` with that module's ``__all__``.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API_PAGE = ROOT / "docs" / "api.md"
DOCUMENTED = re.findall(r"^::: ([\w.]+)$", API_PAGE.read_text(encoding="utf-8"), flags=re.M)


def public_packages() -> list[str]:
    """``pytest_openmed`` and its public subpackages that export names.

    ``pytest_openmed.plugin`` is pytest's entry point: the names it exports are
    fixtures, documented on the fixtures page, not an importable API.
    """
    found = ["pytest_openmed"]
    for init in sorted((ROOT / "pytest_openmed").glob("*/__init__.py")):
        name = init.parent.name
        if name == "plugin":
            continue
        if not name.startswith("_") and "__all__" in init.read_text(encoding="utf-8"):
            found.append(f"pytest_openmed.{name}")
    return sorted(found)


@pytest.fixture(scope="module")
def anchors(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    return set(re.findall(r'id="(pytest_openmed[\w.]*)"', page))


def test_every_public_package_is_documented() -> None:
    assert sorted(DOCUMENTED) == public_packages()


@pytest.mark.parametrize("module", DOCUMENTED)
def test_exactly_the_public_names_are_listed(module: str, anchors: set[str]) -> None:
    shown = {
        anchor.removeprefix(f"{module}.")
        for anchor in anchors
        if anchor.startswith(f"{module}.") and anchor not in DOCUMENTED
    }
    members = {name for name in shown if "." not in name}
    assert members == set(importlib.import_module(module).__all__)
