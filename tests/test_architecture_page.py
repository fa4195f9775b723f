"""The architecture page's map of rules points at files that exist.

docs/architecture.md tells a newcomer which one or two files hold each rule;
a path there that no longer exists sends them nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_openmed

PACKAGE = Path(pytest_openmed.__file__).parent
PAGE = PACKAGE.parent / "docs" / "architecture.md"

#: Homes that colleagues of issue #12 are creating in parallel, named here
#: already; the test fails once they exist, so the entries are removed then.
PENDING: dict[str, str] = {}


def rule_paths() -> list[str]:
    """Every backticked package path in the "Where each rule lives" section."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Where each rule lives", 1)[1].split("\n## ", 1)[0]
    return sorted(set(re.findall(r"`([a-z_][a-z0-9_./-]*(?:\.py|\.json|/))`", section)))


def test_the_map_names_the_files_of_every_engine() -> None:
    paths = rule_paths()
    for room in ("claims/", "planner/", "multimodal/", "plugin/", "schemas/"):
        assert any(p.startswith(room) for p in paths), room
    assert len(paths) >= 30


#: Top-level folders of the repository (outside the package) the map may name.
REPOSITORY_ROOMS = ("tests", "docs", "validation", "benchmarks", PACKAGE.name)


def resolve(path: str) -> Path:
    """A package path (``claims/scoring.py``) or a repository path (``tests/…``, ``validation/…``)."""
    top = path.split("/", 1)[0]
    return (PACKAGE.parent if top in REPOSITORY_ROOMS else PACKAGE) / path


def test_every_path_in_the_map_exists() -> None:
    missing = [p for p in rule_paths() if p not in PENDING and not resolve(p).exists()]
    assert missing == []


def test_every_pending_home_is_still_pending() -> None:
    # A colleague's room landed: remove its entry from PENDING.
    assert sorted(p for p in PENDING if resolve(p).exists()) == []
    assert set(PENDING) <= set(rule_paths())


def walk_section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("### The walk, measured", 1)[1].split("\n## ", 1)[0]


#: Per rule of the measured walk: every file it names to read, and names each defines
#: (a schema is only checked to exist).
WALK: dict[str, dict[str, tuple[str, ...]]] = {
    "Four claim states": {
        "claims/scoring.py": ("_state_index",),
        "claims/report.py": ("STATES", "UNSUPPORTED_STATES"),
        "claims/records.py": ("SUPPORTS", "CONTRADICTS", "UNRESOLVED"),
    },
    "Class threshold with bootstrap bound": {
        "claims/declaration.py": ("Thresholds", "declare", "RULE_TEXTS", "_gate_upper"),
        "claims/_gate.py": ("gate_upper", "UNDERPOWERED"),
        "claims/messages.py": ("UNDERPOWERED", "CLASS_ABSENT"),
    },
    "Planner completion": {
        "planner/harness.py": ("_ScenarioRun",),
        "planner/_gate.py": ("_judged",),
        "planner/declaration.py": ("RULE_TEXTS", "_incomplete"),
    },
    "Out-of-grant critical": {
        "planner/harness.py": ("_ScenarioRun",),
        "planner/grants.py": ("GrantVerifier",),
        "planner/report.py": ("CRITICAL_COUNTS",),
        "planner/_gate.py": ("CRITICAL_REASONS",),
        "planner/declaration.py": ("RULE_TEXTS",),
    },
    "Reviewer qualification": {
        "multimodal/qualification.py": ("ReviewerQualification", "check_eligible"),
        "multimodal/review.py": ("prepare_review", "verify_review_evidence"),
        "multimodal/errors.py": ("ReviewerRecused", "ReviewerOutOfScope"),
        "multimodal/assess.py": ("assess_validation",),
    },
    "Suppression, minimum cell 5": {
        "multimodal/suppression.py": ("is_small_cell", "block_suppressed"),
        "_validate.py": ("MIN_CELL",),
    },
    "Pack bounds": {
        "multimodal/limits.py": ("MAX_UNITS", "MAX_CANDIDATES", "MAX_PACK_BYTES", "MAX_REVIEWS"),
        "multimodal/pack.py": ("ValidationPack",),
        "multimodal/assess.py": ("assess_validation",),
        "multimodal/errors.py": ("ReviewCountRefused",),
    },
    "Waveform JSON": {
        "schemas/waveform.v1.schema.json": (),
        "carriers/waveform.py": ("WAVEFORM_FORMAT",),
        "carriers/ecg.py": ("MAX_SAMPLES_PER_LEAD", "MIN_SAMPLING_RATE_HZ"),
    },
}


def walk_rows() -> dict[str, str]:
    """Per rule, the walk's "now: to read" cell."""
    rows: dict[str, str] = {}
    for line in walk_section().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("rule", "---"):
            rows[cells[0]] = cells[2]
    return rows


def defines(path: Path, name: str) -> bool:
    """``path`` defines ``name`` (a function, a class or an assignment, at any depth)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def test_the_walk_measures_each_of_the_eight_rules() -> None:
    assert set(walk_rows()) == set(WALK)


def test_the_walk_names_exactly_the_files_checked_here() -> None:
    for rule, cell in walk_rows().items():
        assert set(re.findall(r"`([a-z_][a-z0-9_./-]*\.(?:py|json))`", cell)) == set(WALK[rule])


def test_every_file_the_walk_names_to_read_defines_its_part_of_the_rule() -> None:
    for rule, files in WALK.items():
        for path, names in files.items():
            assert resolve(path).exists(), (rule, path)
            for name in names:
                assert defines(resolve(path), name), (rule, path, name)
