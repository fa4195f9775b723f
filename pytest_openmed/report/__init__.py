"""Reading, rendering, storing and comparing JSON gate reports.

Everything here works on the JSON gate report alone (schema
``gate-report``), so no output of this package can disclose more than the
report it was given.  Nothing here is imported when the plugin loads.
"""

from __future__ import annotations
