"""Generated cases for the component tests: one source and its outputs under both configurations.

Every component is scored the same way, against the truth its generator
recorded, under ``CONFIG_A`` and ``CONFIG_B``; a test module binds its
component once (``class Case(ComponentCase): component = burned_in``) and
computes each case once, in a module-scoped fixture.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

from pytest_openmed.components._base import ComponentOutput
from pytest_openmed.development.sources import GeneratedSource

__all__ = ["ComponentCase"]


class ComponentCase:
    """One generated source and its outputs under both configurations (computed once)."""

    #: The component module: its ``run``, ``CONFIG_A`` and ``CONFIG_B``.
    component: ClassVar[ModuleType]

    def __init__(self, source: GeneratedSource) -> None:
        self.source = source
        self.truth: Mapping[str, Any] = source.truth
        self.a: ComponentOutput = self.component.run(source.asset, self.component.CONFIG_A)
        self.b: ComponentOutput = self.component.run(source.asset, self.component.CONFIG_B)

    def outputs(self) -> tuple[ComponentOutput, ComponentOutput]:
        return (self.a, self.b)
