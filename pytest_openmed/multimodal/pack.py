"""Validation packs: source assets, executed observations, cases and the bound pack.

PYTEST_DONT_REWRITE: pytest must not rewrite this module's ``assert`` statements
(internal invariants): a rewritten one would print the values it compared.

A :class:`ValidationPack` holds one task, 1–256 distinct source units (cases),
exactly two candidate configurations, and the declarations that frame the
evaluation.  Each asset is hashed once, when its :class:`SourceAsset` is
built; the pack digest is computed from those digests and from the digests of
every observation and context, so it binds every input: changing any bound
byte or declaration changes the digest and invalidates earlier review evidence.

Limits (explicit refusals, nothing truncated): 1–256 cases, distinct by source
digest, and no asset digest repeated anywhere in the pack; 1–8 assets per case;
at most 4 MiB per asset and 64 MiB of assets per pack; each context and output
at most 1 MiB of canonical JSON and 16 MiB of them per pack.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pytest_openmed._canonical import digest_json, is_digest, sha256_digest
from pytest_openmed.errors import InvalidArgument

from ._checked import build_checked
from ._structure import array, document, envelope, fields, json_object, malformed, materialise
from .errors import DocumentInvalid, InvalidInput, LimitExceeded, UnknownCandidate
from .jsonvalue import FrozenJson, freeze_object
from .limits import (
    MAX_ASSET_BYTES,
    MAX_ASSETS_PER_CASE,
    MAX_CANDIDATES,
    MAX_JSON_BYTES,
    MAX_PACK_BYTES,
    MAX_PACK_JSON_BYTES,
    MAX_UNITS,
    spelled,
)
from .lineage import LINEAGE_FIELDS, CandidateLineage, check_candidate_name
from .media import MediaType, sniff_media_type
from .vocabulary import LIMITATIONS, SLICE_REFUSED, CaseSlice, SafetyFailure, ValidationTask

__all__ = [
    "PACK_SCHEMA",
    "BlindedOutput",
    "Observation",
    "SourceAsset",
    "SourceReference",
    "ValidationCase",
    "ValidationPack",
]

#: The type of the stored pack document.
PACK_SCHEMA = "openmed.multimodal.pack"

_MAX_TEXT = 2000
_MAX_LIMITATIONS = 16
_MAX_BASE64 = 4 * ((MAX_ASSET_BYTES + 2) // 3)
#: How the messages word the pack's candidate count.
_CANDIDATES = spelled(MAX_CANDIDATES)


@dataclass(frozen=True, slots=True)
class SourceAsset:
    """Original source bytes of a case, media type checked by content, hashed once."""

    data: bytes = field(repr=False, compare=False)
    media_type: MediaType = field(init=False)
    digest: str = field(init=False)

    def __post_init__(self) -> None:
        if type(self.data) is not bytes:
            raise InvalidArgument("asset data must be bytes")
        if len(self.data) > MAX_ASSET_BYTES:
            raise LimitExceeded(f"an asset exceeds the {MAX_ASSET_BYTES // 2**20} MiB limit")
        # Hashed first: the sniff then reads bytes that hashing has just brought into cache.
        object.__setattr__(self, "digest", sha256_digest(self.data))
        object.__setattr__(self, "media_type", sniff_media_type(self.data))

    @property
    def size(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"SourceAsset(media_type={self.media_type.value!r}, size={self.size})"


@dataclass(frozen=True, slots=True)
class SourceReference:
    """A reviewer-visible reference to one asset; resolve it with ``pack.asset(digest)``."""

    digest: str
    media_type: MediaType

    def __post_init__(self) -> None:
        if not is_digest(self.digest):
            raise InvalidInput("a source reference must be a 'sha256:' digest")
        try:
            object.__setattr__(self, "media_type", MediaType(self.media_type))
        except ValueError:
            raise InvalidInput("a source reference names an unknown media type") from None

    def __repr__(self) -> str:
        return f"SourceReference(media_type={self.media_type.value!r})"


@dataclass(frozen=True, slots=True)
class BlindedOutput:
    """What a reviewer sees of one observation: its actual output and whether it abstained."""

    output: FrozenJson
    abstained: bool
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "output", freeze_object(self.output, max_bytes=MAX_JSON_BYTES))
        if type(self.abstained) is not bool:
            raise InvalidArgument("abstained must be a bool")
        digest = digest_json({"output": self.output.digest, "abstained": self.abstained})
        object.__setattr__(self, "digest", digest)

    def to_dict(self) -> dict[str, Any]:
        """The stored form inside a review packet."""
        return {"output": self.output.thaw(), "abstained": self.abstained}

    @classmethod
    def from_dict(cls, data: object) -> BlindedOutput:
        stored = fields(data, {"output", "abstained"})
        return cls(output=json_object(stored["output"]), abstained=stored["abstained"])  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"BlindedOutput(abstained={self.abstained})"


#: No safety failure recorded.
_NONE: frozenset[SafetyFailure] = frozenset()


@dataclass(frozen=True, slots=True)
class Observation:
    """One candidate's executed result on one case.

    ``output`` is the candidate's actual JSON-able output, ``abstained`` whether
    it declined, ``safety_failures`` the privacy/provenance failures the
    execution itself recorded (non-compensable: any one blocks the candidate).
    """

    candidate: str
    output: Mapping[str, Any]
    abstained: bool = False
    safety_failures: frozenset[SafetyFailure] = frozenset()
    blinded: BlindedOutput = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_candidate_name(self.candidate)
        if type(self.abstained) is not bool:
            raise InvalidArgument("abstained must be a bool")
        failures = self.safety_failures
        if type(failures) is not frozenset and (
            isinstance(failures, str | bytes) or not isinstance(failures, Iterable)
        ):
            raise InvalidArgument(
                "safety_failures must be a collection of privacy/provenance labels"
            )
        try:
            if type(failures) is frozenset and not failures:
                checked = _NONE
            else:
                checked = frozenset(SafetyFailure(label) for label in failures)
        except ValueError:
            raise InvalidInput("safety_failures must be drawn from: privacy, provenance") from None
        object.__setattr__(self, "safety_failures", checked)
        blinded = BlindedOutput(output=self.output, abstained=self.abstained)  # type: ignore[arg-type]
        object.__setattr__(self, "output", blinded.output)
        object.__setattr__(self, "blinded", blinded)

    @classmethod
    def from_component(cls, candidate: str, result: Any) -> Observation:
        """Record a component result (``output``, ``abstained``, ``safety_failures``)."""
        return cls(
            candidate=candidate,
            output=result.output,
            abstained=result.abstained,
            safety_failures=frozenset(result.safety_failures),
        )

    def binding(self, candidate_digest: str) -> dict[str, Any]:
        """The facts of this observation bound into the pack digest."""
        return {
            "candidate": candidate_digest,
            "output": self.blinded.digest,
            "abstained": self.abstained,
            "safety_failures": sorted(self.safety_failures),
        }

    def __repr__(self) -> str:
        return (
            f"Observation(abstained={self.abstained}, "
            f"safety_failures={sorted(f.value for f in self.safety_failures)!r})"
        )


@dataclass(frozen=True, slots=True)
class ValidationCase:
    """One source unit: original assets, protected review context, two observations, a slice."""

    slice: CaseSlice
    assets: tuple[SourceAsset, ...]
    observations: tuple[Observation, ...]
    context: Mapping[str, Any] = field(default_factory=dict)
    unit_digest: str = field(init=False, repr=False, compare=False)
    references: tuple[SourceReference, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "slice", CaseSlice(self.slice))
        except ValueError:
            raise InvalidInput(SLICE_REFUSED) from None
        assets = materialise(
            self.assets, MAX_ASSETS_PER_CASE, f"a case holds more than {MAX_ASSETS_PER_CASE} assets"
        )
        if not assets or not all(type(asset) is SourceAsset for asset in assets):
            raise InvalidInput(
                f"a case needs one to {spelled(MAX_ASSETS_PER_CASE)} SourceAsset values"
            )
        if len({asset.digest for asset in assets}) != len(assets):
            raise InvalidInput("a case repeats an asset (matching source digest)")
        observations = materialise(
            self.observations, MAX_CANDIDATES, f"a case holds exactly {_CANDIDATES} observations"
        )
        if len(observations) != MAX_CANDIDATES or not all(
            type(o) is Observation for o in observations
        ):
            raise InvalidInput(f"a case holds exactly {_CANDIDATES} Observation values")
        if observations[0].candidate == observations[1].candidate:
            raise InvalidInput(
                f"the {_CANDIDATES} observations of a case must be of different candidates"
            )
        object.__setattr__(self, "assets", assets)
        object.__setattr__(self, "observations", observations)
        object.__setattr__(self, "context", freeze_object(self.context, max_bytes=MAX_JSON_BYTES))
        object.__setattr__(self, "unit_digest", digest_json([a.digest for a in assets]))
        object.__setattr__(
            self,
            "references",
            tuple(
                build_checked(SourceReference, digest=a.digest, media_type=a.media_type)
                for a in assets
            ),
        )

    @property
    def frozen_context(self) -> FrozenJson:
        assert isinstance(self.context, FrozenJson)
        return self.context

    def observation(self, candidate: str) -> Observation:
        """The observation of the candidate with this evaluator-side name."""
        for observation in self.observations:
            if observation.candidate == candidate:
                return observation
        raise UnknownCandidate()

    def __repr__(self) -> str:
        return f"ValidationCase(slice={self.slice.value!r}, assets={len(self.assets)})"


@dataclass(frozen=True, slots=True)
class ValidationPack:
    """One task, 1–256 distinct source units and exactly two candidates, bound by one digest."""

    task: ValidationTask
    candidates: tuple[CandidateLineage, ...]
    cases: tuple[ValidationCase, ...]
    intended_use: str
    reviewer_requirements_digest: str
    sampling_manifest_digest: str
    dataset_license_digest: str
    limitations: tuple[str, ...] = ()
    digest: str = field(init=False, repr=False, compare=False)
    total_bytes: int = field(init=False, repr=False, compare=False)
    _assets: Mapping[str, SourceAsset] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "task", ValidationTask(self.task))
        except ValueError:
            raise InvalidInput(
                f"task must be one of the {spelled(len(ValidationTask))} validation tasks"
            ) from None
        self._check_declarations()
        candidates = materialise(
            self.candidates, MAX_CANDIDATES, f"a pack holds exactly {_CANDIDATES} candidates"
        )
        if len(candidates) != MAX_CANDIDATES or not all(
            type(c) is CandidateLineage for c in candidates
        ):
            raise InvalidInput(f"a pack holds exactly {_CANDIDATES} CandidateLineage values")
        if candidates[0].name == candidates[1].name:
            raise InvalidInput(f"the {_CANDIDATES} candidates need different evaluator-side names")
        if candidates[0].digest == candidates[1].digest:
            raise InvalidInput(f"the {_CANDIDATES} candidates have identical lineage")
        cases = materialise(
            self.cases, MAX_UNITS, f"a pack holds more than {MAX_UNITS} source units"
        )
        if not cases or not all(type(case) is ValidationCase for case in cases):
            raise InvalidInput(f"a pack needs one to {MAX_UNITS} ValidationCase values")
        names = {c.name for c in candidates}
        assets: dict[str, SourceAsset] = {}
        total = 0
        json_total = 0
        for case in cases:
            if {o.candidate for o in case.observations} != names:
                raise InvalidInput("every case needs one observation per pack candidate")
            for asset in case.assets:
                if asset.digest in assets:
                    raise InvalidInput("a source digest appears more than once in the pack")
                assets[asset.digest] = asset
                total += asset.size
            json_total += case.frozen_context.size
            json_total += sum(o.blinded.output.size for o in case.observations)
        if len({case.unit_digest for case in cases}) != len(cases):
            raise InvalidInput("two cases share one source unit digest")
        if total > MAX_PACK_BYTES:
            raise LimitExceeded(f"the pack's assets exceed the {MAX_PACK_BYTES // 2**20} MiB limit")
        if json_total > MAX_PACK_JSON_BYTES:
            raise LimitExceeded(
                f"the pack's outputs and contexts exceed {MAX_PACK_JSON_BYTES // 2**20} MiB of JSON"
            )
        object.__setattr__(self, "candidates", candidates)
        object.__setattr__(self, "cases", cases)
        object.__setattr__(self, "total_bytes", total)
        object.__setattr__(self, "_assets", MappingProxyType(assets))
        object.__setattr__(self, "digest", digest_json(self.binding()))

    def _check_declarations(self) -> None:
        if type(self.intended_use) is not str or not 0 < len(self.intended_use) <= _MAX_TEXT:
            raise InvalidInput(
                f"intended_use must be a non-empty string of at most {_MAX_TEXT} characters"
            )
        for name in (
            "reviewer_requirements_digest",
            "sampling_manifest_digest",
            "dataset_license_digest",
        ):
            if not is_digest(getattr(self, name)):
                raise InvalidInput(
                    f"{name} must be a 'sha256:' digest of a protected manifest, "
                    "not a repository name or URL"
                )
        limitations = materialise(
            self.limitations,
            _MAX_LIMITATIONS,
            f"a pack declares more than {_MAX_LIMITATIONS} limitations",
        )
        if not all(type(t) is str and 0 < len(t) <= _MAX_TEXT for t in limitations):
            raise InvalidInput(
                f"limitations must be non-empty strings of at most {_MAX_TEXT} characters"
            )
        object.__setattr__(self, "limitations", limitations)

    # -- bound facts -------------------------------------------------------------------------

    def binding(self) -> dict[str, Any]:
        """Everything the pack digest binds, by digest (assets were hashed once)."""
        return {
            "schema": "openmed.multimodal.pack.v1",
            "task": self.task.value,
            "intended_use": self.intended_use,
            "limitations": list(self.limitations),
            "reviewer_requirements_digest": self.reviewer_requirements_digest,
            "sampling_manifest_digest": self.sampling_manifest_digest,
            "dataset_license_digest": self.dataset_license_digest,
            "candidates": [{"name": c.name, "digest": c.digest} for c in self.candidates],
            "cases": [
                {
                    "slice": case.slice.value,
                    "context": case.frozen_context.digest,
                    "assets": [[a.digest, a.media_type.value] for a in case.assets],
                    "observations": [
                        case.observation(c.name).binding(c.digest) for c in self.candidates
                    ],
                }
                for case in self.cases
            ],
        }

    # -- lookups -----------------------------------------------------------------------------

    def candidate(self, name: str) -> CandidateLineage:
        """The candidate with this evaluator-side name."""
        for candidate in self.candidates:
            if candidate.name == name:
                return candidate
        raise UnknownCandidate()

    def asset(self, digest: str) -> SourceAsset:
        """Resolve a packet's source reference against this exact pack's assets."""
        try:
            return self._assets[digest]
        except (KeyError, TypeError):
            raise InvalidInput("the source reference is not an asset of this pack") from None

    # -- description ---------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """Evaluator-side summary; states that this is non-diagnostic evidence."""
        slices = Counter(case.slice.value for case in self.cases)
        media = Counter(a.media_type.value for case in self.cases for a in case.assets)
        return {
            "task": self.task.value,
            "units": len(self.cases),
            "candidates": len(self.candidates),
            "slices": {s.value: slices.get(s.value, 0) for s in CaseSlice},
            "assets": sum(len(case.assets) for case in self.cases),
            "asset_bytes": self.total_bytes,
            "media_types": dict(sorted(media.items())),
            "intended_use": self.intended_use,
            "limitations": [*LIMITATIONS, *self.limitations],
            "non_diagnostic": True,
            "independent_validation": False,
        }

    # -- storage -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The versioned stored form, assets included (base64)."""
        return {
            **envelope(PACK_SCHEMA),
            "pack_digest": self.digest,
            "task": self.task.value,
            "intended_use": self.intended_use,
            "limitations": list(self.limitations),
            "reviewer_requirements_digest": self.reviewer_requirements_digest,
            "sampling_manifest_digest": self.sampling_manifest_digest,
            "dataset_license_digest": self.dataset_license_digest,
            "candidates": [
                {"name": c.name, **{name: getattr(c, name) for name in LINEAGE_FIELDS}}
                for c in self.candidates
            ],
            "cases": [
                {
                    "slice": case.slice.value,
                    "context": case.frozen_context.thaw(),
                    "assets": [
                        {
                            "media_type": a.media_type.value,
                            "digest": a.digest,
                            "data": base64.b64encode(a.data).decode("ascii"),
                        }
                        for a in case.assets
                    ],
                    "observations": [
                        {
                            "candidate": o.candidate,
                            "output": o.blinded.output.thaw(),
                            "abstained": o.abstained,
                            "safety_failures": sorted(f.value for f in o.safety_failures),
                        }
                        for o in (case.observation(c.name) for c in self.candidates)
                    ],
                }
                for case in self.cases
            ],
        }

    @classmethod
    def from_dict(cls, data: object) -> ValidationPack:
        """Rebuild a pack; every asset and the pack must match their recorded digests."""
        stored = document(
            data,
            PACK_SCHEMA,
            {
                "pack_digest",
                "task",
                "intended_use",
                "limitations",
                "reviewer_requirements_digest",
                "sampling_manifest_digest",
                "dataset_license_digest",
                "candidates",
                "cases",
            },
        )
        with malformed():
            candidates = tuple(
                CandidateLineage(**fields(c, {"name", *LINEAGE_FIELDS}))
                for c in array(stored["candidates"], MAX_CANDIDATES)
            )
            cases = tuple(_case_from_dict(c) for c in array(stored["cases"], MAX_UNITS))
            pack = cls(
                task=stored["task"],
                candidates=candidates,
                cases=cases,
                intended_use=stored["intended_use"],
                reviewer_requirements_digest=stored["reviewer_requirements_digest"],
                sampling_manifest_digest=stored["sampling_manifest_digest"],
                dataset_license_digest=stored["dataset_license_digest"],
                limitations=tuple(array(stored["limitations"], _MAX_LIMITATIONS)),
            )
        if pack.digest != stored["pack_digest"]:
            raise DocumentInvalid("the pack document does not match its recorded pack digest")
        return pack

    def __repr__(self) -> str:
        return f"ValidationPack(task={self.task.value!r}, units={len(self.cases)})"


