"""Gate files: every malformed file is refused with file, key and expectation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed.claims.declaration import Thresholds
from pytest_openmed.contract import ArgumentSource
from pytest_openmed.planner.declaration import PLANNER_ITEMS, declare
from pytest_openmed.plugin.gate_files import GateFileError, parse_gate_file
from tests._files import file_writer, read_or_refuse

CLAIMS = '[[claims]]\nname = "notes"\nclaims = "c.json"\nevidence = "e.json"\n'


write = file_writer("gates.openmed.toml")


def test_a_claims_table_becomes_one_item_per_threshold_class(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        CLAIMS + "max_unsupported_rate = 0.2\nseed = 7\n"
        "[claims.classes.medication]\nmax_upper = 0.3\n"
        "[claims.classes.lab]\nmax_unsupported_rate = 0\n",
    )
    (spec,) = parse_gate_file(path)
    assert spec.label == "claims(notes)"
    assert spec.items == ("overall", "class[lab]", "class[medication]")
    declaration = spec.declaration
    assert declaration.claims == tmp_path / "c.json"  # type: ignore[attr-defined]
    assert declaration.seed == 7  # type: ignore[attr-defined]
    assert declaration.resamples is None  # type: ignore[attr-defined]
    assert declaration.overall == Thresholds(max_unsupported_rate=0.2)  # type: ignore[attr-defined]
    assert declaration.classes["medication"] == Thresholds(max_upper=0.3)  # type: ignore[attr-defined]


def test_planner_and_pack_tables(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[[planner]]\nname = "good"\nplanner = "pkg.mod:propose"\n'
        '[[pack]]\nname = "ecg"\npack = "p.json"\nmappings = ["m1.json", "m2.json"]\n'
        'reviews = ["r1.json", "r2.json"]\ncandidate = "cand-a"\n',
    )
    planner, pack = parse_gate_file(path)
    assert planner.items == PLANNER_ITEMS
    assert planner.declaration.planner == "pkg.mod:propose"  # type: ignore[attr-defined]
    assert pack.items == ("cand-a",)
    assert pack.declaration.mappings == (tmp_path / "m1.json", tmp_path / "m2.json")  # type: ignore[attr-defined]
    assert pack.declaration.adjudications == ()  # type: ignore[attr-defined]
    assert pack.declaration.min_cell is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n", "unknown top-level key 'x'"),
        ("claims = 1\n", "'claims' must be an array of tables"),
        ('[[claims]]\nname = "n"\nclaims = "c"\n', "key 'evidence' is required"),
        (CLAIMS + "extra = 1\n", "key 'extra' is not known"),
        (CLAIMS.replace('"notes"', '"has space"'), "key 'name' must be a string"),
        (CLAIMS.replace('"c.json"', '"/abs/c.json"'), "key 'claims' must be relative"),
        (CLAIMS.replace('"c.json"', '""'), "key 'claims' must be a non-empty path"),
        (
            CLAIMS + "max_unsupported_rate = 1.5\n",
            "key 'max_unsupported_rate' must be a number from 0 to 1",
        ),
        (CLAIMS + "max_upper = true\n", "key 'max_upper' must be a number from 0 to 1"),
        (CLAIMS + "resamples = 0\n", "key 'resamples' must be an integer from 1 to 100000"),
        (CLAIMS + "seed = -1\n", "key 'seed' must be an integer"),
        (CLAIMS + "alpha = 1.0\n", "key 'alpha' must be a number strictly between 0 and 1"),
        (CLAIMS + "classes = 3\n", "key 'classes' must be a table"),
        (
            CLAIMS + "[claims.classes.Medication]\nmax_upper = 0.1\n",
            "key 'classes.Medication' must name",
        ),
        (CLAIMS + "[claims.classes.lab]\n", "key 'classes.lab' must set"),
        (CLAIMS + "[claims.classes.lab]\nmin = 0.1\n", "key 'min' is not known"),
        (2 * (CLAIMS + "max_upper = 0.5\n"), "duplicate gate name"),
        (CLAIMS, "#1: a claims gate needs a threshold"),
        (
            CLAIMS + "[claims.classes.lab]\nmax_upper = 0.1\nallow_absent = 1\n",
            "key 'allow_absent' must be true or false",
        ),
        ('[[planner]]\nname = "p"\nplanner = "not a ref"\n', "key 'planner' must be a reference"),
        (
            '[[pack]]\nname = "p"\npack = "p"\nmappings = "m"\nreviews = []\ncandidate = "a"\n',
            "key 'mappings' must be an array",
        ),
        (
            '[[pack]]\nname = "p"\npack = "p"\nmappings = []\nreviews = []\ncandidate = "a"\nmin_cell = 4\n',
            "key 'min_cell' must be an integer from 5",
        ),
        ("[[claims]\n", "the gate file is not valid TOML at line 1, column 9"),
        (CLAIMS + "max_upper = 0.1\nmax_upper = 0.2\n", "is not valid TOML at line 6, column"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "is not valid TOML: it nests too deeply"),
        ("x" * 500 + " = 1\n", "unknown top-level key '" + "x" * 39 + "…'"),
        (
            CLAIMS + "max_upper = 1" + "0" * 400 + "\n",
            "key 'max_upper' must be a number from 0 to 1",
        ),
    ],
)
def test_malformed_gate_files_are_refused_precisely(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(GateFileError) as info:
        parse_gate_file(path)
    assert str(info.value).startswith("gates.openmed.toml")
    assert message in str(info.value)
    assert str(tmp_path) not in str(info.value)


def test_gate_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "gates.openmed.toml"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(GateFileError, match="the gate file is not UTF-8 text"):
        parse_gate_file(path)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "gates.openmed.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (CLAIMS + "max_upper = 0.5\n").encode())
    (spec,) = parse_gate_file(path)
    assert spec.declaration.overall == Thresholds(max_upper=0.5)  # type: ignore[attr-defined]


def test_syntax_errors_give_the_position_never_the_text(tmp_path: Path) -> None:
    secret = "ZQXSECRETKEY"
    path = write(tmp_path, f'{secret} = 1\n{secret} = 2\n[[claims]]\nname = "{secret}\n')
    with pytest.raises(GateFileError) as info:
        parse_gate_file(path)
    assert "at line" in str(info.value) and "column" in str(info.value)
    assert secret not in str(info.value)


def test_echoed_keys_and_labels_are_capped(tmp_path: Path) -> None:
    label = "a" * 64
    path = write(tmp_path, CLAIMS + f"[claims.classes.{label}]\nmax_upper = 0.1\n{'k' * 300} = 1\n")
    with pytest.raises(GateFileError) as info:
        parse_gate_file(path)
    assert label not in str(info.value) and "k" * 40 not in str(info.value)
    assert "a" * 39 + "…" in str(info.value)


def test_a_symlink_loop_is_a_gate_file_error_without_the_path(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    path = write(tmp_path, CLAIMS.replace('"c.json"', '"loop/c.json"') + "max_upper = 0.5\n")
    with pytest.raises(GateFileError) as info:
        parse_gate_file(path)
    assert "key 'claims' names a path that cannot be resolved" in str(info.value)
    assert str(tmp_path) not in str(info.value)


def test_a_claims_class_may_be_allowed_absent(tmp_path: Path) -> None:
    path = write(tmp_path, CLAIMS + "[claims.classes.lab]\nmax_upper = 0.1\nallow_absent = true\n")
    (spec,) = parse_gate_file(path)
    lab = spec.declaration.classes["lab"]  # type: ignore[attr-defined]
    assert lab == Thresholds(max_upper=0.1, allow_absent=True)


def test_oversized_gate_file(tmp_path: Path) -> None:
    path = write(tmp_path, "#" * (1024 * 1024 + 1))
    with pytest.raises(GateFileError, match="exceeds 1 MiB"):
        parse_gate_file(path)


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_is_parsed_or_refused_with_gate_file_error(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    read_or_refuse(tmp_path_factory, "gates.openmed.toml", text, parse_gate_file, GateFileError)


@pytest.mark.parametrize("reference", ["mod", "mod:", ":attr", "a b:c", "mod:attr.x", "1mod:x"])
def test_planner_references_are_module_colon_attribute(reference: str) -> None:
    with pytest.raises(ValueError):
        declare({"planner": reference}, ArgumentSource())


def test_a_malformed_gate_file_is_a_collection_error_naming_file_and_key(
    pytester: pytest.Pytester,
) -> None:
    pytester.path.joinpath("bad.openmed.toml").write_text(CLAIMS + "max_upper = 'high'\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting bad.openmed.toml*",
            "openmed gate file error: bad.openmed.toml: *#1: key 'max_upper' must be a number from 0 to 1",
        ]
    )
    assert "Traceback" not in result.stdout.str()
