"""Every fixed message the package can emit is on the troubleshooting page.

Read from the sources, never from a list kept here: the claims engine's
message table, and the message of every error class that takes no argument
(its text is fixed by construction).  A message added later fails this test
until it is documented.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import pytest_openmed
from pytest_openmed.claims import messages
from pytest_openmed.errors import OpenmedError

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")


def _fixed_error_messages() -> dict[str, str]:
    """``{qualified class name: message}`` of each error class constructible without arguments."""
    found = {}
    for info in pkgutil.walk_packages(pytest_openmed.__path__, "pytest_openmed."):
        if info.name.endswith(".__main__"):  # importing it would run the CLI
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != info.name or not issubclass(cls, OpenmedError):
                continue
            try:
                text = str(cls())
            except TypeError:  # it takes its message (or a subject): not a fixed text
                continue
            if text and text != "invalid arguments":  # UsageError's own, shown by the scripts
                found[f"{info.name}.{cls.__qualname__}"] = text
    return found


FIXED = _fixed_error_messages()


def test_the_sweep_finds_the_fixed_messages() -> None:
    assert "pytest_openmed.report.load.IncompleteRun" in FIXED
    assert "pytest_openmed.planner.cassette.StaleCassetteError" in FIXED
    assert len(messages.MESSAGES) > 50


@pytest.mark.parametrize("name", sorted(FIXED))
def test_every_fixed_error_message_is_documented(name: str) -> None:
    assert FIXED[name] in PAGE, name


@pytest.mark.parametrize("text", sorted(messages.MESSAGES))
def test_every_claims_message_is_documented(text: str) -> None:
    assert f"`{text}`" in PAGE
