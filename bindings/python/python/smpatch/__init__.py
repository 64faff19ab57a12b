"""Kubernetes strategic merge patch, computed by the smpatch engine.

The same patches as ``kubectl`` and the same merges as the API server, for
clients and servers written in Python::

    import smpatch
    merged = smpatch.apply(live, patch)                      # the API server's merge
    patch = smpatch.create_three_way(last_applied, new, live)  # kubectl apply's patch
    obj, cleared = smpatch.normalize(new, old)               # union normalization
    config = smpatch.extract(live, "my-manager")              # what a manager applied

Documents are dicts (what the kubernetes client returns), JSON or YAML text
(``str`` or ``bytes``), or ``None`` (same as ``{}``). Results are dicts, or
compact JSON ``bytes`` with ``as_bytes=True``. Integers of any size come
back exactly; floats come back as the same float.

Every function takes ``schema=`` (default: :meth:`Schema.embedded`, the
Kubernetes v1.37 built-in API) and ``type=`` (a definition name such as
``"io.k8s.api.apps.v1.Deployment"`` or a group/version/kind such as
``"apps/v1/Deployment"``; by default read from the documents' ``apiVersion``
and ``kind``), and the engine's options as keyword arguments with their
Rust names.

Failures raise :class:`Error` (a :class:`ValueError`) with ``.kind`` (a
stable snake_case name, listed in docs/ERRORS.md of the repository),
``.path`` (an RFC 6901 JSON pointer) and ``.message``; a three-way conflict
raises :class:`Conflict`.

The merge runs without the GIL, so threads merge in parallel; a
:class:`Schema` is immutable and may be shared by every thread.
"""

from __future__ import annotations

from importlib import metadata as _metadata

try:
    __version__: str = _metadata.version("smpatch")
    """The installed package's version (``pip show smpatch``)."""
except _metadata.PackageNotFoundError:  # imported from a source tree
    __version__ = "0+unknown"

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


class Error(ValueError):
    """A document, patch or schema smpatch refuses.

    Attributes:
        kind: stable snake_case kind (``missing_merge_key``,
            ``invalid_document``, ``unknown_type``, ...), listed in
            docs/ERRORS.md.
        path: RFC 6901 JSON pointer of the offending value (``""`` is the
            document root; for schema errors, the schema location).
        message: what was wrong and what to fix.
        violations: for kind ``validation`` (:func:`normalize`,
            :func:`server_apply`), every union or enum rule the object
            breaks, as dicts ``{"path": ..., "rule": ..., "message": ...}``;
            empty for every other kind.

    ``str(error)`` is ``"<path>: <message>"`` with the root shown as ``/``.
    """

    def __init__(
        self,
        message: str,
        kind: str = "invalid_document",
        path: str = "",
        violations: list | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = path
        self.violations = list(violations or [])

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(message={self.message!r}, kind={self.kind!r}, path={self.path!r})"

    def __reduce__(self):  # keeps kind and path through pickling (multiprocessing)
        return (type(self), (self.message, self.kind, self.path, self.violations))


class Conflict(Error):
    """A three-way patch with ``overwrite=False`` would undo changes made on
    the server. ``.path`` is the first conflicting location; the message
    lists every one (kind ``conflict``)."""


# The compiled module looks the classes above up when it raises, so they are
# defined before it is imported.
from ._native import (  # noqa: E402
    Schema,
    apply,
    compose,
    conflicts,
    create_three_way,
    create_two_way,
    extract,
    fields,
    normalize,
    owners,
    server_apply,
    validate,
)
