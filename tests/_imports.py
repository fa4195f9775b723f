"""What a fresh interpreter has imported: the one probe of the tests that keep imports cheap."""

from __future__ import annotations

import json
import subprocess
import sys

__all__ = ["HEAVY", "modules_after"]

#: Third-party packages slow to import: the plugin, the carriers and the engine packages
#: import none of them until a check needs it.
HEAVY = frozenset({"numpy", "PIL", "pydicom", "tifffile", "jsonschema", "scipy"})


def modules_after(code: str) -> frozenset[str]:
    """The names in ``sys.modules`` once a fresh interpreter has run ``code``."""
    probe = f"{code}\nimport json as _json, sys as _sys\nprint(_json.dumps(sorted(_sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return frozenset(json.loads(done.stdout.splitlines()[-1]))