def _case_from_dict(data: object) -> ValidationCase:
    case = fields(data, {"slice", "context", "assets", "observations"})
    assets = []
    for item in array(case["assets"], MAX_ASSETS_PER_CASE):
        entry = fields(item, {"media_type", "digest", "data"})
        encoded = entry["data"]
        if type(encoded) is not str or len(encoded) > _MAX_BASE64:
            raise DocumentInvalid(
                f"asset data must be base64 text of at most {MAX_ASSET_BYTES // 2**20} MiB"
            )
        try:
            raw = base64.b64decode(encoded.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise DocumentInvalid("asset data is not valid base64") from None
        asset = SourceAsset(raw)
        if asset.digest != entry["digest"] or asset.media_type.value != entry["media_type"]:
            raise DocumentInvalid("an asset does not match its recorded digest and media type")
        assets.append(asset)
    observations = tuple(
        Observation(
            candidate=o["candidate"],
            output=json_object(o["output"]),
            abstained=o["abstained"],
            safety_failures=frozenset(array(o["safety_failures"], 2)),
        )
        for o in (
            fields(item, {"candidate", "output", "abstained", "safety_failures"})
            for item in array(case["observations"], MAX_CANDIDATES)
        )
    )
    return ValidationCase(
        slice=case["slice"],
        assets=tuple(assets),
        observations=observations,
        context=json_object(case["context"]),
    )
