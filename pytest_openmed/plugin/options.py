"""What one pytest run was asked to do, resolved once from CLI and ini.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

Options are validated by ``type=`` callables (CLI) or by the same parsers
(ini), so a bad value is a usage error before collection.  Precedence is
marker > CLI > ini > default; markers are resolved where they are read.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_openmed._validate import (
    DEFAULT_RESAMPLES,
    MAX_MIN_CELL,
    MAX_RESAMPLES,
    MAX_SEED,
    MIN_CELL,
    check_int,
    check_rate,
)
from pytest_openmed.errors import InputRefused
from pytest_openmed.report.history import DEFAULT_KEEP

if TYPE_CHECKING:
    from pytest_openmed.contract import GateSettings
    from pytest_openmed.plugin.waivers import Waiver
    from pytest_openmed.report.baseline import Baseline

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def _int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    message = f"{what} must be a whole number from {low} to {high}"

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise InputRefused(message) from None
        return check_int(value, low, high, message)

    parse.__name__ = what
    return parse


def cli_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse ``type=``: its message, as the ini gets it.

    argparse turns a ``ValueError`` into ``invalid <function name> value: <value>``;
    an ``ArgumentTypeError`` is shown as it is, so a bad ``--openmed-seed`` reads
    ``argument --openmed-seed: seed must be a whole number from 0 to …``.
    """

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except InputRefused as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__
    return convert


parse_seed = _int_in(0, MAX_SEED, "seed")
parse_resamples = _int_in(1, MAX_RESAMPLES, "resamples")
parse_min_cell = _int_in(MIN_CELL, MAX_MIN_CELL, "min_cell")


def parse_trials(text: str) -> int:
    """``--openmed-trials``: conversations per scenario of each ``--openmed-planner`` gate."""
    from pytest_openmed.planner.declaration import MAX_TRIALS

    trials: int = _int_in(1, MAX_TRIALS, "trials")(text)
    return trials


parse_trials.__name__ = "trials"
parse_history_keep = _int_in(1, 10_000, "openmed_history_keep")


_RATE = "rate must be a number from 0 to 1"


def parse_rate(text: str) -> float:
    """A threshold rate from 0 to 1 (``--openmed-max-rate``)."""
    try:
        value = float(text)
    except ValueError:
        raise InputRefused(_RATE) from None
    return check_rate(value, _RATE)


parse_rate.__name__ = "rate"


#: Most shards a run may be split into.
MAX_SHARDS = 1024
_SHARD = re.compile(r"([0-9]{1,4})/([0-9]{1,4})")
_SHARD_TEXT = f"shard must be I/N with 1 <= I <= N <= {MAX_SHARDS} (1-based: 1/4 to 4/4)"


def parse_shard(text: str) -> tuple[int, int]:
    """``--openmed-shard I/N``: this run is shard ``I`` (1-based) of ``N``."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise InputRefused(_SHARD_TEXT)
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count <= MAX_SHARDS:
        raise InputRefused(_SHARD_TEXT)
    return index, count


parse_shard.__name__ = "shard"


def parse_env_name(text: str) -> str:
    if not _ENV_NAME.fullmatch(text):
        raise InputRefused(
            "key_env must be an environment variable name: 1 to 128 letters, digits or '_', "
            "not starting with a digit"
        )
    return text


#: The largest count of required gates (``--openmed-require N``).
MAX_REQUIRED_GATES = 10_000
#: The longest gate name ``--openmed-require`` takes.
_MAX_REQUIRED_NAME = 1024
_REQUIRED = (
    f"a required gate must be a whole number from 1 to {MAX_REQUIRED_GATES} or a gate's name: "
    f"its label (claims(name)) or node id, up to {_MAX_REQUIRED_NAME} characters"
)


def parse_required(text: str) -> int | str:
    """One ``--openmed-require`` entry: a minimum count of gates, or a gate that must exist."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        value = int(text, 10)
        return check_int(value, 1, MAX_REQUIRED_GATES, _REQUIRED)
    if not text or len(text) > _MAX_REQUIRED_NAME or not text.isprintable():
        raise InputRefused(_REQUIRED)
    return text


parse_required.__name__ = "required gate"


