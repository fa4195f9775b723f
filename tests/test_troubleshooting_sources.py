"""troubleshooting.md lists every fixed message of the package, complete by construction.

The package's source is read with :mod:`ast`, never a list kept here: the
message of every error the package can show (its error model, the
plugin's pytest outcomes, ``OSError`` texts, which gates show as refusals)
built from a constant, an f-string, a concatenation or a module constant;
both wordings of every gate-file ``Expected``; and every constant of a
``messages`` module.  An f-string's values become placeholders: the page may
show them as ``<n>``, ``…`` or the value itself, on the same line.  A message
with no fixed text of its own (``f"{label}: {error}"``) is not listed.  Plain
builtin errors other than ``OSError`` are programming errors whose text the
plugin withholds ("failed unexpectedly … withheld"), so they are not listed.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

import pytest_openmed
from pytest_openmed.errors import OpenmedError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_openmed"
PAGE = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
#: Where an f-string's value stood.
HOLE = "\x00"


def _shown_classes() -> set[str]:
    """Names of the exception classes whose text a user is shown."""
    shown = {"OSError", "CollectError", "UsageError", "fail", "Expected"}
    for info in pkgutil.walk_packages(pytest_openmed.__path__, "pytest_openmed."):
        if info.name.endswith(".__main__"):  # importing it would run the CLI
            continue
        for name, cls in inspect.getmembers(importlib.import_module(info.name), inspect.isclass):
            if not cls.__module__.startswith("pytest_openmed."):
                continue
            # The error model, and the plugin's pytest outcomes (pytest.fail.Exception).
            if issubclass(cls, OpenmedError) or cls.__module__.startswith("pytest_openmed.plugin"):
                if issubclass(cls, BaseException):
                    shown.add(name)
    return shown


SHOWN = _shown_classes()


def _module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and node.value is not None:
                found[target.id] = node.value
    return found


def skeleton(node: ast.expr, constants: Mapping[str, ast.expr], depth: int = 0) -> str | None:
    """The fixed text of a message expression, :data:`HOLE` for each value; None if none."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else HOLE for part in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = skeleton(node.left, constants, depth)
        right = skeleton(node.right, constants, depth)
        if left is None and right is None:
            return None
        return (HOLE if left is None else left) + (HOLE if right is None else right)
    if isinstance(node, ast.Name) and node.id in constants and depth < 4:
        return skeleton(constants[node.id], constants, depth + 1)
    return None


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


#: Helpers that raise a caller's fixed message: the message's position and keyword.
MESSAGE_HELPERS = {
    "check_bounds": (5, "message"),
    "materialise": (2, "message"),
    "bounded": (2, "refuse"),
}


def _helper_message(node: ast.Call) -> ast.expr | None:
    """The message argument of a call to one of :data:`MESSAGE_HELPERS`, if any."""
    position, keyword = MESSAGE_HELPERS[_called_name(node)]
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def _messages_of(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    constants = _module_constants(tree)
    if path.stem == "messages":  # every string constant of a messages module
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) not in docstrings:
                    yield node.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in MESSAGE_HELPERS:
            message = _helper_message(node)
            text = None if message is None else skeleton(message, constants)
            if text is not None:
                yield text
            continue
        if not isinstance(node, ast.Call) or _called_name(node) not in SHOWN:
            continue
        arguments = node.args[:2] if _called_name(node) == "Expected" else node.args[:1]
        for argument in arguments:
            text = skeleton(argument, constants)
            if text is not None:
                yield text.replace("{key}", HOLE)


def has_fixed_text(text: str) -> bool:
    """At least two words of three letters or more outside the values."""
    return len(re.findall(r"[A-Za-z]{3,}", text.replace(HOLE, " "))) >= 2


def fixed_messages() -> dict[str, list[str]]:
    """``{skeleton: [where it is built, …]}`` of every fixed message in the package."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for text in _messages_of(path):
            if has_fixed_text(text):
                found.setdefault(text, []).append(where)
    return found


def documented(text: str, page: str = PAGE) -> bool:
    """Whether ``page`` shows ``text``, any value standing on the same line."""
    pattern = "[^\n]+?".join(re.escape(fragment) for fragment in text.split(HOLE))
    return re.search(pattern, page) is not None


MESSAGES = fixed_messages()


def test_the_scan_finds_the_messages() -> None:
    """Every kind of source is read, so the test below cannot pass by finding nothing."""
    assert "thresholds and scales must be positive" in MESSAGES  # a constant
    assert "fractional thresholds must be floats in [0, 1]" in MESSAGES  # a helper's message
    assert f"{HOLE} must be a 'sha256:' digest of 64 lowercase hex digits" in MESSAGES  # f-string
    assert "must be true or false" in MESSAGES  # an Expected wording
    assert "could not write the requested output file" in MESSAGES  # an OSError
    assert len(MESSAGES) > 400
    assert not has_fixed_text(f"{HOLE}: {HOLE}")


def test_placeholders_match_any_value_on_one_line() -> None:
    text = f"too many claims: the limit is {HOLE} per evaluation"
    assert documented(text, "* `too many claims: the limit is <n> per evaluation`")
    assert documented(text, "* `too many claims: the limit is 100,000 per evaluation`")
    assert not documented(text, "too many claims: the limit is\n100,000 per evaluation")


@pytest.mark.parametrize("text", sorted(MESSAGES), ids=lambda text: text.replace(HOLE, "<…>")[:60])
def test_every_fixed_message_is_documented(text: str) -> None:
    assert documented(text), (text.replace(HOLE, "<…>"), MESSAGES[text])
