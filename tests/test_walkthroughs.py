"""The walkthroughs run as written: every file, command, exit code and output line shown.

Each ``## `` section of ``docs/walkthroughs.md`` is followed in its own empty
temporary directory: a block after ``Save as `PATH`:`` is written to PATH, a
``bash`` block after ``Run (exit code N):`` is run with ``bash`` and must exit
N, and every line of the ``text`` block after it must occur in its output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "walkthroughs.md"
_BLOCK = re.compile(r"(?P<lead>[^\n]*)\n\n```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
_SAVE = re.compile(r"^Save as `(?P<path>[^`]+)`:$")
_RUN = re.compile(r"^Run \(exit code (?P<code>\d+)\):$")


@dataclass(frozen=True, slots=True)
class Step:
    """One block of a walkthrough: a file to save, a command to run or output to expect."""

    action: str  # "save", "run" or "expect"
    body: str
    target: str = ""
    code: int = 0


def walkthroughs() -> dict[str, list[Step]]:
    sections: dict[str, list[Step]] = {}
    for section in re.split(r"^## ", PAGE.read_text(encoding="utf-8"), flags=re.M)[1:]:
        title, _, text = section.partition("\n")
        steps = []
        for match in _BLOCK.finditer(text):
            lead = match["lead"].strip()
            if saved := _SAVE.match(lead):
                steps.append(Step("save", match["body"], target=saved["path"]))
            elif ran := _RUN.match(lead):
                assert match["lang"] == "bash"
                steps.append(Step("run", match["body"], code=int(ran["code"])))
            elif match["lang"] == "text" and steps and steps[-1].action == "run":
                steps.append(Step("expect", match["body"]))
        if steps:
            sections[title.strip()] = steps
    return sections


WALKTHROUGHS = walkthroughs()


def test_every_gate_kind_has_an_executed_walkthrough() -> None:
    titles = " ".join(WALKTHROUGHS)
    for kind in ("Claims", "Planner", "Pack"):
        assert kind in titles
    for steps in WALKTHROUGHS.values():
        assert any(step.action == "run" for step in steps)
        assert any(step.action == "expect" for step in steps)


@pytest.mark.parametrize("title", sorted(WALKTHROUGHS))
def test_walkthrough_runs_as_written(title: str, tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "OPENMED_")) and key != "PYTHONPATH"
    }
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    output = ""
    for step in WALKTHROUGHS[title]:
        if step.action == "save":
            target = tmp_path / step.target
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.body, encoding="utf-8")
        elif step.action == "run":
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", step.body],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            output = done.stdout + done.stderr
            assert done.returncode == step.code, output
        else:
            for line in step.body.strip().splitlines():
                assert line in output, (line, output)
