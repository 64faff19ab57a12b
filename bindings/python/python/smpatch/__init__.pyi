"""Type stubs of the smpatch package (docstrings live in the module)."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

__version__: str

__all__ = [
    "Conflict",
    "Error",
    "Schema",
    "apply",
    "compose",
    "conflicts",
    "create_three_way",
    "create_two_way",
    "extract",
    "fields",
    "normalize",
    "owners",
    "server_apply",
    "validate",
]

JSONValue = Union[None, bool, int, float, str, List["JSONValue"], Tuple["JSONValue", ...], Dict[str, "JSONValue"]]
"""A value of a document: what ``json.loads`` returns (tuples read as lists)."""

Document = Union[Dict[str, Any], str, bytes, bytearray, None]
"""A document: a dict, JSON or YAML text, or ``None`` (same as ``{}``)."""

StrPath = Union[str, "os.PathLike[str]"]

PatchType = Literal["strategic", "merge", "auto"]
"""``patch_type=`` of ``apply`` and ``create_three_way``: the names of ``smpatch apply --type``."""

FieldsShape = Literal["apply", "update"]
"""``shape=`` of ``fields``: the names of the batch ``options.shape`` and ``smpatch fields --shape``."""

MissingEntry = Literal["error", "identity"]
"""``missing_entry=`` of ``extract``: the names of the batch ``options.missing_entry``."""

Violation = Dict[str, str]
"""A union or enum violation: ``{"path": <JSON pointer>, "rule": "V1".."V5" | "enum", "message": ...}``."""

class Error(ValueError):
    kind: str
    path: str
    message: str
    violations: List[Violation]
    def __init__(
        self,
        message: str,
        kind: str = "invalid_document",
        path: str = "",
        violations: Optional[List[Violation]] = None,
    ) -> None: ...

class Conflict(Error): ...

class Schema:
    @staticmethod
    def embedded() -> Schema: ...
    @staticmethod
    def load(path_or_paths: Union[StrPath, Sequence[StrPath]], *, builtin: bool = False) -> Schema: ...
    @staticmethod
    def schemaless() -> Schema: ...
    def __contains__(self, name: str) -> bool: ...

@overload
def apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
    normalize_unions: Literal[False] = False,
    ratcheting: Optional[bool] = None,
    check_enums: Optional[bool] = None,
    non_discriminated_update: Optional[bool] = None,
) -> Dict[str, Any]: ...
@overload
def apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
    normalize_unions: Literal[False] = False,
    ratcheting: Optional[bool] = None,
    check_enums: Optional[bool] = None,
    non_discriminated_update: Optional[bool] = None,
) -> bytes: ...
@overload
def apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
    normalize_unions: Literal[True],
    ratcheting: Optional[bool] = None,
    check_enums: Optional[bool] = None,
    non_discriminated_update: Optional[bool] = None,
) -> Tuple[Dict[str, Any], List[str]]: ...
@overload
def apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
    normalize_unions: Literal[True],
    ratcheting: Optional[bool] = None,
    check_enums: Optional[bool] = None,
    non_discriminated_update: Optional[bool] = None,
) -> Tuple[bytes, List[str]]: ...
@overload
def create_two_way(
    original: Document,
    modified: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    ignore_changes_and_additions: bool = False,
    ignore_deletions: bool = False,
    max_depth: Optional[int] = None,
) -> Dict[str, Any]: ...
@overload
def create_two_way(
    original: Document,
    modified: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    ignore_changes_and_additions: bool = False,
    ignore_deletions: bool = False,
    max_depth: Optional[int] = None,
) -> bytes: ...
@overload
def create_three_way(
    original: Document,
    modified: Document,
    current: Document,
    *,
    overwrite: bool = True,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
) -> Dict[str, Any]: ...
@overload
def create_three_way(
    original: Document,
    modified: Document,
    current: Document,
    *,
    overwrite: bool = True,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    max_depth: Optional[int] = None,
    patch_type: PatchType = "strategic",
) -> bytes: ...
def conflicts(
    left: Document,
    right: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    max_depth: Optional[int] = None,
) -> bool: ...
@overload
def compose(
    first: Document,
    second: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    max_depth: Optional[int] = None,
) -> Dict[str, Any]: ...
@overload
def compose(
    first: Document,
    second: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    max_depth: Optional[int] = None,
) -> bytes: ...
@overload
def normalize(
    new: Document,
    old: Document = None,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    non_discriminated_update: bool = False,
    ratcheting: bool = False,
    check_enums: bool = True,
    max_depth: Optional[int] = None,
) -> Tuple[Dict[str, Any], List[str]]: ...
@overload
def normalize(
    new: Document,
    old: Document = None,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    non_discriminated_update: bool = False,
    ratcheting: bool = False,
    check_enums: bool = True,
    max_depth: Optional[int] = None,
) -> Tuple[bytes, List[str]]: ...
def validate(
    new: Document,
    old: Document = None,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    non_discriminated_update: bool = False,
    ratcheting: bool = False,
    check_enums: bool = True,
    max_depth: Optional[int] = None,
) -> List[Violation]: ...
@overload
def server_apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    non_discriminated_update: bool = False,
    ratcheting: bool = False,
    check_enums: bool = True,
) -> Tuple[Dict[str, Any], List[str]]: ...
@overload
def server_apply(
    original: Document,
    patch: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    fix_quirks: bool = False,
    compound_keys: bool = False,
    reject_duplicate_keys: bool = False,
    max_depth: Optional[int] = None,
    non_discriminated_update: bool = False,
    ratcheting: bool = False,
    check_enums: bool = True,
) -> Tuple[bytes, List[str]]: ...
@overload
def fields(
    obj: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    strip_server_fields: bool = True,
    allow_duplicates: Optional[bool] = None,
    max_depth: Optional[int] = None,
    shape: FieldsShape = "apply",
) -> Dict[str, Any]: ...
@overload
def fields(
    obj: Document,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    strip_server_fields: bool = True,
    allow_duplicates: Optional[bool] = None,
    max_depth: Optional[int] = None,
    shape: FieldsShape = "apply",
) -> bytes: ...
@overload
def extract(
    obj: Document,
    manager: str,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[False] = False,
    subresource: Optional[str] = None,
    reference: bool = False,
    strict_api_version: bool = False,
    include_key_fields: bool = False,
    validate: bool = True,
    max_depth: Optional[int] = None,
    missing_entry: Optional[MissingEntry] = None,
) -> Dict[str, Any]: ...
@overload
def extract(
    obj: Document,
    manager: str,
    *,
    schema: Optional[Schema] = None,
    type: Optional[str] = None,
    as_bytes: Literal[True],
    subresource: Optional[str] = None,
    reference: bool = False,
    strict_api_version: bool = False,
    include_key_fields: bool = False,
    validate: bool = True,
    max_depth: Optional[int] = None,
    missing_entry: Optional[MissingEntry] = None,
) -> bytes: ...
@overload
def owners(
    obj: Document, *, as_bytes: Literal[False] = False, max_depth: Optional[int] = None
) -> List[Dict[str, Any]]: ...
@overload
def owners(obj: Document, *, as_bytes: Literal[True], max_depth: Optional[int] = None) -> bytes: ...