def parse_planner_ref(text: str) -> str:
    """A planner reference ``module:attr``, checked by the planner's declaration."""
    from pytest_openmed.contract import ArgumentSource
    from pytest_openmed.planner.declaration import declare

    declare({"planner": text}, ArgumentSource())
    return text


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything the plugin's options resolved to for this run."""

    seed: int
    resamples: int
    min_cell: int | None
    key_env: str | None
    planners: tuple[str, ...]
    controls: bool
    record: bool
    report_path: Path | None
    markdown_path: Path | None
    step_summary: bool
    baseline: Baseline | None
    waivers: tuple[Waiver, ...]
    # Reports people read, run history and CI switches (docs/html-report.md, docs/history.md).
    html_path: Path | None = None
    sarif_path: Path | None = None
    history_dir: Path | None = None
    history_keep: int = DEFAULT_KEEP
    max_rate: float | None = None
    gate_selection: str | None = None  # "only", "skip" or None
    #: ``(I, N)``: this run evaluates shard I (1-based) of N of the gates (docs/ci.md).
    shard: tuple[int, int] | None = None
    trials: int | None = None
    #: Gates that must be collected (docs/gate-files.md): counts and gate names.
    required: tuple[int | str, ...] = ()
    #: Planner gates qualify user code in a child process (docs/planner.md).
    isolate: bool = False

    @property
    def settings(self) -> GateSettings:
        """The engines' view of the run defaults (built on use: ``contract`` loads lazily)."""
        from pytest_openmed.contract import GateSettings

        return GateSettings(
            seed=self.seed,
            resamples=self.resamples,
            min_cell=self.min_cell,
            key_env=self.key_env,
            record=self.record,
            max_rate=self.max_rate,
            isolate=self.isolate,
        )


run_options_key = pytest.StashKey[RunOptions]()


def resolve(
    config: pytest.Config, dest: str, ini: str, parse: Callable[[str], Any], default: Any
) -> Any:
    """CLI wins over ini, ini over the default; ini values get the CLI's validation."""
    value = config.getoption(dest)
    if value is not None:
        return value
    text = str(config.getini(ini)).strip()
    if not text:
        return default
    try:
        return parse(text)
    except InputRefused as error:
        raise pytest.UsageError(f"ini option {ini}: {error}") from None


def resolve_path(config: pytest.Config, dest: str, ini: str) -> Path | None:
    """A CLI path is relative to the invocation directory, an ini path to the ini file."""
    cli = config.getoption(dest)
    if cli:
        return Path(cli).absolute()
    text = str(config.getini(ini)).strip()
    if text:
        return (config.inipath.parent if config.inipath else config.rootpath) / text
    return None


def check_writable(config: pytest.Config, path: Path | None, dest: str) -> None:
    """Refuse, before any gate runs, an output path that cannot be written.

    Only the directory is probed (it must exist and be writable, and the path
    must not be a directory); nothing is created.  The message names the
    option, never the path.
    """
    if path is None or hasattr(config, "workerinput"):
        return
    parent = path.parent
    if (
        path.is_dir()
        or not parent.is_dir()
        or not os.access(parent, os.W_OK | os.X_OK)
        or (path.exists() and not os.access(path, os.W_OK))
    ):
        option = "--" + dest.replace("_", "-") if config.getoption(dest) else f"ini {dest}"
        raise pytest.UsageError(
            f"openmed: {option} names a file that cannot be written (its directory is "
            "missing or not writable, or it is a directory) (OPENMED-REPORT-PATH)"
        )


def resolve_run_options(config: pytest.Config) -> RunOptions:
    planners: list[str] = list(config.getoption("openmed_planners"))
    if not planners:
        for line in config.getini("openmed_planners"):
            try:
                planners.append(parse_planner_ref(str(line)))
            except InputRefused as error:
                raise pytest.UsageError(f"ini option openmed_planners: {error}") from None
    baseline_path = resolve_path(config, "openmed_baseline", "openmed_baseline")
    history_dir = resolve_path(config, "openmed_history", "openmed_history")
    compare = config.getoption("openmed_compare")
    if compare is not None and baseline_path is not None:
        raise pytest.UsageError(
            "openmed: --openmed-compare and --openmed-baseline both name a baseline; use one"
        )
    baseline: Baseline | None = (
        _compare_baseline(history_dir, compare)
        if compare is not None
        else _load_baseline(baseline_path)
    )
    only, skip = config.getoption("openmed_only"), config.getoption("openmed_skip")
    if only and skip:
        raise pytest.UsageError("openmed: --openmed-only and --openmed-skip exclude each other")
    waivers = _load_waivers(resolve_path(config, "openmed_waivers", "openmed_waivers"))
    report_path = resolve_path(config, "openmed_report", "openmed_report")
    markdown_path = resolve_path(config, "openmed_markdown", "openmed_markdown")
    check_writable(config, report_path, "openmed_report")
    check_writable(config, markdown_path, "openmed_markdown")
    html_path = resolve_path(config, "openmed_html", "openmed_html")
    check_writable(config, html_path, "openmed_html")
    sarif_path = resolve_path(config, "openmed_sarif", "openmed_sarif")
    check_writable(config, sarif_path, "openmed_sarif")
    _check_history_dir(config, history_dir)
    step_summary = not config.getoption("openmed_no_step_summary") and bool(
        config.getini("openmed_step_summary")
    )
    return RunOptions(
        seed=resolve(config, "openmed_seed", "openmed_seed", parse_seed, 0),
        resamples=resolve(
            config, "openmed_resamples", "openmed_resamples", parse_resamples, DEFAULT_RESAMPLES
        ),
        min_cell=resolve(config, "openmed_min_cell", "openmed_min_cell", parse_min_cell, None),
        key_env=resolve(config, "openmed_key_env", "openmed_key_env", parse_env_name, None),
        planners=tuple(dict.fromkeys(planners)),
        controls=bool(config.getoption("openmed_controls")),
        record=_record(config),
        report_path=report_path,
        markdown_path=markdown_path,
        step_summary=step_summary,
        baseline=baseline,
        waivers=waivers,
        html_path=html_path,
        sarif_path=sarif_path,
        history_dir=history_dir,
        history_keep=resolve(
            config, "openmed_history_keep", "openmed_history_keep", parse_history_keep, DEFAULT_KEEP
        ),
        max_rate=resolve(config, "openmed_max_rate", "openmed_max_rate", parse_rate, None),
        gate_selection="only" if only else "skip" if skip else None,
        shard=resolve(config, "openmed_shard", "openmed_shard", parse_shard, None),
        trials=resolve(config, "openmed_trials", "openmed_trials", parse_trials, None),
        required=_required(config),
        isolate=bool(config.getoption("openmed_isolate") or config.getini("openmed_isolate")),
    )


