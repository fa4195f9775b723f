"""The ``[[pack]]`` gate: assess one candidate from stored documents and map the decision.

Contract of :mod:`pytest_openmed.plugin.gate_files`: ``evaluate_gate(spec, settings)``
returns one :class:`~pytest_openmed.contract.GateResult` per name in ``spec.items``
(the candidates' evaluator-side names; the documents are read once for all).
``blocked`` and ``hold`` fail the item; ``rubric_satisfied`` passes it.
The reason is a value-free class (``safety``, ``quality_utility``,
``disagreement``, ``all_abstained``, ``ok``) and the metrics are counts only.
Malformed documents and refused evidence raise the
engine's typed errors, which the plugin reports as errors, not verdicts.

The evaluator key is read from the environment variable named by
``--openmed-key-env`` / ``openmed_key_env``; its text, encoded as UTF-8, is the
key (at least 32 bytes — e.g. the 64 hex characters of
``secrets.token_hex(32)``).  It is never read from a file nor shown.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_openmed._canonical import require_key
from pytest_openmed._jsonread import json_value_bound, loads, read_limited
from pytest_openmed.contract import (
    GateResult,
    GateSettings,
    GateSpec,
    declaration_of,
    locate_input_error,
)
from pytest_openmed.errors import InputRefused

from .aliases import SealedMapping
from .assess import assess_validation
from .declaration import GateDeclaration
from .errors import DocumentInvalid, DuplicateMapping, LimitExceeded, ReviewCountRefused
from .limits import MAX_ADJUDICATIONS, MAX_REVIEWS, MIN_CELL
from .pack import ValidationPack
from .ratings import Adjudication, CompletedReview
from .verdict import gate_result

#: Largest stored pack document read (64 MiB of assets in base64 plus JSON).
MAX_PACK_DOCUMENT_BYTES = 128 * 1024 * 1024
#: Largest stored mapping, review or adjudication document read.
MAX_EVIDENCE_DOCUMENT_BYTES = 64 * 1024 * 1024
#: JSON values (objects, arrays, scalars) of one stored pack input document.
MAX_DOCUMENT_VALUES = 1_000_000
_MAX_MAPPINGS = MAX_REVIEWS + MAX_ADJUDICATIONS
_TOO_LARGE = "a pack gate input file exceeds its size limit"


class MissingEvaluatorKey(InputRefused):
    """No evaluator key is configured for pack gates; set ``--openmed-key-env`` (or the ini)."""

    def __init__(self) -> None:
        super().__init__(
            "pack gates need the evaluator key: set --openmed-key-env (or ini openmed_key_env) "
            "to the name of an environment variable holding a key of at least 32 bytes"
        )


class UnsetEvaluatorKey(MissingEvaluatorKey):
    """The configured key variable is not set (or empty) in this environment.

    Names the variable, which is configuration (the option's value), never its value.
    """

    def __init__(self, name: str) -> None:
        ValueError.__init__(
            self,
            f"the evaluator key environment variable {name} is unset or empty in this "
            "environment (CI: map the secret into it)",
        )


def evaluator_key(settings: GateSettings) -> bytes:
    """The key from the configured environment variable (its UTF-8 bytes)."""
    name = settings.key_env
    if not name:
        raise MissingEvaluatorKey()
    value = os.environ.get(name)
    if not value:
        raise UnsetEvaluatorKey(name)
    return require_key(value.encode("utf-8"))


def evaluate_gate(spec: GateSpec, settings: GateSettings) -> dict[str, GateResult]:
    """Assess the gate's candidate from its stored pack, mappings, reviews and adjudications."""
    declaration = declaration_of(
        spec, GateDeclaration, "the multimodal evaluator handles pack gates with candidate items"
    )
    key = evaluator_key(settings)
    with _document("pack input"):
        pack = ValidationPack.from_dict(_read_json(declaration.pack, MAX_PACK_DOCUMENT_BYTES))
    mappings = []
    for number, path in enumerate(_paths(declaration.mappings, _MAX_MAPPINGS), start=1):
        with _document(f"mappings input #{number}"):
            mappings.append(SealedMapping.from_dict(_read_json(path, MAX_EVIDENCE_DOCUMENT_BYTES)))
    if len({m.identity_digest for m in mappings}) != len(mappings):
        raise DuplicateMapping()
    review_paths = declaration.reviews
    if len(review_paths) > MAX_REVIEWS:
        raise ReviewCountRefused()
    reviews = []
    for number, path in enumerate(review_paths, start=1):
        with _document(f"reviews input #{number}"):
            document = _read_json(path, MAX_EVIDENCE_DOCUMENT_BYTES)
            reviews.append(CompletedReview.from_dict(document, tuple(mappings)))
    adjudications = []
    adjudication_paths = _paths(declaration.adjudications, MAX_ADJUDICATIONS)
    for number, path in enumerate(adjudication_paths, start=1):
        with _document(f"adjudications input #{number}"):
            document = _read_json(path, MAX_EVIDENCE_DOCUMENT_BYTES)
            adjudications.append(Adjudication.from_dict(document, tuple(mappings)))
    # The gate's, else the run's (--openmed-min-cell), else the engine's minimum.
    min_cell = next(v for v in (declaration.min_cell, settings.min_cell, MIN_CELL) if v is not None)
    return {
        name: gate_result(
            assess_validation(
                pack,
                pack.candidate(name),
                tuple(reviews),
                key=key,
                adjudications=tuple(adjudications),
                min_cell=min_cell,
            )
        )
        for name in declaration.candidates
    }


@contextlib.contextmanager
def _document(where: str) -> Iterator[None]:
    """Refusals while reading one input document say which (its gate-file key and number)."""
    try:
        yield
    except (OSError, ValueError, TypeError) as error:
        raise locate_input_error(error, where) from None


def _paths(paths: tuple[Path, ...], limit: int) -> tuple[Path, ...]:
    if len(paths) > limit:
        raise LimitExceeded("a pack gate lists too many input files")
    return paths


def _read_json(path: Path, limit: int) -> Mapping[str, Any]:
    """One stored document, refused by bytes before it is read and by values before it is parsed.

    Parsing builds a Python object per JSON value (a million small records
    take over a gigabyte), so a document with more values than any pack input
    needs is refused from a byte count, in memory bounded by its size.
    """
    raw = read_limited(
        path,
        limit,
        too_large=lambda: LimitExceeded(_TOO_LARGE),
        unreadable="could not read a pack gate input file",
    )
    if json_value_bound(raw) > MAX_DOCUMENT_VALUES:
        raise LimitExceeded(
            f"a pack gate input file holds more than {MAX_DOCUMENT_VALUES:,} JSON values"
        )
    document = loads(
        raw,
        lambda: DocumentInvalid(
            "a pack gate input file is not valid UTF-8 JSON with unique names in every object"
        ),
    )
    if not isinstance(document, dict):
        raise DocumentInvalid("a pack gate input file must hold a JSON object")
    return document
