"""Shared helpers of the tests of the plugin's file readers (gate files, waivers, baselines)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def file_writer(name: str) -> Callable[[Path, str], Path]:
    """``write(directory, text)``: ``text`` written to the file ``name`` in ``directory``; its path."""

    def write(directory: Path, text: str) -> Path:
        path = directory / name
        path.write_text(text)
        return path

    return write


def read_or_refuse(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    text: str,
    read: Callable[[Path], object],
    refusal: type[Exception],
) -> None:
    """``read`` a file holding ``text``: it is read, or refused with ``refusal`` and nothing else."""
    path = tmp_path_factory.mktemp("file") / name
    path.write_bytes(text.encode("utf-8", errors="replace"))
    try:
        read(path)
    except refusal:
        pass