def _required(config: pytest.Config) -> tuple[int | str, ...]:
    """``--openmed-require`` entries (repeatable), else the ini ``openmed_require`` lines."""
    entries: list[int | str] = list(config.getoption("openmed_require"))
    if not entries:
        for line in config.getini("openmed_require"):
            try:
                entries.append(parse_required(str(line)))
            except InputRefused as error:
                raise pytest.UsageError(f"ini option openmed_require: {error}") from None
    return tuple(dict.fromkeys(entries))


def _record(config: pytest.Config) -> bool:
    """``--openmed-record``; refused beside xdist, whose workers would each call the model.

    Refused on the controller for any way of starting workers (``-n``, or
    ``--dist``/``--tx`` without ``-n``): a worker refusing it at startup would
    crash and be restarted without end.
    """
    record = bool(config.getoption("openmed_record"))
    distributed = (
        config.getoption("numprocesses", None)
        or config.getoption("tx", None)
        or config.getoption("dist", "no") not in (None, "no")
        or hasattr(config, "workerinput")
    )
    if record and distributed:
        raise pytest.UsageError(
            "openmed: --openmed-record calls live models and rewrites cassettes; "
            "run it without pytest-xdist (-n, --dist, --tx)"
        )
    return record


def _check_history_dir(config: pytest.Config, directory: Path | None) -> None:
    """The history directory must be a writable directory, or creatable in a writable one."""
    if directory is None or hasattr(config, "workerinput"):
        return
    if not directory.exists():
        check_writable(config, directory, "openmed_history")
    elif not directory.is_dir() or not os.access(directory, os.W_OK | os.X_OK):
        option = (
            "--openmed-history" if config.getoption("openmed_history") else "ini openmed_history"
        )
        raise pytest.UsageError(
            f"openmed: {option} names no writable directory (OPENMED-REPORT-PATH)"
        )


def _compare_baseline(history_dir: Path | None, ref: str) -> Baseline:
    from pytest_openmed.report.history import HistoryError, resolve_ref

    if history_dir is None:
        raise pytest.UsageError(
            "openmed: --openmed-compare needs --openmed-history DIR (or ini openmed_history)"
        )
    try:
        path = resolve_ref(history_dir, ref)
    except HistoryError as error:
        raise pytest.UsageError(f"openmed: {error}") from None
    baseline = _load_baseline(path)
    assert baseline is not None
    import dataclasses

    # A stored name is a UTC time and a commit (history.run_name): safe to show.
    return dataclasses.replace(baseline, stored_run=path.name.removesuffix(".json"))


def _load_baseline(path: Path | None) -> Baseline | None:
    if path is None:
        return None
    from pytest_openmed.report.baseline import BaselineError, load_baseline

    try:
        return load_baseline(path)
    except BaselineError as error:
        raise pytest.UsageError(f"openmed: {error}") from None


def _load_waivers(path: Path | None) -> tuple[Waiver, ...]:
    if path is None:
        return ()
    import datetime

    from pytest_openmed.plugin.waivers import WaiverError, load_waivers

    try:
        return load_waivers(path, today=datetime.date.today())
    except WaiverError as error:
        raise pytest.UsageError(f"openmed: {error}") from None
