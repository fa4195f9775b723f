"""Every message the claims engine raises: fixed strings, kept in one place.

Inputs carry identifiers, claim keys and paths that must never surface, so no
message is ever built from input.  Keeping them all here lets the tests prove
that whatever an arbitrary input provokes, the text is one of these.
"""

from __future__ import annotations

from pytest_openmed import _jsonread
from pytest_openmed._validate import MAX_SEED
from pytest_openmed.claims.limits import (
    MAX_CITATIONS,
    MAX_CLAIMS,
    MAX_DRAWS,
    MAX_EVIDENCE,
    MAX_INPUT_BYTES,
    MAX_KEY_DEPTH,
    MAX_KEY_NODES,
    MAX_REPORT_CHARS,
    MAX_RESAMPLES,
)

__all__ = ["MESSAGES"]

# Collections and limits.
CLAIMS_NOT_ITERABLE = "claims must be an iterable of claim records"
EVIDENCE_NOT_ITERABLE = "evidence must be an iterable of evidence records"
TOO_MANY_CLAIMS = f"too many claims: the limit is {MAX_CLAIMS:,} per evaluation"
TOO_MANY_EVIDENCE = f"too many evidence rows: the limit is {MAX_EVIDENCE:,} per evaluation"
TOO_MANY_CITATIONS = f"too many citations on one claim: the limit is {MAX_CITATIONS:,}"
ITERATION_FAILED = "a collection of records or citations raised an error while being iterated"
TOO_MANY_DRAWS = (
    f"bootstrap too large: 2 x claims x resamples must not exceed {MAX_DRAWS:,} claim draws"
)

# Records.
CLAIM_RECORD_TYPE = "each claim must be a mapping or an object with claim fields"
EVIDENCE_RECORD_TYPE = "each evidence row must be a mapping or an object with evidence fields"
RECORD_UNREADABLE = "a claim or evidence record raised an error when one of its fields was read"
CLAIM_ID_MISSING = "a claim is missing claim_id"
CLAIM_CLASS_MISSING = "a claim is missing claim_class"
CLAIM_KEY_MISSING = "a claim is missing claim_key"
CITATIONS_MISSING = "a claim is missing evidence_ids (use an empty list for no citation)"
CITATIONS_TYPE = "evidence_ids must be a list of evidence ids"
EVIDENCE_ID_MISSING = "an evidence row is missing evidence_id"
APPROVED_MISSING = "an evidence row is missing approved"
APPROVED_TYPE = "approved must be a bool (true or false)"
APPROVED_CONFLICT = "an evidence row has conflicting approved and is_approved values"
ID_TYPE = "claim and evidence ids must be non-empty strings or 64-bit integers"
DUPLICATE_CLAIM_ID = "duplicate claim_id: claim ids must be unique"
DUPLICATE_EVIDENCE_ID = "duplicate evidence_id: evidence ids must be unique"

# Relations.
RELATION_TYPE = "relation must be one of: supports, contradicts, unresolved"
RELATION_FLAG_TYPE = "relation flags (supports, supported, contradicts, contradicted) must be bools"
RELATION_MISSING = "an evidence row has no relation (set relation or a relation flag)"
RELATION_AMBIGUOUS = "an evidence row's relation flags leave its relation undetermined"
RELATION_CONFLICT = "an evidence row has conflicting relation labels and flags"

# Claim classes.
CLASS_TYPE = "claim_class must be a string"
CLASS_INVALID = (
    "claim_class must normalise to 1-64 characters of a-z, 0-9 and '_' starting with a-z or 0-9"
)

# Claim keys.
KEY_TYPE = (
    "claim_key must be JSON-like: string, number, bool, null, list or object with string keys"
)
KEY_NOT_FINITE = "claim_key numbers must be finite"
KEY_INTEGER_RANGE = "claim_key integers must fit in 64 bits"
KEY_OBJECT_KEY = "claim_key object keys must be strings"
KEY_TOO_DEEP = f"claim_key nests more than {MAX_KEY_DEPTH} containers"
KEY_TOO_LARGE = f"claim_key has more than {MAX_KEY_NODES:,} nodes"

