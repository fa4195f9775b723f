"""pytest hooks of pytest-openmed (work in progress)."""
