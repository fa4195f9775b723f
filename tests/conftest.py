"""Suite-wide test setup."""

from __future__ import annotations

import numpy  # noqa: F401
import pytest

# pytester's in-process runs restore ``sys.modules`` afterwards, so anything
# first imported inside one is imported again by the next; numpy's C core
# refuses that.  Loading it (and the engine that uses it) here keeps it loaded.
import pytest_openmed.claims.bootstrap  # noqa: F401


@pytest.fixture(autouse=True)
def _isolate_pytester_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep unrelated installed plugins out of runs driven by ``pytester``.

    pytest-benchmark (present on some machines) warns under xdist, and this
    suite turns warnings into errors; runs that exercise our plugin should not
    depend on what else happens to be installed.
    """
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS when it starts
        monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:benchmark")
