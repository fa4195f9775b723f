"""Every multimodal error joins the package's one error model and stays a ValueError."""

from __future__ import annotations

import inspect

import pytest

from pytest_openmed.errors import OpenmedError
from pytest_openmed.multimodal import MultimodalError, ValidationPack, errors


def _error_classes() -> list[type[BaseException]]:
    return [
        value
        for _, value in inspect.getmembers(errors, inspect.isclass)
        if issubclass(value, BaseException) and value.__module__ == errors.__name__
    ]


def test_multimodal_error_is_an_openmed_error_and_a_value_error() -> None:
    assert issubclass(MultimodalError, OpenmedError)
    assert issubclass(MultimodalError, ValueError)


@pytest.mark.parametrize("error", _error_classes(), ids=lambda e: e.__name__)
def test_every_engine_error_derives_from_the_multimodal_root(error: type[BaseException]) -> None:
    assert issubclass(error, MultimodalError)
    assert issubclass(error, OpenmedError) and issubclass(error, ValueError)


def test_one_except_clause_catches_a_refused_stored_document() -> None:
    with pytest.raises(OpenmedError) as caught:
        ValidationPack.from_dict({"schema": "something else"})
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == "the stored document is not of the expected type"


def test_the_engine_families_are_the_packages_families() -> None:
    """One ``except`` clause per family: an exceeded pack limit is the package's LimitExceeded."""
    from pytest_openmed import errors
    from pytest_openmed.multimodal.errors import InvalidInput, LimitExceeded, MediaTypeRefused

    assert issubclass(InvalidInput, errors.InputRefused)
    assert issubclass(MediaTypeRefused, errors.InputRefused)
    assert issubclass(LimitExceeded, errors.LimitExceeded)
    assert errors.shown_name(LimitExceeded()) == "LimitExceeded"
