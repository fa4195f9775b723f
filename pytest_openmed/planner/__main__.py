"""``python -m pytest_openmed.planner``: see :mod:`pytest_openmed.planner.cli`."""

from __future__ import annotations

from pytest_openmed.planner.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
