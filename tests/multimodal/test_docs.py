"""The walkthrough in docs/multimodal.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "multimodal.md"


def test_walkthrough_code_blocks_run_in_order() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {"__name__": "docs_multimodal"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert str(namespace["assessment"].decision) == "rubric_satisfied"  # type: ignore[attr-defined]
