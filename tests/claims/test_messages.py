"""The fixed message set, and the package's light import."""

from __future__ import annotations

from pytest_openmed.claims import messages
from tests._imports import modules_after


def test_messages_are_fixed_distinct_sentences() -> None:
    constants = {
        name: value
        for name, value in vars(messages).items()
        if name.isupper() and isinstance(value, str)
    }
    assert set(constants.values()) == messages.MESSAGES
    assert len(constants) == len(messages.MESSAGES) > 40
    for message in messages.MESSAGES:
        assert "{" not in message and "%" not in message
        assert message == message.strip() and message[0].islower()


def test_importing_the_claims_package_does_not_import_numpy() -> None:
    loaded = modules_after("import pytest_openmed.claims, pytest_openmed.claims._gate")
    assert loaded.isdisjoint({"numpy", "jsonschema"})
