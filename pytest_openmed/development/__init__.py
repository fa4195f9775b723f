"""Generated development sources and control packs (test material, non-diagnostic).

PYTEST_DONT_REWRITE
"""
