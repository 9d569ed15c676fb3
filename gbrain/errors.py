"""gbrain's exception tree. Every surface maps it once:

    GBrainError              any failure                      → exit 1, MCP tool error
    ├── ModelUnavailable     a local embedding model is not installed → exit 1
    ├── ProviderError        an embeddings server failed, hung or answered nonsense → exit 1
    │   └── InputRefused     the server refused one of the inputs (HTTP 400/413/422) → exit 1
    ├── NotFound             no such page / source / key      → exit 1
    │   └── Ambiguous        a short name that matches several pages → exit 1
    ├── Conflict             a write that would lose data      → exit 1
    ├── Damaged              brain.db fails SQLite's integrity check → exit 1 (writes refused)
    └── BadInput             unsafe slug, bad arguments/JSON  → exit 2 (usage)
"""
from __future__ import annotations


class GBrainError(Exception):
    """A failure with a message fit for a user (stderr) or an agent (tool error).
    ``suggestions``: what the caller probably meant (near page names, tool or parameter names),
    also said in the message (``did you mean: …``); ``call --json`` and ``pipe`` give them as a
    list."""

    exit_code = 1
    suggestions: list[str] = []

    def __init__(self, *args, suggestions: list[str] | None = None):
        super().__init__(*args)
        if suggestions:
            self.suggestions = list(suggestions)


class ModelUnavailable(GBrainError):
    """A local embedding model whose package or weights are not installed (``query`` falls back
    to keyword search; ``embed`` fails with the install line)."""


class ProviderError(GBrainError):
    """An embeddings provider (an OpenAI-compatible server) that failed: unreachable, no answer in
    time, an HTTP error, or an answer that is not embeddings (not JSON, vectors of several sizes).
    ``query`` falls back to keyword search on it; ``embed`` stops (finished groups are kept)."""


class InputRefused(ProviderError):
    """The provider refused a request for its input (HTTP 400, 413 or 422: too long, bad text):
    ``embed`` splits the batch to find the one chunk refused, skips its page and goes on."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class NotFound(GBrainError):
    """A page, source or key that does not exist. ``suggestions`` holds near names."""

    def __init__(self, message: str, suggestions: list[str] | None = None):
        super().__init__(message)
        self.suggestions = list(suggestions or [])


class Ambiguous(NotFound):
    """A short name (a suffix such as ``ana-lima``) that matches several pages; ``suggestions``
    holds them. Reads fail with it, and so do writes: a write must never create a new page
    beside the ones the caller may have meant."""


class Conflict(GBrainError):
    """A write refused because it would lose data."""


class Damaged(GBrainError):
    """The database file is malformed (random bytes, a torn copy): writes are refused, reads
    may still get out what is readable (``gbrain export``)."""


class BadInput(GBrainError):
    """Invalid input from the caller: unsafe slug, malformed JSON, unknown option value."""

    exit_code = 2
