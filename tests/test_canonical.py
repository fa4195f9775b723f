"""The shared canonical-JSON, digest and HMAC helpers."""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_openmed import _canonical as c

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
@settings(max_examples=100, deadline=None)
def test_key_order_never_changes_the_digest(value: dict[str, object]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert c.digest_json(value) == c.digest_json(reordered)
    assert c.is_digest(c.digest_json(value))


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_canonical_json_is_the_standard_encoders_text(value: object) -> None:
    """The encoder built once per thread writes what ``json.dumps`` writes with these settings."""
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    assert c.canonical_json(value) == expected


def test_refusals_leave_the_encoder_usable() -> None:
    """NaN, a non-JSON value and a cycle are refused as ``json`` refuses them; the next call works."""
    cycle: list[object] = []
    cycle.append(cycle)
    for bad, error in ((float("nan"), ValueError), ({1, 2}, TypeError), (cycle, ValueError)):
        document: dict[str, object] = {"a": [1], "b": bad}
        with pytest.raises(error):
            c.canonical_json(document)
        document["b"] = None
        assert c.canonical_json(document) == '{"a":[1],"b":null}'


def test_types_matter() -> None:
    assert c.digest_json(424242) != c.digest_json("424242")


def test_nan_is_not_json() -> None:
    with pytest.raises(ValueError):
        c.canonical_json({"x": math.nan})


@pytest.mark.parametrize(
    "value",
    ["sha256:" + "A" * 64, "sha256:" + "a" * 63, "https://example.org/model", "a" * 64, b"x", None],
)
def test_require_digest_refuses_everything_but_the_exact_form(value: object) -> None:
    assert not c.is_digest(value)
    with pytest.raises(ValueError, match=r"^commit must be a 'sha256:' digest"):
        c.require_digest(value, "commit")


def test_keys_shorter_than_32_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 32 bytes"):
        c.require_key(b"k" * 31)
    with pytest.raises(TypeError):
        c.require_key("k" * 40)
    assert c.require_key(b"k" * 32) == b"k" * 32


def test_hmac_is_domain_separated_and_checked_in_constant_time() -> None:
    key = b"k" * 32
    mac = c.hmac_digest(key, "alias", {"a": 1})
    assert c.hmac_matches(key, "alias", {"a": 1}, mac)
    assert not c.hmac_matches(key, "seal", {"a": 1}, mac)
    assert not c.hmac_matches(b"j" * 32, "alias", {"a": 1}, mac)
    assert not c.hmac_matches(key, "alias", {"a": 2}, mac)


def test_hmac_matches_never_touches_an_untrusted_object() -> None:
    class Hostile:
        def __eq__(self, other: object) -> bool:
            raise AssertionError("compared")

        __hash__ = None  # type: ignore[assignment]

    assert not c.hmac_matches(b"k" * 32, "alias", 1, Hostile())


def test_atomic_write_replaces_and_hides_the_path(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    c.atomic_write_text(target, "one")
    c.atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    secret = tmp_path / "no-such-dir-CANARY" / "x.json"
    with pytest.raises(OSError) as info:
        c.atomic_write_text(secret, "x")
    assert "CANARY" not in str(info.value)


@pytest.mark.parametrize("value", [True, "1", math.inf, math.nan])
def test_finite_float_refuses_non_numbers(value: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        c.finite_float(value, "rate")


@settings(max_examples=50, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=200),
    values=st.lists(st.lists(st.text(max_size=80), max_size=4), min_size=1, max_size=5),
)
def test_one_signer_signs_as_the_one_shot_hmac(key: bytes, values: list[list[str]]) -> None:
    """A Signer keyed once gives every value the MAC ``hmac.new`` gives (keys of any length)."""
    signer = c.Signer(key)
    for value in values:
        message = b"domain\x00" + c.canonical_bytes(value)
        expected = "sha256:" + hmac.new(key, message, hashlib.sha256).hexdigest()
        assert signer.digest("domain", value) == c.hmac_digest(key, "domain", value) == expected
        assert signer.matches("domain", value, expected)
        assert not signer.matches("other", value, expected)


def test_a_signer_shows_no_key() -> None:
    canary = b"CANARY-KEY-" + b"7" * 32
    assert "CANARY" not in repr(c.Signer(canary)) and "7777" not in repr(c.Signer(canary))


class Colour(enum.StrEnum):
    RED = "red"


def test_a_str_enum_is_written_as_its_text() -> None:
    """Tasks and media types are str enums; their canonical JSON is their value's."""
    assert c.canonical_json([Colour.RED, 1]) == '["red",1]'
    assert c.digest_json({"task": Colour.RED}) == c.digest_json({"task": "red"})
