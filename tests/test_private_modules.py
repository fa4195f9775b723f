"""Only public modules declare ``__all__``.

Public API = the names exported from a package ``__init__`` (docs/api.md), so
a private module (a path part starting with ``_``, or a ``plugin/`` module
other than the entry point ``plugin/__init__.py``, which re-exports the
fixtures) lists no exports that would read like a promise.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent

#: Private modules that keep ``__all__`` because a checker needs it.
NEEDED = {
    # Re-exports the component errors from errors.py to the component modules;
    # mypy --strict (no implicit re-export) needs the explicit list.
    "components/_base.py": "mypy",
}


def is_private(relative: Path) -> bool:
    parts = relative.with_suffix("").parts
    if parts[0] == "plugin" and parts[-1] != "__init__":
        return True
    return any(part.startswith("_") and not part.startswith("__") for part in parts)


def declares_all(path: Path) -> bool:
    tree = ast.parse(path.read_bytes())
    return any(
        isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        and any(
            isinstance(target, ast.Name) and target.id == "__all__"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for node in tree.body
    )


def test_no_private_module_declares_all() -> None:
    private = [p.relative_to(PACKAGE) for p in sorted(PACKAGE.rglob("*.py"))]
    private = [p for p in private if is_private(p)]
    assert len(private) >= 10  # the walk found the private modules
    offenders = [
        str(p) for p in private if p.as_posix() not in NEEDED and declares_all(PACKAGE / p)
    ]
    assert offenders == []


def test_the_rule_tells_private_from_public_modules() -> None:
    assert is_private(Path("_canonical.py")) and is_private(Path("claims/_gate.py"))
    assert is_private(Path("plugin/items.py")) and not is_private(Path("plugin/__init__.py"))
    assert not is_private(Path("multimodal/__init__.py")) and not is_private(
        Path("claims/scoring.py")
    )
    assert not is_private(Path("planner/__main__.py"))


def test_the_check_sees_every_form_of_all(tmp_path: Path) -> None:
    for source in ('__all__ = ["a"]\n', '__all__: list[str] = ["a"]\n', "__all__ += ['a']\n"):
        (tmp_path / "m.py").write_text(source)
        assert declares_all(tmp_path / "m.py")
    (tmp_path / "m.py").write_text("def f():\n    __all__ = []\n")
    assert not declares_all(tmp_path / "m.py")


def test_every_exception_is_still_a_private_module_with_all() -> None:
    # An exception whose file moved or lost its __all__: remove its entry.
    stale = [p for p in NEEDED if not (PACKAGE / p).is_file() or not declares_all(PACKAGE / p)]
    assert stale == []