# Bootstrap configuration.
RESAMPLES_TYPE = "n_resamples must be an integer"
RESAMPLES_RANGE = f"n_resamples must be from 1 to {MAX_RESAMPLES:,}"
SEED_TYPE = "seed must be an integer"
SEED_RANGE = f"seed must be from 0 to 2**{MAX_SEED.bit_length()} - 1"
ALPHA_TYPE = "alpha must be a number"
ALPHA_RANGE = "alpha must be strictly between 0 and 1"

# Reports (construction and from_json revalidation).
REPORT_TEXT_TYPE = "a claims report must be given as JSON text (str)"
REPORT_TOO_LARGE = f"claims report text exceeds {MAX_REPORT_CHARS // 2**20} MiB"
REPORT_NOT_JSON = f"claims report is not strict JSON ({_jsonread.POLICY_REFUSALS})"
REPORT_SHAPE = "claims report does not have the expected fields"
REPORT_VERSION = "claims report schema or schema_version is not supported"
REPORT_NUMBER = "claims report numbers must be of the expected type and range"
REPORT_COUNTS = "claims report counts do not agree with each other"
REPORT_RATE = "claims report rate does not equal unsupported_count / claim_count"
REPORT_INTERVAL = "claims report interval must satisfy 0 <= lower <= point <= upper <= 1"
REPORT_INTERVAL_POINT = "claims report interval point must equal the unsupported rate"
REPORT_DEGENERATE = (
    "claims report interval must be degenerate, and zero-width, exactly below two claims"
)
REPORT_ZERO_WIDTH = "claims report interval must be zero-width when all claims share one outcome"
REPORT_CONFIGURATION = "claims report intervals disagree with the report configuration"
REPORT_CLASS = "claims report classes must be normalised class names with at least one claim"
REPORT_DIGEST = "claims report evidence digest must be a 'sha256:' digest"
REPORT_EVIDENCE_COUNT = f"claims report evidence count must be from 0 to {MAX_EVIDENCE:,}"
REPORT_TYPE = "claims report parts must be report value objects"

# Input files (gate adapter).
FILE_UNREADABLE = "a claims gate input file could not be read"
FILE_TOO_LARGE = f"a claims gate input file exceeds {MAX_INPUT_BYTES // 2**20} MiB"
FILE_EMPTY = "a claims gate input file is empty (write [] for an empty collection)"
FILE_NOT_UTF8 = "a claims gate input file is not UTF-8 text"
FILE_NOT_JSON = "a claims gate input file is not a JSON array or JSON Lines"
FILE_DUPLICATE_KEY = "a claims gate input file has a record with a duplicate field name"
FILE_RECORD_TYPE = "every record of a claims gate input file must be a JSON object"
FILE_TOO_MANY_CLAIMS = f"a claims gate claims file has more than {MAX_CLAIMS:,} records"
FILE_TOO_MANY_EVIDENCE = f"a claims gate evidence file has more than {MAX_EVIDENCE:,} records"

# Gate thresholds.
THRESHOLD_VALUE = "claims gate thresholds must be numbers from 0 to 1"
THRESHOLD_NAME = (
    "claims gate thresholds are max_unsupported_rate and max_upper (and, per class, allow_absent)"
)
GATE_ITEM = "claims gate items must be 'overall' or 'class[<class>]' with a class threshold"
GATE_OPTIONS = "claims gate options are incomplete or of the wrong type"
CLASS_ABSENT = (
    "the class has no claims in the data, so its threshold cannot be checked; "
    "set allow_absent = true for a class that may legitimately be empty"
)
CLASS_NOT_STANDARD = (
    "not a standard class, and no claim has it, so its threshold cannot be checked; "
    "check the gate file's spelling (closest_standard_class names the nearest standard "
    "class) or set allow_absent = true"
)
UNDERPOWERED = (
    "underpowered: with this few claims the exact upper bound exceeds max_upper even with "
    "no unsupported claim, so the gate cannot pass; needed_claims says how many it needs"
)

#: Every message above; an exception from this engine carries exactly one of them.
MESSAGES: frozenset[str] = frozenset(
    value for name, value in dict(globals()).items() if name.isupper() and type(value) is str
)
