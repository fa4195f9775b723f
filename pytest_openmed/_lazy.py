"""Lazy public surfaces of packages (PEP 562): a name loads its module on first use.

An engine package's ``__init__`` lists its exported names in ``__all__``,
imports them under ``TYPE_CHECKING`` (for type checkers and the API
reference, which read the source) and maps each to the module that defines
it.  Importing one leaf module, such as ``pytest_openmed.multimodal.vocabulary``,
then loads only what that module imports, and not every sibling module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping


def lazy_surface(
    package: str, homes: Mapping[str, Iterable[str]], public: Iterable[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``.

    ``homes`` maps a module (relative to ``package`` when it starts with a
    dot) to the names it defines; ``public`` is the package's ``__all__``:
    every name in it is either homed or defined by the package itself (the
    tests check that each one resolves).
    """
    where = {name: module for module, names in homes.items() for name in names}
    exported = sorted(public)

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # Not cached on the package: a name always resolves to the module now in
        # ``sys.modules``, also after a test harness dropped and re-imported it.
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exported})

    return __getattr__, __dir__
