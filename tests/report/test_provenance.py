"""The commit of a run is read without a network or a subprocess, and never guessed."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from pytest_openmed.report.provenance import COMMIT_VARIABLES, read_commit, utc_stamp

COMMIT = "89abcdef0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210fedcba98"


def _repository(root: Path, head: str) -> Path:
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text(head)
    return git


def test_a_ci_variable_wins_and_the_first_one_set_is_used(tmp_path: Path) -> None:
    _repository(tmp_path, OTHER + "\n")
    environ = {"CI_COMMIT_SHA": COMMIT, "GIT_COMMIT": OTHER}
    assert read_commit(tmp_path, environ) == COMMIT
    assert COMMIT_VARIABLES.index("CI_COMMIT_SHA") < COMMIT_VARIABLES.index("GIT_COMMIT")


def test_a_ci_variable_that_is_not_a_commit_is_ignored(tmp_path: Path) -> None:
    assert read_commit(tmp_path, {"GITHUB_SHA": "not a commit; $(rm -rf)"}) is None


def test_a_detached_head(tmp_path: Path) -> None:
    _repository(tmp_path, COMMIT + "\n")
    assert read_commit(tmp_path / "a" / "b", {}) == COMMIT


def test_a_loose_branch_ref(tmp_path: Path) -> None:
    git = _repository(tmp_path, "ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(COMMIT + "\n")
    assert read_commit(tmp_path, {}) == COMMIT


def test_a_packed_branch_ref(tmp_path: Path) -> None:
    git = _repository(tmp_path, "ref: refs/heads/release\n")
    (git / "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted\n{OTHER} refs/heads/main\n"
        f"{COMMIT} refs/heads/release\n"
    )
    assert read_commit(tmp_path, {}) == COMMIT


def test_a_linked_worktree(tmp_path: Path) -> None:
    common = _repository(tmp_path / "main", "ref: refs/heads/main\n")
    (common / "refs" / "heads" / "feature").write_text(COMMIT + "\n")
    private = common / "worktrees" / "feature"
    private.mkdir(parents=True)
    (private / "HEAD").write_text("ref: refs/heads/feature\n")
    (private / "commondir").write_text("../..\n")
    tree = tmp_path / "feature"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {private}\n")
    assert read_commit(tree, {}) == COMMIT


@pytest.mark.parametrize(
    "head",
    [
        "ref: refs/heads/missing\n",  # an unborn branch
        "ref: refs/../../outside\n",  # a ref leaving the repository
        "ref: HEAD\n",
        "garbage\n",
        "",
    ],
)
def test_anything_unusual_gives_no_commit(tmp_path: Path, head: str) -> None:
    _repository(tmp_path, head)
    (tmp_path / "outside").write_text(COMMIT + "\n")
    assert read_commit(tmp_path, {}) is None


def test_no_repository_gives_no_commit(tmp_path: Path) -> None:
    assert read_commit(tmp_path, {}) is None


def test_a_broken_gitdir_file_gives_no_commit(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("not a pointer\n")
    assert read_commit(tmp_path, {}) is None


def test_timestamps_are_utc_with_microseconds() -> None:
    moment = datetime.datetime(
        2026, 12, 1, 16, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    )
    assert utc_stamp(moment) == "2026-12-01T15:30:00.000000Z"
