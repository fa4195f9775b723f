"""The public digest helpers give the digests a lineage or pack declaration accepts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_openmed.multimodal import CandidateLineage, digest_bytes, digest_file, digest_json


def test_digest_bytes_is_sha256_of_the_bytes() -> None:
    assert digest_bytes(b"licence v1") == "sha256:" + hashlib.sha256(b"licence v1").hexdigest()


def test_digest_bytes_refuses_text() -> None:
    with pytest.raises(TypeError, match="must be bytes"):
        digest_bytes("licence v1")  # type: ignore[arg-type]


def test_digest_file_equals_digest_of_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "weights.bin"
    data = bytes(range(256)) * 5000  # larger than one read chunk
    path.write_bytes(data)
    assert digest_file(path) == digest_bytes(data)


def test_digest_file_error_does_not_name_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "CANARY-private-name.bin"
    with pytest.raises(OSError) as caught:
        digest_file(missing)
    assert "CANARY" not in str(caught.value)


def test_digest_json_ignores_key_order_and_refuses_nan() -> None:
    assert digest_json({"a": 1, "b": [2]}) == digest_json({"b": [2], "a": 1})
    assert digest_json({"a": 1}) == digest_bytes(b'{"a":1}')
    with pytest.raises(ValueError):
        digest_json(float("nan"))


def test_the_digests_are_accepted_by_a_lineage(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(b"weights")
    lineage = CandidateLineage(
        name="config-a",
        model_digest=digest_file(tmp_path / "model.bin"),
        preprocessing_digest=digest_json({"resize": 512}),
        runtime_digest=digest_bytes(b"runtime manifest"),
        hardware_digest=digest_json("cpu"),
        harness_digest=digest_json("harness v1"),
        license_snapshot_digest=digest_bytes(b"licence"),
    )
    assert lineage.model_digest == digest_bytes(b"weights")
