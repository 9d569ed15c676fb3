"""gbrain's exception tree. Every surface maps it once:

    GBrainError              any failure                      → exit 1, MCP tool error
    ├── ModelUnavailable     a local embedding model is not installed → exit 1
    ├── ProviderError        an embeddings server failed, hung or answered nonsense → exit 1
    │   └── InputRefused     the server refused one of the inputs (HTTP 400/413/422) → exit 1
    ├── NotFound             no such page / source / key      → exit 1
    │   └── Ambiguous        a short name that matches several pages → exit 1
    ├── Conflict             a write that would lose data      → exit 1
    ├── Damaged              brain.db fails SQLite's integrity check → exit 1 (writes refused)
    ├── Busy                 another process held the write lock past the wait → exit 1 (nothing written)
    └── BadInput             unsafe slug, bad arguments/JSON  → exit 2 (usage)

Each class has a ``kind`` (``not_found``, ``ambiguous``, ``bad_input``, …); :func:`error_fields`
is the one JSON error object (message, exit code, kind, suggestions) of ``call``, ``pipe`` and
the MCP tool errors' ``structuredContent``.
"""
from __future__ import annotations


class GBrainError(Exception):
    """A failure with a message fit for a user (stderr) or an agent (tool error).
    ``suggestions``: what the caller probably meant (near page names, tool or parameter names),
    also said in the message (``did you mean: …``); ``call --json`` and ``pipe`` give them as a
    list."""

    exit_code = 1
    #: what went wrong, for a program to branch on (``not_found``, ``bad_input``, …): the
    #: ``kind`` of the error object every agent surface gives (:func:`error_fields`)
    kind = "error"
    suggestions: list[str] = []

    def __init__(self, *args, suggestions: list[str] | None = None):
        super().__init__(*args)
        if suggestions:
            self.suggestions = list(suggestions)


class ModelUnavailable(GBrainError):
    """A local embedding model whose package or weights are not installed (``query`` falls back
    to keyword search; ``embed`` fails with the install line)."""

    kind = "model_unavailable"


class ProviderError(GBrainError):
    """An embeddings provider (an OpenAI-compatible server) that failed: unreachable, no answer in
    time, an HTTP error, or an answer that is not embeddings (not JSON, vectors of several sizes).
    ``query`` falls back to keyword search on it; ``embed`` stops (finished groups are kept)."""

    kind = "provider_error"


class InputRefused(ProviderError):
    """The provider refused a request for its input (HTTP 400, 413 or 422: too long, bad text):
    ``embed`` splits the batch to find the one chunk refused, skips its page and goes on."""

    kind = "input_refused"

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class NotFound(GBrainError):
    """A page, source or key that does not exist. ``suggestions`` holds near names."""

    kind = "not_found"

    def __init__(self, message: str, suggestions: list[str] | None = None):
        super().__init__(message)
        self.suggestions = list(suggestions or [])


class Ambiguous(NotFound):
    """A short name (a suffix such as ``ana-lima``) that matches several pages; ``suggestions``
    holds them. Reads fail with it, and so do writes: a write must never create a new page
    beside the ones the caller may have meant."""

    kind = "ambiguous"


class Conflict(GBrainError):
    """A write refused because of the page's (or file's) present state, nothing written: it
    changed since it was read (``if_hash``), or the write would lose data there (frontmatter YAML
    that does not load, a sidecar that is not JSON, a name a page has again). The message says
    which and what to do first; reading again helps only for the first."""

    kind = "conflict"


class Damaged(GBrainError):
    """The database file is malformed (random bytes, a torn copy): writes are refused, reads
    may still get out what is readable (``gbrain export``)."""

    kind = "damaged"


class Busy(GBrainError):
    """Another process held the brain's write lock all the while this one waited for it
    (``storage.db.WRITE_WAIT_S``): nothing was written; running it again later may work (a
    script's retry). Exit code 1."""

    kind = "busy"


class BadInput(GBrainError):
    """Invalid input from the caller: unsafe slug, malformed JSON, unknown option value."""

    kind = "bad_input"

    exit_code = 2


def suggestion_fields(e: BaseException) -> dict:
    """``{"suggestions": [...]}`` for an error object: always for a :class:`NotFound` (near page
    names, maybe none), for another error when it names what was probably meant (an unknown
    tool or parameter); else ``{}``."""
    s = getattr(e, "suggestions", None) or []
    return {"suggestions": list(s)} if s or isinstance(e, NotFound) else {}


def error_fields(e: BaseException) -> dict:
    """THE error object of the agents' surfaces: ``gbrain call`` prints it, ``gbrain pipe``
    answers with it and ``gbrain serve`` returns it as a tool error's ``structuredContent``
    (beside the text): ``error`` (the message), ``exit_code`` (what ``call`` exits with: 1, or 2
    for bad input), ``kind`` (:attr:`GBrainError.kind`; ``os_error`` / ``internal`` for a
    failure that is no gbrain error) and, when there are, ``suggestions``."""
    if isinstance(e, GBrainError):
        return {"error": str(e), "exit_code": e.exit_code, "kind": e.kind, **suggestion_fields(e)}
    return {"error": f"{type(e).__name__}: {e}", "exit_code": 1, "kind": "os_error" if isinstance(e, OSError) else "internal"}


#: JSON schema of :func:`error_fields`: the MCP server makes it an arm of every tool's
#: ``outputSchema`` (``anyOf``: the result or this), so that a tool error's ``structuredContent``
#: conforms too (the TypeScript SDK's 1.x client validates it even on ``isError`` results).
#: No descriptions: it is repeated in all ~36 tools' schemas of every ``tools/list`` (with them it
#: was 18 KB of a 75 KB answer); what the fields mean is :func:`error_fields`' docstring and
#: README's, and the error's text content says it all to an agent. No ``type`` either: the arm sits
#: under the outputSchema's own ``"type": "object"`` (16 bytes × 36 tools of every tools/list),
#: nor ``items`` for ``suggestions`` (strings, said here: 27 bytes × 37 tools, which paid for ``brain_move``)
ERROR_SCHEMA: dict = {
    "properties": {
        "error": {"type": "string"},
        "exit_code": {"type": "integer"},
        "kind": {"type": "string"},
        "suggestions": {"type": "array"},
    },
    "required": ["error", "exit_code", "kind"],
}
