"""The one error model of pytest-openmed.

PYTEST_DONT_REWRITE

Every error the package raises derives from :class:`OpenmedError`, whose
message is fixed and value-free: it may name a file, key, line or limit, never
the offending value, a key, an identifier or source text.  Each family keeps
its builtin base (``ValueError``), so ``except ValueError`` clauses written
against earlier releases keep working, and the plugin catches one type.
"""

from __future__ import annotations

__all__ = [
    "AssetTooLarge",
    "ComponentError",
    "CorruptAsset",
    "DecodedSizeTooLarge",
    "InputRefused",
    "OpenmedError",
    "UnsupportedAsset",
]


class OpenmedError(Exception):
    """Root of every pytest-openmed error; the message is fixed and value-free."""


class InputRefused(OpenmedError, ValueError):
    """An input was refused before it was evaluated; fix the input and run again."""


class ComponentError(InputRefused):
    """Base of every error a component raises on bad input.

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
