"""Suite-wide test setup."""

from __future__ import annotations

import numpy.fft
import numpy.linalg
import numpy.random
import PIL.Image
import pydicom
import pytest
import scipy.ndimage
import scipy.signal
import tifffile

import pytest_openmed.claims.bootstrap

# pytester's in-process runs restore ``sys.modules`` afterwards, so anything
# first imported inside one is imported again by the next, and C extensions
# (numpy's core and fft, Pillow, scipy) refuse that.  Loading them here keeps
# them loaded for the whole session.
_PRELOADED = (numpy, PIL.Image, pydicom, scipy.ndimage, scipy.signal, tifffile, pytest_openmed)


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
