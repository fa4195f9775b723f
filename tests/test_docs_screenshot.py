"""The docs' screenshot of the control run's HTML report: a small PNG that carries no machine path."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "img" / "html-report-controls.png"
_TEXT_CHUNKS = {b"tEXt", b"zTXt", b"iTXt", b"eXIf"}


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert zlib.crc32(kind + body) == crc
        chunks.append((kind, body))
        offset += 12 + length
    return chunks


def test_the_screenshot_is_a_small_png_linked_from_the_html_report_page() -> None:
    data = SCREENSHOT.read_bytes()
    assert len(data) < 200 * 1024
    kinds = [kind for kind, _ in _chunks(data)]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND"
    assert "img/html-report-controls.png" in (ROOT / "docs" / "html-report.md").read_text()


def test_no_docs_image_carries_text_metadata_or_a_machine_path() -> None:
    images = sorted((ROOT / "docs").rglob("*.png"))
    assert SCREENSHOT in images
    for image in images:
        data = image.read_bytes()
        assert len(data) < 200 * 1024, image.name
        assert not [kind for kind, _ in _chunks(data) if kind in _TEXT_CHUNKS], image.name
        for marker in (b"/tmp", b"/home", b"/root", b"/work", b"pytest-of", b"file:"):
            assert marker not in data, image.name
