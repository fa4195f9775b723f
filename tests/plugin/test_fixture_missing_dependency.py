"""A fixture that needs the imaging extra says so, as the documented missing dependency."""

from __future__ import annotations

import pytest

CANARY = "QQFIXTURECANARY"

BLOCK = """
import sys

for name in ("numpy", "PIL", "pydicom", "tifffile", "scipy"):
    sys.modules[name] = None  # as if the imaging extra were not installed
"""


def test_development_pack_without_the_imaging_extra_is_a_missing_dependency(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(BLOCK)
    pytester.makepyfile(
        f"def test_it(development_pack):\n    {CANARY.lower()} = 1\n"
        '    development_pack("dicom_frames")\n'
    )
    result = pytester.runpytest_subprocess("--showlocals", "--tb=long")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*openmed pack gate needs *, which is not installed: pip install 'pytest-openmed*imaging*'"
        ]
    )
    output = result.stdout.str()
    assert "ModuleNotFoundError" not in output and "Traceback" not in output
