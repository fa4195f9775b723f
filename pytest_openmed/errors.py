"""The one error model of pytest-openmed.

Every error the package raises derives from :class:`OpenmedError`, whose
message is fixed and value-free: it may name a file, key, line or limit, never
the offending value, a key, an identifier or source text.  Each family keeps
its builtin base (``ValueError`` or ``TypeError``), so ``except ValueError``
clauses written against earlier releases keep working, and the plugin catches
one type.  Standard library only (it imports nothing at all), so the contract
and the plugin may import it at load time.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = [
    "EXTRAS",
    "AssetTooLarge",
    "ComponentError",
    "CorruptAsset",
    "DecodedSizeTooLarge",
    "InputRefused",
    "InvalidArgument",
    "LimitExceeded",
    "OpenmedError",
    "UnsupportedAsset",
    "UsageError",
    "argparse_refusal",
    "missing_extra",
    "missing_extra_text",
    "names_a_missing_extra",
    "plural",
    "shown_name",
]


class OpenmedError(Exception):
    """Root of every pytest-openmed error; the message is fixed and value-free.

    Catch this to handle any refusal of the package; the message says what to
    fix (which file, key or line), never the value that was refused.
    """


class InputRefused(OpenmedError, ValueError):
    """An input was refused before it was evaluated; fix the input and run again."""


class InvalidArgument(OpenmedError, TypeError):
    """An argument is not of the documented type; pass the type the API documents."""


class LimitExceeded(InputRefused):
    """An input exceeds a documented limit; nothing was truncated: split or shrink the input."""


class UsageError(InputRefused):
    """A command line was refused; run the command with ``--help`` for its usage.

    ``missing`` names the arguments the command line lacked (the parser's own
    option names and metavars, never a value), or is empty.
    """

    def __init__(self, missing: str = "") -> None:
        super().__init__(f"missing: {missing}" if missing else "invalid arguments")
        self.missing = missing


#: How argparse starts the message naming required arguments that were not given.
_ARGPARSE_REQUIRED = "the following arguments are required: "


def argparse_refusal(message: str) -> UsageError:
    """The :class:`UsageError` for an argparse ``error(message)``.

    Only a missing-arguments message is kept (it names options and metavars
    of the parser); any other may quote a value and is dropped.
    """
    if message.startswith(_ARGPARSE_REQUIRED):
        return UsageError(message.removeprefix(_ARGPARSE_REQUIRED))
    return UsageError()


class RefusingParser(argparse.ArgumentParser):
    """The argument parser of the console scripts: a refused command line is a :class:`UsageError`.

    argparse would print a message that may quote a value and exit; only the
    missing arguments' names are kept (:func:`argparse_refusal`).
    """

    def error(self, message: str) -> NoReturn:
        raise argparse_refusal(message)


class ComponentError(InputRefused):
    """Base of every error a component raises on bad input; check the asset's format.

    Messages are fixed strings: they never carry asset bytes, library
    exception text or paths.
    """


class AssetTooLarge(ComponentError):
    """The asset exceeds the component asset limit or a declared size limit; nothing was decoded."""


class DecodedSizeTooLarge(AssetTooLarge):
    """The header declares more pixels than one component run decodes; nothing was decoded."""


class UnsupportedAsset(ComponentError):
    """The asset is well formed but not of a kind this component reads."""


class CorruptAsset(ComponentError):
    """The asset claims a supported format but cannot be decoded."""


#: The generic families, shown under their builtin name: engines raised plain
#: ``ValueError``/``TypeError`` before this error model existed, and the texts
#: users see (``... input refused: ValueError: ...``) do not change.
_SHOWN_AS_BUILTIN: dict[type[BaseException], str] = {
    InputRefused: "ValueError",
    LimitExceeded: "ValueError",
    InvalidArgument: "TypeError",
}


def shown_name(error: BaseException) -> str:
    """The class name a refusal shows: its own, or the builtin name of a generic family."""
    return _SHOWN_AS_BUILTIN.get(type(error), type(error).__name__)


def plural(count: int, noun: str) -> str:
    """``1 gate``, ``2 gates``: the one place a count meets its noun (terminal, console scripts)."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


#: The optional extras of ``pyproject.toml`` the package imports from: per extra, each
#: top-level module it provides and that module's distribution.  The one place this is
#: written down: the missing-dependency errors name an extra from it, and the extras table
#: of docs/quickstart.md shows it (a test keeps the page, this table and pyproject.toml
#: equal).  ``numpy`` is also a core dependency; it is here so a broken install still
#: names an install command.  The ``docs`` and ``dev`` extras are never imported.
EXTRAS: dict[str, dict[str, str]] = {
    "imaging": {
        "PIL": "Pillow",
        "numpy": "numpy",
        "pydicom": "pydicom",
        "scipy": "scipy",
        "tifffile": "tifffile",
    },
    # mcp-types and anyio are installed by mcp itself.
    "mcp": {"anyio": "anyio", "mcp": "mcp", "mcp_types": "mcp-types", "uvicorn": "uvicorn"},
    "strategies": {"hypothesis": "hypothesis"},
}

#: How every missing-dependency message ends (after ``… needs <distribution>``).
_MISSING_EXTRA = ", which is not installed: pip install 'pytest-openmed[{extra}]'"


def missing_extra(error: ImportError) -> tuple[str, str] | None:
    """``(distribution, extra)`` when ``error`` says a module of an optional extra is missing.

    Only the module's name is read (``ImportError.name``), never its message.
    """
    module = (error.name or "").partition(".")[0]
    for extra, modules in EXTRAS.items():
        if module in modules:
            return modules[module], extra
    return None


def missing_extra_text(subject: str, error: ImportError) -> str | None:
    """``<subject> needs <distribution>, which is not installed: pip install …``, or None."""
    found = missing_extra(error)
    if found is None:
        return None
    distribution, extra = found
    return f"{subject} needs {distribution}" + _MISSING_EXTRA.format(extra=extra)


def names_a_missing_extra(text: str) -> bool:
    """Whether ``text`` is a missing-dependency message (a shared outcome is kept as text)."""
    return any(text.endswith(_MISSING_EXTRA.format(extra=extra)) for extra in EXTRAS)
