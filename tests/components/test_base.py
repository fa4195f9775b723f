"""The parse boundary every component reads through: typed errors out, library text never."""

from __future__ import annotations

import traceback

import pytest

from pytest_openmed.components._base import (
    AssetTooLarge,
    ComponentError,
    CorruptAsset,
    UnsupportedAsset,
    parse_boundary,
)

CANARY = "CANARY-3b9e-boundary"


def _formatted(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


def test_nothing_raised_passes_through() -> None:
    with parse_boundary("unreadable"):
        value = 1
    assert value == 1


@pytest.mark.parametrize("refusal", [UnsupportedAsset, CorruptAsset, AssetTooLarge])
def test_a_refusal_leaves_unchanged_and_without_the_library_error_it_replaced(
    refusal: type[ComponentError],
) -> None:
    error = refusal("fixed refusal")
    with pytest.raises(refusal) as caught, parse_boundary("unreadable"):
        try:
            raise KeyError(CANARY)
        except KeyError:
            raise error  # noqa: B904 - the boundary is what drops the context
    assert caught.value is error and str(caught.value) == "fixed refusal"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert CANARY not in _formatted(caught.value)


@pytest.mark.parametrize("failure", [ValueError, KeyError, OverflowError, RecursionError, OSError])
def test_any_other_failure_becomes_the_fixed_corrupt_asset(failure: type[Exception]) -> None:
    with pytest.raises(CorruptAsset) as caught, parse_boundary("fixed: unreadable"):
        raise failure(CANARY)
    assert type(caught.value) is CorruptAsset
    assert str(caught.value) == "fixed: unreadable"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert CANARY not in _formatted(caught.value)


def test_interrupts_are_not_swallowed() -> None:
    with pytest.raises(KeyboardInterrupt), parse_boundary("unreadable"):
        raise KeyboardInterrupt


def test_a_library_logger_is_silenced_inside_and_restored_after() -> None:
    import logging

    from pytest_openmed.components._base import LibraryLogSilencer

    logger = logging.getLogger("openmed-test-library")
    logger.setLevel(logging.INFO)
    silencer = LibraryLogSilencer("openmed-test-library")
    with silencer:
        with silencer:  # nested reads restore once, at the end
            assert not logger.isEnabledFor(logging.CRITICAL)
        assert not logger.isEnabledFor(logging.CRITICAL)
    assert logger.level == logging.INFO


def test_tifffile_says_nothing_about_a_truncated_slide(caplog: pytest.LogCaptureFixture) -> None:
    import io
    import logging

    import tifffile

    from pytest_openmed.components import wsi_tiles
    from pytest_openmed.components._base import ComponentError
    from pytest_openmed.development.sources.wsi import generate_wsi_tiles

    truncated = generate_wsi_tiles(0, "nominal", size=512, levels=3).asset[:4000]
    with caplog.at_level(logging.DEBUG):
        with tifffile.TiffFile(io.BytesIO(truncated)) as slide:
            assert slide.series  # tifffile alone logs about the broken tag list
    assert any(record.name == "tifffile" for record in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        try:
            wsi_tiles.run(truncated)
        except ComponentError:
            pass
    assert not [record for record in caplog.records if record.name.startswith("tifffile")]
