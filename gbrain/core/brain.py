"""The brain: one SQLite file holding pages, their derived views and every other file of the tree.

Invariant: every page row renders back to the exact bytes it was written from
(:func:`render_row`), and all structured rows of a page (tags, links, timeline_entries) are
rebuilt from that text on every write. Writes that edit a page (tag, link, timeline-add, …)
edit its *markdown* and re-save it, so the markdown tree and the structured rows never drift.
"""
from __future__ import annotations

import contextlib
import difflib
import hashlib
import heapq
import json
import os
import posixpath
import re
import sqlite3
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import Ambiguous, BadInput, Conflict, GBrainError, NotFound
from ..storage import blobs, rawspans
from ..storage import db as dbmod
from ..storage.db import EMBEDDING_MODEL_CHOSEN, SPACED_WHERE, in_parts, tuple_rows
from ..storage.filters import PageFilter, folder_key, tag_filter_key
from ..storage.derive import PendingLinks, derived_rows, identity_key, insert_many, relink_all, relink_updates, update_links, write_name_folds, write_rows, write_rows_many
from ..page.links import MemoryIndex, SqlIndex, graph_folder_likes, graph_journal_folders, graph_roots, graph_settings, graphs_of, is_graph_config, journal_day_of, journal_link_names, notion_titled, resolve, title_names
from ..page.journals import CONFIG as JOURNAL_CONFIG
from ..page.journals import Settings, graph_root, logseq_day, regex_runs
from ..page.canvas import canvas_nodes, is_canvas
from ..page import navfile
from ..page.navfile import NAV_LIKE, SECTION_SEP, is_nav_file, nav_entries
from ..search.chunking import CHUNK_TOKENS_SAID, chunk_tokens_ok
from ..page.jsonsplice import set_member
from ..search.keyword import search_fields, write_canvas_cards
from ..page.markdown import (
    BOM,
    FOLDER_TYPES,
    Page,
    append_timeline,
    append_link_line,
    bear_note,
    edit_frontmatter,
    entry_key,
    logseq_items,
    logseq_properties,
    map_strings,
    PROPERTY_SYNTAXES,
    TAG_SYNTAXES,
    notion_items,
    notion_properties,
    notion_tag_added,
    notion_tag_removed,
    parse_page,
    parse_timeline_entries,
    page_property_syntax,
    reads_graphs,
    reads_logseq_properties,
    stem,
    timeline_line,
    timeline_target,
    to_lf,
)
from ..page.slugs import (
    cmd_arg,
    hidden_page_write,
    is_hidden_path,
    is_page_copy,
    MAX_NAME_BYTES,
    check_slug,
    conflict_original,
    exact_slug,
    segments_key,
    loose_key,
    name_key,
    nfc,
    chosen_sidecar,
    moved_sidecar_path,
    page_sidecar_path,
    page_slug_for_sidecar,
    sidecar_twins_note,
    path_for_slug,
    sidecar_ranges,
    slug_for_path,
    slug_key,
    tag_identity,
    tag_merge_form,
    tag_spelling_rank,
    title_key,
    shown,
    NAME_MAX,
    _SOMETHING_ELSE,
)

#: re_resolve reads every link once (instead of looking the names up) when it has at least one
#: name per this many links
SCAN_NAMES = 16
SPECIAL_FILES = {"index.md": "original_index", "schema.md": "original_schema", "log.md": None}
MAX_PAGE_CHARS = 16 * 1024 * 1024  # the importer keeps larger markdown as a file, so put refuses it

# A number key takes ASCII digits only ([0-9], never \d or isdigit): isdigit takes "²" and "①",
# which int() refuses when the value is read, \d takes "٣", which SQLite's CAST reads as 0
_is_int = lambda v: (s := v.strip()).isascii() and s.isdigit()  # noqa: E731
#: a number of ASCII digits with an optional fraction, spaces around it
_DECIMAL = re.compile(r"\s*[0-9]+(\.[0-9]+)?\s*")
# (float() of the stripped value: float keeps U+001C-U+001F, which strip() and \s take as spaces)
_seconds_or_empty = lambda v: v.strip() == "" or (bool(_DECIMAL.fullmatch(v)) and float(v.strip()) > 0)  # noqa: E731


def _weight_ok(v: str) -> bool:
    """``search/hybrid.weight_ok`` (imported when a value is checked: hybrid pulls in the vector
    modules, ~45 ms a process that never sets config)."""
    from ..search.hybrid import weight_ok

    return weight_ok(v)


def _price_ok(v: str) -> bool:
    """``search/embeddings.price_ok`` (imported when a value is checked, as :func:`_weight_ok`)."""
    from ..search.embeddings import price_ok

    return price_ok(v)


#: config keys a user may set: a value check, and what it takes (for the error when a value fails it)
SETTABLE_CONFIG = {
    "timeline_split": (lambda v: v in ("rule", "heading"), "rule or heading"),
    "tag_syntax": (lambda v: v in TAG_SYNTAXES, " or ".join(TAG_SYNTAXES)),
    "property_syntax": (lambda v: v in PROPERTY_SYNTAXES, " or ".join(PROPERTY_SYNTAXES)),
    "embedding_model": (lambda v: bool(v.strip()), "a model name"),
    "embedding_dimensions": (_is_int, "a whole number"),
    "embedding_base_url": (lambda v: v == "" or v.startswith(("http://", "https://")), "an http:// or https:// URL, or empty"),
    "embedding_max_retries": (_is_int, "a whole number"),
    "embedding_concurrency": (_is_int, "a whole number"),
    "embedding_encoding": (lambda v: v in ("float", "base64"), "float or base64"),
    "embedding_batch_size": (_is_int, "a whole number"),
    # seconds a request waits until the server has answered once (empty: 15): search/embeddings.py FIRST_TIMEOUT
    "embedding_first_timeout": (_seconds_or_empty, "a number of seconds above 0, or empty"),
    # the chunk budget for the brain's model (a local server whose model reads 512 tokens): search/embeddings.py
    "embedding_chunk_tokens": (chunk_tokens_ok, CHUNK_TOKENS_SAID),
    "embedding_paid": (lambda v: v.strip().lower() in ("", "true", "false", "yes", "no", "1", "0"), "true or false"),
    # seconds `query` waits for the question's embedding from a server, then keyword results (empty: 5)
    "query_embed_timeout": (_seconds_or_empty, "a number of seconds above 0, or empty"),
    # the keyword side's share when `query` fuses keywords and vectors, for the model in use when set
    # (WEIGHT_MODEL; empty: the model's own, 0.7 for one gbrain has no measured weight for): search/hybrid.py keyword_weight
    "query_keyword_weight": (_weight_ok, "a number from 0 to 1 (the keyword side's share in `query`), or empty"),
    # US$ per million tokens of a paid endpoint's model (empty: OpenAI's price of its name, else unknown)
    "embedding_price_per_mtok": (_price_ok, "US dollars per million tokens, e.g. 0.02, or empty"),
    "embed_confirm_usd": (lambda v: bool(_DECIMAL.fullmatch(v)), "an amount in US dollars, e.g. 5 or 2.50"),
    # an agent's `brain_embed` with a local model and no limit stops after about this many seconds
    # (empty: 30; 0: no bound): operations/search.py AGENT_SECONDS
    "embed_agent_seconds": (lambda v: v.strip() == "" or bool(_DECIMAL.fullmatch(v)), "a number of seconds (0: no bound), or empty"),
    # the spec's key: gbrain chunks by section (search/chunking.py), the only value it takes (trial 42:
    # page and paragraph were stored and listed as set, read by nothing)
    "chunk_strategy": (lambda v: v == "section", "section (gbrain chunks pages by section only)"),
    # `history --prune` defaults (empty: keep everything)
    "history_keep_days": (lambda v: v == "" or _is_int(v), "a whole number of days, or empty"),
    "history_keep_last": (lambda v: v == "" or _is_int(v), "a whole number of versions, or empty"),
    # a sync client (folder) not synced for this many days stops holding the change log back
    # (empty: 30; 0: never); it is compared path by path when it comes back
    "sync_client_expire_days": (lambda v: v == "" or _is_int(v), "a whole number of days (0: never), or empty"),
    # plain `verify` takes the word of a passing quick_check of the database file this many hours
    # old while the file is exactly as it left it (empty: 24; 0: check every time)
    "verify_trust_check_hours": (lambda v: v.strip() == "" or (bool(_DECIMAL.fullmatch(v))), "a number of hours (0: check every time), or empty"),
}
#: every chunk budget config ``embedding_chunk_tokens`` has held (comma-separated): `purge` cuts a
#: purged text at each to find its cached vectors (``core/purge.py: _chunk_budgets``)
CHUNK_TOKENS_USED = "embedding_chunk_tokens_used"
#: what an OpenAI-compatible server said of its model's window (``search.embeddings.SERVER_WINDOW_KEY``)
SERVER_WINDOW = "embedding_server_window"
#: the model (its ``model_id``) in use when ``query_keyword_weight`` was set: the weight applies to
#: it only, another model takes its own (search/hybrid.py ``weight_applies``); none stored (a weight
#: set by an older gbrain, or when no model could be made): any model
WEIGHT_MODEL = "query_keyword_weight_model"
READONLY_CONFIG = {"version", "original_index", "original_schema", EMBEDDING_MODEL_CHOSEN, CHUNK_TOKENS_USED, SERVER_WINDOW, WEIGHT_MODEL}
#: what sets each key of :data:`READONLY_CONFIG` (``config get`` of one not set says it: it has no default)
READONLY_SET_BY = {
    "version": "at init",
    "original_index": "when an import reads a root index.md",
    "original_schema": "when an import reads a root schema.md",
    EMBEDDING_MODEL_CHOSEN: "with `gbrain config set embedding_model`",
    CHUNK_TOKENS_USED: "when a chunk budget (embedding_chunk_tokens, a server's window) comes into use",
    SERVER_WINDOW: "when `embed` learns an OpenAI-compatible server's model window",
    WEIGHT_MODEL: "with `gbrain config set query_keyword_weight`: the embedding model in use then, the one the weight is for",
}


def unknown_config_key(key: str) -> BadInput:
    """The error for a config key gbrain does not know: the nearest known one, and all of them."""
    near = difflib.get_close_matches(key, sorted(SETTABLE_CONFIG), n=1)
    return BadInput(f"unknown config key '{key}'" + (f"; did you mean '{near[0]}'?" if near else "") + f" (known: {', '.join(sorted(SETTABLE_CONFIG))})")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def render_row(row: sqlite3.Row | dict) -> str:
    """The exact page text of a ``pages`` row."""
    return (BOM if row["bom"] else "") + row["frontmatter_raw"] + row["compiled_truth"] + row["separator"] + row["timeline"]


#: what a canvas's bytes hold, parsed (:meth:`Brain.canvas_links`): (path, content hash, timeline_split,
#: tag_syntax) → ((kind, target, context, count, forms), …); cleared when it holds 512
_CANVAS_PARSED: dict[tuple, list[tuple]] = {}
#: what a nav file's bytes hold, parsed (:meth:`Brain.nav_read`: an ``mkdocs.yml`` without entries,
#: lint's moved-page advice; the entries themselves are stored, ``nav_entries``): (path, content
#: hash) → (base folder, ((href, target, context, form), …), lists_all); cleared when it holds 512
_NAV_PARSED: dict[tuple, tuple[str, list[tuple], bool]] = {}


def file_kind(path: str) -> str:
    """How a non-page file is kept: ``raw`` sidecar, ``special`` root file, or ``blob``."""
    if page_slug_for_sidecar(path) is not None:
        return "raw"
    if path in SPECIAL_FILES:
        return "special"
    return "blob"


@dataclass
class SaveResult:
    slug: str
    path: str
    page_id: int
    changed: bool
    created: bool
    warnings: list[str] = field(default_factory=list)
    counts: tuple[int, int, int] | None = None  # (links, timeline entries, tags) parsed from the text
    names: set[str] = field(default_factory=set)  # link-target keys whose resolution may have changed
    note: str | None = None  # why nothing changed (e.g. the timeline entry is already there)
    #: the page's content_hash after the write (a put's ``if_hash`` for the next edit): every
    #: surface's answer of put, tag, untag, link, unlink and timeline-add carries it (revert's
    #: and ingest's too)
    content_hash: str | None = None

    def as_dict(self) -> dict:
        d = {"slug": self.slug, "path": self.path, "changed": self.changed, "created": self.created, "warnings": self.warnings}
        if self.content_hash:
            d["content_hash"] = self.content_hash
        if self.note:
            d["note"] = self.note
        return d


def atomic(method):
    """Run a read-modify-write method in one write transaction (``BEGIN IMMEDIATE``), so two
    processes editing the same page serialise instead of overwriting each other's change."""
    import functools

    @functools.wraps(method)
    def wrapper(self, *a, **kw):
        with self.transaction():
            return method(self, *a, **kw)

    return wrapper



#: ``GBRAIN_NEAR_CACHE=0`` turns off the did-you-mean tables kept per brain (:class:`_NearTables`) and
#: their prefilter: every miss scans every name again, as before (benchmarks/missed_lookup.py's baseline)
_NEAR_FAST = os.environ.get("GBRAIN_NEAR_CACHE", "1") != "0"
_NEAR_SEP = re.compile(r"[\W_]+")


def _near_key(name: str) -> str:
    """What did-you-mean compares (:meth:`Brain.suggest`): ``name`` without accents (NFKD, combining
    marks dropped), casefolded, each run of characters that are not letters or digits one ``-``."""
    if _NEAR_FAST and name.isascii():  # (NFKD leaves ASCII as it is and holds no combining mark)
        return _NEAR_SEP.sub("-", name.casefold()).strip("-")
    base = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return re.sub(r"[\W_]+", "-", base.casefold()).strip("-")


_ASCII_NEAR_SEP = re.compile(r"[^a-z0-9/]+")
_NEAR_SLASH = re.compile(r"-*/-*")


def _slug_near_keys(slug: str) -> tuple[str, str]:
    """``(key, file name's key)`` of ``slug``: :func:`_near_key` of each ``/`` segment joined by
    ``/``, and of its last segment; for an ASCII slug in two regex passes over the whole of it."""
    if _NEAR_FAST and slug.isascii():
        key = _NEAR_SLASH.sub("/", _ASCII_NEAR_SEP.sub("-", slug.casefold())).strip("-")
        return key, key.rsplit("/", 1)[-1]
    segs = [_near_key(p) for p in slug.split("/")]
    return "/".join(segs), segs[-1]


class _CloseIndex:
    """``difflib.get_close_matches`` over a fixed list of distinct strings, the same answer from
    fewer ``SequenceMatcher`` runs. rapidfuzz gives every string's longest common subsequence
    with the word (``Indel`` distance, in C), and ``2·LCS / (len(a) + len(b))`` bounds difflib's
    ``ratio`` (its matching blocks are a common subsequence; same formula, so in floats too).
    Strings run through difflib's own three tests from the highest bound down, stopping once
    ``n`` of them score above every bound left; ties of difflib's ``(ratio, string)`` order are
    kept (a 1e-9 margin). No numpy: a CLI ``get`` does not import it."""

    def __init__(self, keys: list[str]):
        self.keys = keys

    def close(self, word: str, n: int, cutoff: float) -> list[str]:
        """``difflib.get_close_matches(word, keys, n, cutoff)``."""
        from rapidfuzz import process
        from rapidfuzz.distance import Indel

        if not n > 0:
            raise ValueError("n must be > 0: %r" % (n,))
        lq = len(word)
        cands = []
        for x, dist, _ in process.extract(word, self.keys, scorer=Indel.distance, limit=None):
            total = len(x) + lq
            bound = 2.0 * ((total - dist) // 2) / total if total else 1.0
            if bound >= cutoff - 1e-9:
                cands.append((bound, x))
        cands.sort(key=lambda c: c[0], reverse=True)
        s = difflib.SequenceMatcher()
        s.set_seq2(word)
        top: list[tuple[float, str]] = []
        for bound, x in cands:
            if len(top) >= n and top[0][0] > bound + 1e-9:
                break
            s.set_seq1(x)
            if s.real_quick_ratio() >= cutoff and s.quick_ratio() >= cutoff and s.ratio() >= cutoff:
                heapq.heappush(top, (s.ratio(), x))
                if len(top) > n:
                    heapq.heappop(top)
        return [x for _, x in sorted(top, reverse=True)]


class _NearTables:
    """What :meth:`Brain.suggest` compares a missed name with, built from every page's slug and
    alias: ``by_key`` (slug's :func:`_near_key` form → the first slug, in slug order, of that form),
    ``names`` (file name's form → its slugs, in order), ``aliases`` (``alias_key`` → ``(alias,
    slug)``, of the oldest alias row of each key) and a :class:`_CloseIndex` of
    each. A brain keeps one until its stamp changes (:meth:`Brain._near_tables`)."""

    def __init__(self, slugs: list[str], alias_rows: list, memo: dict | None = None) -> None:
        """``memo``: slug → :func:`_slug_near_keys`, kept between builds (filled here)."""
        self.by_key: dict[str, str] = {}
        self.names: dict[str, list[str]] = {}
        memo = {} if memo is None else memo
        for s in slugs:
            got = memo.get(s)
            if got is None:
                got = memo[s] = _slug_near_keys(s)
            key, base = got
            self.by_key.setdefault(key, s)
            self.names.setdefault(base, []).append(s)
        self.aliases = {r[0]: (r[1], r[2]) for r in alias_rows}
        self._index: dict[str, _CloseIndex] = {}

    def close(self, which: str, word: str, n: int) -> list[str]:
        """``difflib.get_close_matches(word, KEYS, n, 0.6)`` over ``which``'s keys (``by_key``,
        ``names`` without '', ``aliases``); through the prefilter when :data:`_NEAR_FAST`."""
        keys = {"by_key": lambda: list(self.by_key), "names": lambda: [k for k in self.names if k], "aliases": lambda: list(self.aliases)}[which]
        if not _NEAR_FAST:
            return difflib.get_close_matches(word, keys(), n=n, cutoff=0.6)
        ix = self._index.get(which)
        if ix is None:
            ix = self._index[which] = _CloseIndex(keys())
        return ix.close(word, n, 0.6)



def _near_spelling(asked: str, name: str) -> bool:
    """Whether ``name`` is ``asked`` a few letters off (both :func:`_near_key` forms): OSA edit
    distance, a swap counting one, one up to 7 characters, two up to 11, three from 12."""
    from rapidfuzz.distance import OSA

    n = len(asked)
    bound = 1 if n <= 7 else 2 if n <= 11 else 3
    return OSA.distance(asked, name, score_cutoff=bound) <= bound


def _near_miss(asked: str, name: str) -> bool:
    """Whether ``name`` is a real near miss of ``asked`` (both :func:`_near_key` forms, ``/``
    between segments), not a look-alike difflib's ratio alone lets through (``storymaker`` for
    ``thomas-becker``, trial 38): a few letters off (OSA edit distance, a swap counting one: one
    up to 7 characters, two up to 11, three from 12), or the same words but for the longer
    one's extra ones (``alice`` for ``alice-smith``; the last segments' words), a word a letter off from 4 characters."""
    from rapidfuzz.distance import OSA

    if _near_spelling(asked, name):
        return True
    a, b = [w for w in asked.rsplit("/", 1)[-1].split("-") if w], [w for w in name.rsplit("/", 1)[-1].split("-") if w]  # (file names' words)
    few, many = (a, b) if len(a) <= len(b) else (b, a)
    return bool(few) and all(any(w == v or (len(w) >= 4 and OSA.distance(w, v, score_cutoff=1) <= 1) for v in many) for w in few)


def rule_as_separator_note(page, base, heading: bool) -> str | None:
    """The note of an entry added (``timeline-add``, ``put --timeline-append``) to a page whose
    first ``---`` reads as its timeline separator under ``timeline_split rule`` although the text
    below it holds a heading and no entry: a plain rule, as Obsidian vaults use it (the entry went
    to the end of the page). ``page``: the page before the write; ``base``: its timeline as
    ``timeline_target`` reads it. None otherwise."""
    if heading or not page.separator or base.timeline_entries:
        return None
    h = next((ln.strip() for ln in page.timeline.splitlines() if re.match(r"#{1,6}\s", ln)), None)
    if not h:
        return None
    return ("the page's first `---` reads as its timeline separator, but the text below it is no timeline "
            f"(it holds `{h[:60]}`), so the entry went to the end of the page; if this vault uses `---` as a plain rule, "
            "`gbrain config set timeline_split heading` makes only a `---` above a `## Timeline` or `## History` heading the separator")



def _slip_for(key: str, name: str) -> int | None:
    """How far ``key`` (a type, tag or folder asked for, compared casefolded) is from the brain's
    ``name`` when it is a slip for it, else None: another case (0), a plural or singular
    (``comparisons``, ``companies`` for ``company``: 1), or a typo of a few letters (OSA edit
    distance, a swap counting one: none in a name of 3 characters or fewer, one up to 7, two from
    8: ``persn``, ``team/engg``, ``comparisn``). ``active`` is no slip for ``action`` (two of six
    letters), nor ``company`` for ``comparison``."""
    from rapidfuzz.distance import OSA

    a, b = key.casefold(), name.casefold()
    if a == b:
        return 0
    x, y = a.rstrip("/"), b.rstrip("/")
    for p, s in ((x, y), (y, x)):
        if p in (s + "s", s + "es") or (p.endswith("ies") and s.endswith("y") and p[:-3] == s[:-1]):
            return 1
    allowed = 0 if len(x) <= 3 else 1 if len(x) <= 7 else 2
    d = OSA.distance(a, b, score_cutoff=allowed)
    return d if d <= allowed else None

def _notion_tags_check(page: Page, key: str, tagged: bool) -> Callable[[Page, Page], bool]:
    """The check ``Brain._edit`` makes of a ``tag`` (``tagged``) or ``untag`` edit of a Notion
    export page's ``Tags:`` line (:func:`gbrain.page.markdown.notion_tag_added`,
    ``notion_tag_removed``): the new page has (``tagged``) or lacks the tag of identity ``key``
    (:func:`tag_identity`) and links exactly as ``page`` (kind and target, in order)."""
    had = [(ln.kind, ln.target) for ln in page.links]
    return lambda o, n: (key in {tag_identity(t) for t in n.all_tags}) == tagged and [(ln.kind, ln.target) for ln in n.links] == had


#: the refusal of a write whose page text (or frontmatter given) holds U+0000: SQLite would keep
#: it, Postgres cannot store it in text, so both engines refuse it alike (a file holding NUL
#: bytes is imported as a blob, :func:`gbrain.sync.importer.classify`)
NUL_TEXT = ("{what} contains a NUL character (U+0000), which a page cannot hold (Postgres cannot store it); "
            "keep binary data as a file; nothing was written")


def refuse_nul(text: str, what: str = "page text") -> None:
    """Raise ``BadInput`` (:data:`NUL_TEXT`) when ``text`` holds U+0000."""
    if "\x00" in text:
        raise BadInput(NUL_TEXT.format(what=what))


class Brain:
    """A brain database. Open with :meth:`open`; use as a context manager to close it."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn = conn
        self.path = path
        self._tx_depth = 0
        self._config_cache: dict[str, str] | None = None
        #: pages an import parsed already knowing the Logseq graphs its tree holds: the save of a
        #: graph's config re-derives its other pages only (:meth:`graph_config_changed`)
        self._graph_parsed: "set[str] | frozenset[str]" = frozenset()
        #: why the file fails SQLite's integrity check (writes are then refused), or None
        self.damaged: str | None = None
        self._checked = False  # quick_check ran in this process
        #: a quick_check running beside the command (:meth:`start_check`): thread, its own
        #: connection and the answer box
        self._pending_check: tuple[Any, sqlite3.Connection, list] | None = None
        self._check_state: list | None = None  # the file's state when the check began (db.file_state)
        #: when this process's quick_check began (time.time_ns()) and the file's state then, racy
        #: or not; after an import's own writes, the state they left (:meth:`vouch_base`)
        self._check_at: int | None = None
        self._sound_state: list | None = None
        #: an import's writes on a file this process found sound: (check time, by, total_changes
        #: after them), re-recorded at close when nothing was written since (:meth:`record_writes`)
        self._writes_vouched: tuple[int, str, int] | None = None
        #: the file is as a passing quick_check left it (:meth:`start_check`: db.checked_as_is)
        self.vouched = False
        #: that check's record (db.check_record: its time ``at`` and ``by``) when :attr:`vouched`
        self.vouched_record: dict | None = None
        self._vouch_age: float | None = None  # the age bound the record was taken with
        self._open_lock: list[tuple[int, str]] = []
        self._suggesting = False  # suggest() is running: a lookup inside it does not suggest in turn
        #: why the brain is not open (:meth:`offline`: its disk is full), else None
        self.offline_reason: str | None = None
        #: the caller's stop check for the call under way, or None: ``hook(commit)`` raises when the
        #: caller gave up (``operations.Context.check_cancel`` of a cancellable MCP call, set by
        #: ``operations.registry._guarded``); :meth:`check_stop` calls it, ``commit`` True just before a commit
        self.stop_hook: Callable[[bool], None] | None = None
        #: write transactions this connection committed through :meth:`transaction`
        self.commits = 0

    # ---- lifecycle ----------------------------------------------------------

    @classmethod
    def open(cls, db: str | os.PathLike | None = None, *, create: bool = True, allow_empty_file: bool = False) -> "Brain":
        """Open the brain at ``db`` (or ``$GBRAIN_DB``, or ``./brain.db``), creating it if allowed.

        After an unclean shutdown (the last process using the file died: a WAL file is left and
        no other gbrain process has the brain open) the file is checked with SQLite's
        quick_check first; a damaged file opens for reading only (:attr:`damaged`)."""
        path = dbmod.resolve_db_path(db)
        if not isinstance(path, Path):  # a Postgres URL (storage/pg.py): the server keeps it sound
            return cls(dbmod.connect(path, create=create), path)  # type: ignore[arg-type]
        unclean, lock = _open_lock(path)
        try:
            # a log of another file's (another brain's, another state's) is never replayed into the
            # brain; looked at under the exclusive lock: no gbrain process writes the log meanwhile
            look = dbmod.set_aside_misfit_wal(path) if unclean else None
            if unclean:
                _share_lock(lock)
            b = cls(dbmod.connect(path, create=create, allow_empty_file=allow_empty_file), path)
        except BaseException:
            _close_lock(lock)
            raise
        b._open_lock = lock
        dbmod.warn_hard_links(path)
        if unclean:
            if look is not None and look.checked and dbmod.same_content(dbmod.file_state(path), look.state):
                b._take_check(look)  # the file as that check read it: its answer stands
            else:
                b.check_sound(raise_=False)
        return b

    def _take_check(self, look: "dbmod.WalLook") -> None:
        """:meth:`check_sound`'s answer from the quick_check the open's look at the log ran
        (``db.set_aside_misfit_wal``) on the file as it is now (the states taken now: opening
        the log may have moved its ctime)."""
        self._checked = True
        self.damaged = look.why
        self._check_at, self._check_state, self._sound_state = look.at, self._file_state(), dbmod.file_state(self.path)
        if look.why is None and self._check_state:
            dbmod.record_sound(self.path, self._check_state, at=look.at)

    @classmethod
    def offline(cls, db: str | os.PathLike | None, reason: str) -> "Brain":
        """A brain not opened: its SQLite file's disk is full, so not even a reader could be made
        (``reason``, the error that said so). Its connection is closed; ``watch`` (the only
        operation that takes one: ``Operation.waits_for_space``) opens it once there is space."""
        conn = sqlite3.connect(":memory:")
        conn.close()
        b = cls(conn, dbmod.resolve_db_path(db))  # type: ignore[arg-type]
        b.offline_reason = reason
        b._checked = True  # nothing to check before it is open
        return b

    def refuse_writes(self) -> None:
        """From now on the database refuses every write on this connection (SQLite
        ``PRAGMA query_only``): a write raises ``sqlite3.OperationalError`` ("attempt to write a
        readonly database"), which reaches the user as a read-only error. For ``serve
        --read-only``."""
        self.conn.execute("PRAGMA query_only = ON")

    def close(self) -> None:
        self._drop_pending_check()
        vouched = self._writes_vouched
        if vouched is not None:
            try:
                if self.conn.total_changes != vouched[2]:
                    vouched = None  # written since the import: not vouched for
            except sqlite3.Error:
                vouched = None
        self.conn.close()
        if vouched is not None:
            # the last connection's close checkpoints the WAL into the file: record the state
            # that leaves (the import's record no longer matches it)
            state = dbmod.settled_state(self.path)
            if state and state != self._sound_state:
                dbmod.record_sound(self.path, state, at=vouched[0], by=vouched[1])
        if self._open_lock:
            _close_lock(self._open_lock)
            self._open_lock = []

    def check_sound(self, *, raise_: bool = True) -> None:
        """Run SQLite's quick_check once per process (43 ms for a 2,000-page brain, ~0.5 CPU-s for
        a 50,000-page one of 560 MB). A damaged file sets :attr:`damaged`; ``raise_`` then raises
        :class:`~gbrain.errors.Damaged`. When :meth:`start_check` began it in a thread, this
        waits for that answer."""
        if not self._checked:
            why = self._pending_answer()
            self._checked = True
            if why is None and self._pending_check is None:
                self._note_check_start()
                why = dbmod.quick_check(self.conn)
            self._pending_check = None
            if why:
                self.damaged = why
            elif self._check_state:
                dbmod.record_sound(self.path, self._check_state, at=self._check_at)
        if self.damaged and raise_:
            from ..errors import Damaged

            raise Damaged(f"{self.path} is damaged (SQLite: {self.damaged}); nothing was written; {dbmod.recovery_advice(self.path)}")

    def start_check(self, *, trust_record: bool = True, max_age_s: float | None = None) -> None:
        """Begin :meth:`check_sound`'s quick_check now, in a thread on a connection of its own
        (SQLite runs it without holding the GIL), for a command that reads a lot before its first
        write: ``sync`` walks and stats the folder meanwhile. Its first write (a
        :meth:`transaction`, or an explicit :meth:`check_sound`) waits for the answer, so a
        damaged file is still never written to; the command calls :meth:`check_sound` before it
        reports (:meth:`finish_check`). Only for a SQLite file not yet checked in this process;
        when the side connection cannot be opened, :meth:`check_sound` checks on this one as
        before. When the file is exactly as a passing check left it (``db.checked_as_is``) no
        check starts: :attr:`vouched` is set (and :attr:`vouched_record`), and a write still
        checks first; ``max_age_s``: only a check that ran at most that long ago (``verify``,
        whose report says when the file passed its check); ``trust_record=False`` (``verify
        --check-db``) checks all the same."""
        if self._checked or self._pending_check is not None or not isinstance(self.path, Path) or getattr(self.conn, "dialect", "sqlite") != "sqlite":
            return
        if dbmod.on_full_disk(self.conn):  # a side connection could not read past its lock
            return
        if trust_record:
            rec = dbmod.check_record(self.path, max_age_s=max_age_s)
            if rec is not None:
                self.vouched, self.vouched_record = True, rec  # no thread: a write checks first (check_sound), see finish_check
                self._vouch_age = max_age_s
                return
        import threading

        try:
            side = dbmod.raw_connect(self.path)  # opened as the brain's own connection was (a read-only mount: read-only)
        except sqlite3.Error:
            return
        box: list = []
        self._note_check_start()

        def run() -> None:
            try:
                box.append(dbmod.quick_check(side))
            except BaseException as e:  # noqa: BLE001 - the answer is "check again here"
                box.append(e)

        t = threading.Thread(target=run, name="gbrain-quick-check", daemon=True)
        self._pending_check = (t, side, box)
        t.start()

    def finish_check(self, *, raise_: bool = True) -> None:
        """The end of a command that called :meth:`start_check`: raise
        :class:`~gbrain.errors.Damaged` when the file is damaged, as :meth:`check_sound` would
        have before the command. Not checked again when the command wrote nothing and the file
        was found exactly as a passing quick_check left it (:attr:`vouched`: same inode, size,
        mtime and ctime of the file and its WAL; ``db.checked_as_is``): its answer stands.
        Else (the file changed meanwhile) :attr:`vouched` is cleared and the file checked now."""
        if self.vouched and not self._checked:
            if dbmod.checked_as_is(self.path, max_age_s=self._vouch_age):
                return
            self.vouched, self.vouched_record = False, None
        self.check_sound(raise_=raise_)

    def _note_check_start(self) -> None:
        """The file's state as a quick_check begins (:meth:`check_sound`, :meth:`start_check`):
        recorded when it passes if not racy (``_check_state``); kept racy or not, with the time,
        for :meth:`vouch_base`."""
        self._check_at = time.time_ns()
        self._check_state = self._file_state()
        self._sound_state = dbmod.file_state(self.path) if isinstance(self.path, Path) else None

    def vouch_base(self) -> int | None:
        """When the file's current state stands on a passing quick_check of this process: the
        time that check began (``time.time_ns()``), else None. True when the file is exactly as
        it was when the check began, or as this process's last :meth:`record_writes` left it (its
        own import's commits since). Call with the write lock held (an import's ``begin_write``),
        so no other writer moves it before the writes it vouches for."""
        if not self._checked or self.damaged or self._check_at is None or self._sound_state is None or not isinstance(self.path, Path):
            return None
        return self._check_at if dbmod.file_state(self.path) == self._sound_state else None

    def record_writes(self, at: int | None, by: str = "import") -> None:
        """Record the state the file is in after this process's own commits (an import's), made
        on a file that :meth:`vouch_base` found as a passing check of this process left it: a
        later command (``verify``, ``sync``) may take that check's word for this state
        (``db.check_record``; its time is ``at``, the check's, so its age bound still counts from
        the check). Nothing when ``at`` is None or the state is racy (``db.settled_state``). The
        close of the last connection checkpoints the WAL: :meth:`close` records again then when
        nothing was written meanwhile."""
        if at is None or not isinstance(self.path, Path):
            return
        state = dbmod.settled_state(self.path)
        if not state:
            return
        dbmod.record_sound(self.path, state, at=at, by=by)
        self._sound_state = state
        self._writes_vouched = (at, by, self.conn.total_changes)

    def _file_state(self) -> list | None:
        """``db.file_state`` of this brain's file when it is not racy (else None: not recorded)."""
        return dbmod.file_state(self.path, racy_ok=False) if isinstance(self.path, Path) else None

    def _pending_answer(self) -> str | None:
        """The answer of the quick_check :meth:`start_check` began (waiting for it): None when
        sound, else why not; when there was none, or it failed to run, ``_pending_check`` is
        cleared and None returned (the caller checks on its own connection)."""
        if self._pending_check is None:
            return None
        t, side, box = self._pending_check
        t.join()
        side.close()
        if box and (box[0] is None or isinstance(box[0], str)):
            return box[0]
        self._pending_check = None
        return None

    def _drop_pending_check(self) -> None:
        """Stop a quick_check still running at close (a command that ended before it asked)."""
        if self._pending_check is not None:
            t, side, _ = self._pending_check
            side.interrupt()
            t.join()
            side.close()
            self._pending_check = None

    def __enter__(self) -> "Brain":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def check_stop(self, commit: bool = False) -> None:
        """Raise the caller's stop exception (``operations.Cancelled``) when the caller has given
        up (:attr:`stop_hook`); nothing when none is set. Long reads call it between their steps, and
        :meth:`transaction` before its commit (``commit``: a caller that went away without
        cancelling lets the write under way finish). What was committed before stays."""
        if self.stop_hook is not None:
            self.stop_hook(commit)

    @contextlib.contextmanager
    def transaction(self, stop: bool = True) -> Iterator[None]:
        """A write transaction (``BEGIN IMMEDIATE``); nests by joining the outer one. With
        ``stop`` (the default) the outermost one calls :meth:`check_stop` just before its commit, so
        a call its caller cancelled while it ran is rolled back whole (the exception raised);
        ``stop=False`` commits what it did whatever (embed's groups of vectors already paid for)."""
        if self._tx_depth:
            self._tx_depth += 1
            try:
                yield
            finally:
                self._tx_depth -= 1
            return
        self.check_sound()  # a malformed file is never written to
        dbmod.begin_write(self.conn)
        self._tx_depth = 1
        changes = self._changes()
        try:
            yield
        except BaseException:
            self._tx_depth = 0
            dbmod.rollback(self.conn)
            raise
        self._tx_depth = 0
        try:
            if changes is not None and self._changes() != changes:
                self._fts_upkeep()
            if stop:
                self.check_stop(commit=True)  # a cancelled call: nothing of this transaction is committed
            dbmod.commit(self.conn)
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt) and not self.conn.in_transaction:
                self.commits += 1  # (a Ctrl-C taken as the COMMIT returned: committed, and counted)
                raise
            dbmod.rollback(self.conn)
            raise
        self.commits += 1

    def _changes(self) -> int | None:
        """The rows this SQLite connection has changed so far (``total_changes``); None on Postgres."""
        return None if dbmod.is_postgres(self.conn) else self.conn.total_changes

    def _fts_upkeep(self) -> None:
        """A write transaction's bounded step of keyword-index upkeep (:func:`db.fts_upkeep`), in a
        savepoint: an index that fails (damaged: ``check`` advises ``reindex``) never fails the write."""
        self.conn.execute("SAVEPOINT fts_upkeep")
        try:
            dbmod.fts_upkeep(self.conn)
        except sqlite3.DatabaseError:
            self.conn.execute("ROLLBACK TO fts_upkeep")
        self.conn.execute("RELEASE fts_upkeep")

    # ---- config -------------------------------------------------------------

    def config(self) -> dict[str, str]:
        if self._config_cache is None:
            self._config_cache = {r["key"]: r["value"] for r in self.conn.execute("SELECT key, value FROM config")}
        return dict(self._config_cache)

    def get_config(self, key: str, default: str | None = None) -> str | None:
        return self.config().get(key, default)

    def set_config(self, key: str, value: str) -> None:
        """Set a config value. Raises :class:`BadInput` for an unknown key (with the nearest known
        one), a read-only key, or a value of the wrong kind."""
        if key in READONLY_CONFIG:
            raise BadInput(f"config '{key}' is set by gbrain itself and cannot be changed")
        if key not in SETTABLE_CONFIG:
            raise unknown_config_key(key)
        check, expects = SETTABLE_CONFIG[key]
        if not check(value):
            raise BadInput(f"invalid value {value!r} for {key} (expected {expects})")
        old = self.get_config(key)
        weight_model = self._model_in_use() if key == "query_keyword_weight" else None
        with self.transaction():
            self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
            if key == "query_keyword_weight":  # the weight is the model's in use (WEIGHT_MODEL)
                if weight_model:
                    self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                      (WEIGHT_MODEL, weight_model))
                else:
                    self.conn.execute("DELETE FROM config WHERE key = ?", (WEIGHT_MODEL,))
            if key == "embedding_model":  # a person's choice: a key in the environment may now switch models
                self.conn.execute("INSERT INTO config(key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING", (EMBEDDING_MODEL_CHOSEN,))
            if key == "embedding_chunk_tokens":  # vectors cut at it may stay in the cache after another is set
                used = [u for u in (self.get_config(CHUNK_TOKENS_USED) or "").split(",") if u]
                if str(int(value)) not in used:
                    self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                      (CHUNK_TOKENS_USED, ",".join(used + [str(int(value))])))
            self._config_cache = None
            if key == "timeline_split" and (old or "rule") != value:
                self.rederive_pages()  # where compiled truth ends depends on it
            if key == "tag_syntax" and (old or "obsidian") != value:
                self.rederive_pages()  # which text is a tag depends on it
            if key == "property_syntax" and (old or "auto") != value:
                self.rederive_pages()  # whether opening key:: lines title, alias and tag a page depends on it

    def _model_in_use(self) -> str | None:
        """The ``model_id`` of the embedding model ``query`` uses now (``vectors.active_model``), or
        None when none can be made from the settings."""
        from ..search.vectors import active_model

        try:
            return active_model(self.conn, self.config())[0].model_id
        except GBrainError:
            return None

    def remember_config(self, key: str, value: str, chunk_tokens: int | None = None) -> None:
        """Store a config value gbrain sets itself (a key of :data:`READONLY_CONFIG`; raises
        :class:`BadInput` for another), in one transaction; ``chunk_tokens``: a chunk budget it
        brings into use, added to :data:`CHUNK_TOKENS_USED` (``purge`` cuts a text at each)."""
        if key not in READONLY_CONFIG:
            raise BadInput(f"config '{key}' is not one gbrain sets itself")
        with self.transaction():
            self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
            used = [u for u in (self.get_config(CHUNK_TOKENS_USED) or "").split(",") if u]
            if chunk_tokens and str(int(chunk_tokens)) not in used:
                self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                  (CHUNK_TOKENS_USED, ",".join(used + [str(int(chunk_tokens))])))
            self._config_cache = None

    def learn_server_window(self, model) -> str | None:
        """Ask the OpenAI-compatible server (not api.openai.com) of ``model`` (the provider in
        effect) once how many tokens its model reads (``embeddings.ask_server_window``: TEI's
        ``/info``, llama.cpp's ``/props``) when the brain set no ``embedding_chunk_tokens`` and
        has no answer for this model and base URL yet; cache the answer in config
        :data:`SERVER_WINDOW`. Returns the note to say when it gives a chunk budget (the model is
        then to be made again: ``active_model``), else None; a server that could not be asked is
        silent and nothing is cached (asked next time). ``embed`` and ``watch --embed`` call it."""
        from ..search import embeddings as emb

        cfg = self.config()
        url = getattr(model, "base_url", None)
        name = getattr(model, "api_model", None)
        if not isinstance(model, emb.OpenAIEmbedding) or not url or emb._is_openai_url(url) or emb.server_window(cfg, name):
            return None
        try:
            if emb.chunk_tokens_config(cfg):
                return None
        except BadInput:
            return None
        got = emb.ask_server_window(url, model.api_key)
        if got is None:
            return None
        budget = emb.window_budget(got["tokens"])
        self.remember_config(SERVER_WINDOW, json.dumps({"model": name, "url": url, **got}), chunk_tokens=budget)
        if not budget:
            return None
        return (f"note: the server at {emb._host(url)} says {name} reads {got['tokens']:,} tokens ({got['from']}): chunks are cut at "
                f"{budget} (`gbrain config set embedding_chunk_tokens N` sets another budget)")

    def unset_config(self, key: str) -> bool:
        """Remove a config value, so its default applies again; True when it was set. Raises
        :class:`BadInput` for a read-only or unknown key (as :meth:`set_config`). ``embedding_model``
        takes its chosen marker (``embedding_model_chosen``) with it: the default is then nobody's
        choice, as on a new brain (a key in the environment does not move offline vectors)."""
        if key in READONLY_CONFIG:
            raise BadInput(f"config '{key}' is set by gbrain itself and cannot be changed")
        if key not in SETTABLE_CONFIG:
            raise unknown_config_key(key)
        old = self.get_config(key)
        if old is None:
            return False
        with self.transaction():
            self.conn.execute("DELETE FROM config WHERE key = ?", (key,))
            if key == "query_keyword_weight":
                self.conn.execute("DELETE FROM config WHERE key = ?", (WEIGHT_MODEL,))
            if key == "embedding_model":  # the person's choice withdrawn: the default is nobody's choice again
                self.conn.execute("DELETE FROM config WHERE key = ?", (EMBEDDING_MODEL_CHOSEN,))
            self._config_cache = None
            if key == "timeline_split" and old != "rule":
                self.rederive_pages()  # back to the default rule
            if key == "tag_syntax" and old != "obsidian":
                self.rederive_pages()  # back to Obsidian's tags
            if key == "property_syntax" and old != "auto":
                self.rederive_pages()  # back to the page's path deciding
        return True

    def rederive_graph(self, root: str, skip: "set[str] | frozenset[str]" = frozenset(), *, named: bool = False, days: bool = False,
                       dirs: "tuple[str, str]" = ("pages", "journals"), more: "tuple[str, str]" = ("pages", "journals")) -> int:
        """Parse again (same bytes) the pages of the ``pages``/``journals`` folders of the graph
        rooted at ``root`` (``''``: the top), but those at a path of ``skip``, and rebuild their
        derived rows, as a fresh import would: after its ``logseq/config.edn`` came or went
        (:meth:`page_syntax`). ``named``: only the ``pages`` folder's pages whose file name a
        ``:file/name-format`` reads otherwise than as written (``%``, ``___`` or ``.`` in it:
        :func:`~gbrain.page.markdown.logseq_page_name`), after the config was edited; ``days``:
        the ``journals`` folder's pages (their titles follow the journal formats) and the ``pages``
        folder's whose file name or title holds a digit (one Logseq reads as a day is titled in the
        title format). ``dirs``: the graph's ``(pages folder, journals folder)`` (its
        ``:pages-directory``/``:journals-directory``); ``more``: another such pair read too (a
        config whose folders changed: the old ones). Logseq's default ``pages``/``journals`` are
        read whatever ``dirs`` say (:func:`~gbrain.page.markdown.page_property_syntax`: the files
        Logseq wrote there stay the graph's). Returns the number of pages."""
        pages_dirs = tuple(dict.fromkeys((dirs[0], more[0], "pages")))
        folders = pages_dirs if named else tuple(dict.fromkeys(pages_dirs + (dirs[1], more[1], "journals")))
        heads = [f"{root}/{folder}/" if root else f"{folder}/" for folder in folders]
        sel = "SELECT path, title, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE " + " OR ".join(
            "substr(path, 1, ?) = ?" for _ in heads)
        pages_heads = tuple(f"{root}/{d}/" if root else f"{d}/" for d in pages_dirs)

        def wanted(r) -> bool:
            if named:
                return any(c in stem(r["path"]) for c in ("%", "___", "."))
            if days and r["path"].startswith(pages_heads):
                return any(ch.isdigit() for ch in stem(r["path"]) + r["title"])
            return True

        rows = [r for r in self.conn.execute(sel, tuple(x for h in heads for x in (len(h), h))).fetchall() if r["path"] not in skip and wanted(r)]
        with self.transaction():
            for r in rows:
                self.save_page(r["path"], render_row(r), force=True)
        return len(rows)

    def rederive_pages(self) -> int:
        """Parse every page again (same bytes, current ``timeline_split`` and ``tag_syntax``) and rebuild its derived
        rows, as a fresh import would. Returns the number of pages."""
        rows = self.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages").fetchall()
        with self.transaction():
            for r in rows:
                self.save_page(r["path"], render_row(r), force=True, resolve_incoming=False)
            self.resolve_dangling()
            self.re_resolve({r[0] for r in self.conn.execute("SELECT DISTINCT target_name FROM links")})
        return len(rows)

    @property
    def tag_syntax(self) -> str:
        """How inline tags are read: config ``tag_syntax``, ``obsidian`` (default) or ``bear``
        (Bear's closed ``#multi word tag#`` too: :func:`~gbrain.page.markdown.extract_inline_tags`)."""
        v = self.get_config("tag_syntax", "obsidian")
        return v if v in TAG_SYNTAXES else "obsidian"

    @property
    def property_syntax(self) -> str:
        """How the ``key:: value`` lines opening a page are read: config ``property_syntax``,
        ``auto`` (default: by the page's path, :func:`~gbrain.page.markdown.reads_logseq_properties`),
        ``logseq`` (page properties) or ``dataview`` (inline fields: no title, alias or tag)."""
        v = self.get_config("property_syntax", "auto")
        return v if v in PROPERTY_SYNTAXES else "auto"

    @property
    def timeline_split(self) -> str:
        return self.get_config("timeline_split", "rule") or "rule"

    # ---- page lookup --------------------------------------------------------

    def page_row(self, slug: str) -> sqlite3.Row | None:
        return self.conn.execute("SELECT * FROM pages WHERE slug = ?", (nfc(slug),)).fetchone()

    def resolve_slug(self, slug: str, *, suggest: bool = True, loose: bool = True) -> sqlite3.Row:
        """Find a page by slug: exact, then case-insensitive, then a unique suffix, then an alias,
        then (``loose``) as a wiki link of that name resolves (a name with a ``/`` only by a title:
        ``TCP/IP`` finds the page titled so).

        ``pedro-franceschi`` finds ``people/pedro-franceschi`` when no other page ends that way;
        ``Templater`` finds the page whose frontmatter ``aliases`` hold it (case-insensitive, NFC);
        ``Claude Code`` finds ``entities/claude-code`` (its slugified file name, else its title,
        else an alias written another way: :func:`gbrain.page.links.resolve`'s step 3); a name
        no page has that holds a ``#`` (``loose``) finds the page of what comes before it, as the
        wiki link ``[[東京#歴史]]`` points at ``東京``.
        Raises :class:`BadInput` for an unsafe slug, :class:`Ambiguous` (a :class:`NotFound`;
        the matches in ``suggestions``) for a suffix or an alias several pages share and
        :class:`NotFound` (with near names in ``suggestions``, aliases included) for a miss;
        ``suggest=False`` leaves the near names out (a caller that creates the page on a miss). The
        near names come from tables kept per process until the brain changes (:meth:`_near_tables`;
        ``benchmarks/missed_lookup.py``: ~0.11 CPU-s per miss at 20,000 pages, ~0.3 s for the first
        miss in a fresh process).
        """
        raw = exact_slug(slug)  # as written first: `notes/Draft plan `, `x.md` (file x.md.md)
        row = self.page_row(raw) if raw else None
        if row:
            return row
        s = check_slug(slug)
        row = self.page_row(s)
        if row:
            return row
        key = slug_key(s)
        rows = self.conn.execute("SELECT * FROM pages WHERE slug_key = ?", (key,)).fetchall()
        if len(rows) == 1:
            return rows[0]
        cands = self.conn.execute("SELECT * FROM pages WHERE name_key = ?", (name_key(s),)).fetchall()
        cands = [r for r in cands if r["slug_key"] == key or r["slug_key"].endswith("/" + key)]
        if len(cands) == 1:
            return cands[0]
        if len(cands) > 1:
            names = sorted(r["slug"] for r in cands)
            raise Ambiguous(f"'{slug}' matches {len(names)} pages: " + ", ".join(names[:10]) + "; give the full slug", names[:10])
        # the same name but for spaces around a segment (`notes/Draft plan ` typed without its space)
        sk = segments_key(s)
        spaced = [r for r in self.conn.execute(f"SELECT slug FROM pages WHERE {SPACED_WHERE}")  # (a partial index of them: v58)
                  if segments_key(r[0]) == sk or segments_key(r[0]).endswith("/" + sk)]
        if len(spaced) == 1:
            return self.page_row(spaced[0][0])
        if len(spaced) > 1:
            names = sorted(r[0] for r in spaced)
            raise Ambiguous(f"'{slug}' matches {len(names)} pages: " + ", ".join(repr(n) for n in names[:10]) + "; give the full slug", names[:10])
        rows = self.conn.execute(
            "SELECT DISTINCT p.* FROM aliases a JOIN pages p ON p.id = a.page_id WHERE a.alias_key = ? ORDER BY p.slug", (identity_key(slug.strip()),)
        ).fetchall()
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            names = [r["slug"] for r in rows]
            msg = f"'{slug}' is an alias of {len(names)} pages: " + ", ".join(names[:10])
            moved = self.renamed(slug)  # also the old name of a renamed page: say where it went, first
            if moved and moved["slug"] not in names:
                msg += f"; {moved['words']}"
                names = [moved["slug"]] + names
            raise Ambiguous(msg + "; give the full slug", names[:10])
        if loose and "/" not in slug.strip():
            # a bare name as a wiki link writes it: the page `[[Claude Code]]` resolves to by its
            # slugified file name, its title or an alias written another way (page/links.py, step 3)
            lk, index = loose_key(slug), SqlIndex(self.conn)
            for column in ("loose_key", "title_key", "alias_loose"):
                names = sorted({s for _, s in index.lookup(column, lk)}) if lk else []
                if len(names) == 1:
                    return self.page_row(names[0])
                if names:
                    raise Ambiguous(f"'{slug}' names {len(names)} pages: " + ", ".join(names[:10]) + "; give the full slug", names[:10])
        elif loose:  # a name with a '/' no path matches: the page titled so, as [[TCP/IP]] resolves (or a Notion path of titles)
            index, name = SqlIndex(self.conn), nfc(slug.strip())
            names = sorted({s for _, s in index.titled(name) or notion_titled(index, name)})
            if len(names) == 1:
                return self.page_row(names[0])
            if names:
                raise Ambiguous(f"'{slug}' is the title of {len(names)} pages: " + ", ".join(names[:10]) + "; give the full slug", names[:10])
        if loose and any(ch.isdigit() for ch in slug):  # a Logseq journal by the title Logseq shows (Nov 28th, 2026)
            names = sorted({s for _, s in SqlIndex(self.conn).journal(nfc(slug.strip()))})
            if len(names) == 1:
                return self.page_row(names[0])
            if names:
                raise Ambiguous(f"'{slug}' names the journals of {len(names)} Logseq graphs: " + ", ".join(names[:10]) + "; give the full slug", names[:10])
        if loose and "#" in slug.strip().strip("#"):
            # a wiki link's target with its heading or block (`東京#歴史`, `Note#^id`), as an agent
            # copies it from `[[東京#歴史]]`: the page the link points at (split at its first `#`, as
            # Obsidian splits it; trial 43)
            try:
                return self.resolve_slug(slug.split("#", 1)[0], suggest=False, loose=True)
            except Ambiguous:
                raise
            except (NotFound, BadInput):
                pass
        if self._suggesting or not suggest:
            raise NotFound(f"no page '{slug}'", [])
        msg = f"no page '{slug}'"
        try:  # a name whose file the brain keeps as a non-page file (index.md, schema.md of a GBrain tree): `get` reads it (trial 54)
            filed = self.conn.execute("SELECT path FROM files WHERE path = ?", (path_for_slug(s),)).fetchone()
        except (BadInput, ValueError):
            filed = None
        if filed:
            raise NotFound(f"{msg}: {filed[0]} is stored as a non-page file (an attachment, sidecar or index/log/schema file), "
                           f"not a page: read it by its path; tags, links and timeline entries are for pages", self.suggest(s))
        moved = self.renamed(slug)
        if moved:  # an old name: the history knows where the page went, the one suggestion (no
            # did-you-mean scan of every name, ~1 s at 6,500 pages, for a name followed on every read and write: trial 55)
            raise NotFound(f"{msg}: {moved['words']}", [moved["slug"]])
        # a deleted page: in the trash, one restore away (an agent would write it anew)
        newest = "SELECT op, at FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1"
        d, gone = self.conn.execute(newest, (s,)).fetchone(), s
        if d is None and "/" not in s:  # a short name (`ana-lima`), as restore takes it: one deleted page ending so
            names = self.conn.execute("SELECT DISTINCT name FROM history WHERE kind = 'page' AND lower(name) LIKE '%/' || lower(?)", (s,)).fetchall()
            if len(names) == 1:
                gone = names[0][0]
                d = self.conn.execute(newest, (gone,)).fetchone()
        trashed = self._trashed_near(s)[:2] if d is None else []
        # a deleted page's near names (or a near miss's of one) as pages: an alias near its name is
        # another page's, whose alias looked like the deleted page's name (trial 59: its translation)
        sugg = self.suggest(s, slugs=bool(trashed) or (d is not None and d["op"] == "delete"))
        if d is not None and d["op"] == "delete":
            who = "it" if gone == s else gone
            msg += f": {who} was deleted on {d['at'][:10]} and is in the trash (`gbrain restore {cmd_arg(gone)}` brings it back)"
        elif d is None:  # a near miss of a deleted page's name (`Thomas Beker`): after the did-you-mean (trial 48)
            near = "".join(f"; {gone} was deleted on {at[:10]} and is in the trash (`gbrain restore {cmd_arg(gone)}` brings it back)"
                           for gone, at in trashed)
            if sugg:
                msg += "; did you mean: " + ", ".join(sugg)
            raise NotFound(msg + near, sugg)
        if sugg:
            msg += "; did you mean: " + ", ".join(sugg)
        raise NotFound(msg, sugg)

    def _trashed_near(self, slug: str) -> list[tuple[str, str]]:
        """``[(name, deleted at)]`` of the deleted pages in the trash (the newest history row of
        their name a deletion, no page of that name now) whose name or file name is spelled a few letters off
        ``slug``'s (:func:`_near_spelling`: not :func:`_near_miss`'s shared words, which named
        ``meetings/2026-12-05-ana-yilmaz-sync`` for ``people/ana-yilmas``, trial 48); read only on a
        miss, from the history's deletions."""
        key = "/".join(map(_near_key, slug.split("/")))
        base = _near_key(posixpath.basename(slug))
        out = []
        for (name,) in self.conn.execute("SELECT DISTINCT name FROM history WHERE kind = 'page' AND op = 'delete' ORDER BY name"):
            nk = "/".join(map(_near_key, name.split("/")))
            if not (_near_spelling(key, nk) or (base and _near_spelling(base, _near_key(posixpath.basename(name))))):
                continue
            r = self.conn.execute("SELECT op, at FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (name,)).fetchone()
            if r is not None and r[0] == "delete" and self.page_row(name) is None:
                out.append((name, r[1]))
        return out

    def renamed(self, slug: str) -> dict | None:
        """Where the page that had the name ``slug`` went, when no page has it now and the
        history's newest row for it is a move (a rename in the synced folder, ``sync``/``watch``,
        or in the brain): ``{"slug": its name now, "at": when (ISO UTC), "words": "OLD was renamed
        to NEW on …"}``; None otherwise (also for an unsafe name)."""
        from .history import renamed_to, renamed_words

        try:
            s = check_slug(slug)
        except BadInput:
            return None
        if self.page_row(s):
            return None
        moved = renamed_to(self.conn, s)
        if moved is None:
            # a unique suffix of an old name (`ollama` for `entities/ollama`), as it found the page
            # before the rename; one several renamed pages share names none of them
            key = slug_key(s)
            olds = {n for (n,) in self.conn.execute(
                "SELECT DISTINCT name FROM history WHERE kind = 'page' AND op = 'move' AND lower(name) LIKE '%/' || lower(?)", (s,))
                if slug_key(n).endswith("/" + key)}
            found = {n: m for n in olds if (m := renamed_to(self.conn, n)) is not None}
            if len(found) != 1:
                return None
            s, moved = next(iter(found.items()))
        return {**moved, "words": renamed_words(s, moved)}

    def resolve_for_write(self, slug: str) -> sqlite3.Row | None:
        """The page a whole or partial ``put`` of ``slug`` writes: :meth:`resolve_slug`'s page,
        or None when there is none (the write creates ``slug``).

        Raises :class:`BadInput` when the page found is named like ``slug`` but for case or
        Unicode width (``meeting`` finding ``Meeting``, as a whole slug or as a suffix): that is
        another name, and replacing that page's text from it lost a vault's ``SCHEMA.md`` to a
        ``put schema``; creating it beside the page would make two files that clash on macOS and
        Windows. ``Ambiguous`` as :meth:`resolve_slug` raises it.
        """
        try:
            row = self.resolve_slug(slug, suggest=False, loose=False)  # a miss creates the page: no near names to compute
        except Ambiguous:
            raise
        except NotFound:
            return None
        got, want = row["slug"], nfc(slug)
        if got == want or got.endswith("/" + want):
            return row
        got_key, want_key = slug_key(got), slug_key(want)
        if got_key == want_key or got_key.endswith("/" + want_key):
            raise BadInput(
                f"'{slug}' differs only in case from the page {got}: give '{got}' to write it "
                "(put does not create a name beside one that differs only in case: the two files would clash on macOS and Windows)"
            )
        return row

    def stored_text_file(self, name: str) -> tuple[str, str] | None:
        """``(path, text)`` of the stored non-page file a page name names when no page does:
        ``name`` itself or ``name + ".md"`` (the root's ``index.md``, ``schema.md`` and
        ``log.md``, which the spec keeps as files; a markdown file kept as a file because it
        is not UTF-8 gives None). None when there is no such file, it is over
        :data:`MAX_PAGE_CHARS` bytes or it is not UTF-8 text."""
        for path in (nfc(name), nfc(name) + ".md"):
            r = self.conn.execute("SELECT size FROM files WHERE path = ?", (path,)).fetchone()
            if r is None or (r[0] or 0) > MAX_PAGE_CHARS:
                continue
            data = blobs.file_bytes(self.conn, path)
            try:
                return (path, data.decode("utf-8")) if data is not None and b"\x00" not in data else None
            except UnicodeDecodeError:
                return None
        return None

    def suggest(self, slug: str, n: int = 5, *, slugs: bool = False) -> list[str]:
        """Up to ``n`` names near ``slug``, each one a page can be named by, each page once: slugs
        near the whole slug, then every page whose file name is near its last segment (several
        folders may hold one name: all of them, by slug), then aliases (as written) near it — an
        alias that names another page or several pages, or any alias when ``slugs`` (a deleted
        page's miss: an alias near its name names another page, trial 59's translation), is given
        as its page's slug; for a name with a folder, the ones in that folder and those of the
        same file name come before the rest. Near: difflib ratio >= 0.6 on :func:`_near_key`
        (case, accents and separators ignored)."""
        self._suggesting = True  # resolve_slug of an alias below never suggests in turn
        try:
            return self._suggest(slug, n, slugs)
        finally:
            self._suggesting = False

    def _near_tables(self) -> _NearTables:
        """This brain's :class:`_NearTables`, built again only when the database changed since
        they were built: ``storage/db.change_stamp``, as the vector caches (this connection, ``PRAGMA
        data_version``, which another connection's or process's commit changes (on Postgres the
        newest history row: every page write adds one; and the schema version, as a migration derives
        alias rows again with no history row), and this connection's ``total_changes``).
        Built every time when :data:`_NEAR_FAST` is off or inside a transaction; a slug's keys are
        kept between builds (``_near_memo``), so a build after a write reads the names again only."""
        # (not inside a transaction: one rolled back would leave its names in tables its stamp still matches)
        stamp = dbmod.change_stamp(self.conn) if _NEAR_FAST and not self.conn.in_transaction else None
        kept = getattr(self, "_near_kept", None)
        if stamp is not None and kept is not None and dbmod.same_stamp(kept[0], stamp):
            return kept[1]
        slugs = sorted(r[0] for r in self.conn.execute("SELECT slug FROM pages"))
        memo = getattr(self, "_near_memo", None) if _NEAR_FAST else None
        if memo is None or len(memo) > 2 * len(slugs) + 1000:  # (names gone since are dropped now and then)
            memo = self._near_memo = {}
        tables = _NearTables(slugs, self.conn.execute("SELECT a.alias_key, a.alias, p.slug FROM aliases a JOIN pages p ON p.id = a.page_id ORDER BY a.id DESC").fetchall(),
                             memo if _NEAR_FAST else None)
        if stamp is not None:
            self._near_kept = (stamp, tables)
        return tables

    def _suggest(self, slug: str, n: int, slugs: bool = False) -> list[str]:
        t = self._near_tables()
        by_key, names, aliases = t.by_key, t.names, t.aliases
        key = "/".join(map(_near_key, slug.split("/")))
        out = [by_key[k] for k in t.close("by_key", key, n) if _near_miss(key, k)]
        base = _near_key(posixpath.basename(slug))
        # (a name of no letter or digit, `★`, keys as '': near every other such name, `📚📚📚`)
        for k in t.close("names", base, n) if base else []:
            if _near_miss(base, k):
                out += [s for s in names[k] if s not in out]
        pages = set(out)  # each page suggested once (two aliases of one page: its first)
        for k in t.close("aliases", identity_key(slug), n):
            if not _near_miss(_near_key(identity_key(slug)), _near_key(k)):
                continue
            alias, s = aliases[k]
            if s in pages:
                continue
            try:  # an alias is suggested only where it names its page; else the page's slug
                named = not slugs and self.resolve_slug(alias)["slug"] == s
            except (NotFound, BadInput):
                named = False
            name = alias if named else s
            if name not in out:
                out.append(name)
                pages.add(s)
        if "/" in slug.strip("/"):
            # a name with a folder: that folder's pages first, and a page of the same file name
            # elsewhere (moved); near names in other folders after them, each group in its order
            folder = key.rsplit("/", 1)[0]

            def later(s: str) -> bool:
                here = "/" in s and "/".join(map(_near_key, s.split("/"))).rsplit("/", 1)[0] == folder
                return not (here or _near_key(posixpath.basename(s)) == base)

            out.sort(key=later)
        return out[:n]

    def get_text(self, slug: str) -> str:
        return render_row(self.resolve_slug(slug))

    def check_text(self, row: sqlite3.Row, what: str = "nothing was written") -> str:
        """The page text of ``row`` when its sha256 is the ``content_hash`` stored with it; else
        raises :class:`~gbrain.errors.Damaged` (random bytes in the database file), one line with
        how to recover, ``what`` saying what was refused. Costs one sha256 of the page."""
        text, sound = self._stored_text(row)
        if not sound:
            from ..errors import Damaged

            raise Damaged(f"{self.path} is damaged: the stored text of {row['slug']!r} no longer matches its hash, so {what}; "
                          f"take it from your markdown folder; {dbmod.recovery_advice(self.path)}; then run `gbrain check`")
        return text

    @staticmethod
    def _stored_text(row: sqlite3.Row) -> tuple[str, bool]:
        """``(text, sound)``: the page text of ``row`` and whether its sha256 is the stored
        ``content_hash``."""
        text = render_row(row)
        return text, sha256(text.encode("utf-8", "surrogatepass")) == row["content_hash"]

    def parse_text(self, text: str, path: str) -> Page:
        """``text`` (a page's whole markdown) parsed as the page at ``path`` under this brain's
        settings (:attr:`timeline_split`, :attr:`tag_syntax`, :meth:`page_syntax`): what a save of it would derive."""
        return parse_page(text, path, timeline_split=self.timeline_split, tag_syntax=self.tag_syntax, property_syntax=self.page_syntax(path))

    def page_syntax(self, path: str) -> str:
        """The property syntax the page at ``path`` is read with: :attr:`property_syntax`, whose
        ``auto`` is ``logseq`` for a page of a Logseq graph's ``pages``/``journals`` folder (one
        holding ``logseq/config.edn`` beside it, as stored now: :func:`~gbrain.page.links.graphs_of`)
        and ``dataview`` for any other (:func:`~gbrain.page.markdown.page_property_syntax`)."""
        syntax = self.property_syntax
        if not reads_graphs(syntax):
            return syntax
        return page_property_syntax(path, syntax, graphs_of(self.conn, path))  # (``logseq``: a journal's title format)

    def parsed(self, row: sqlite3.Row) -> Page:
        """The stored page ``row`` parsed (:meth:`parse_text` of its text)."""
        return self.parse_text(render_row(row), row["path"])

    # ---- writing pages ------------------------------------------------------

    def save_page(self, path: str, text: str, *, resolve_incoming: bool = True, touch_sidecar: bool = True, page: Page | None = None, resolve_links: bool = True, force: bool = False,
                  page_id: int | None = None) -> SaveResult:
        """Store ``text`` as the page at relative ``path``; rebuild its tags, links and timeline rows.

        No-op (``changed=False``) when the bytes equal what is stored. ``resolve_incoming``
        re-resolves dangling links that may now point at this page (bulk import does it once at
        the end instead). ``page_id``: a new row takes this id (a trashed page brought back by
        sync, which checked that no row has it); ignored when the page exists.
        """
        slug = slug_for_path(path)
        if page is None:
            page = self.parse_text(text, path)
        data = text.encode("utf-8")
        h = sha256(data)
        row = self.conn.execute("SELECT id, content_hash, path, title FROM pages WHERE slug = ?", (slug,)).fetchone()
        if row and row["content_hash"] == h and row["path"] == path and not force:
            return SaveResult(slug, path, row["id"], False, False, page.warnings, content_hash=h)
        vals = self._page_vals(slug, path, page, data, h, now_iso())
        with self.transaction():
            if row:
                pid = row["id"]
                sets = ", ".join(f"{k} = :{k}" for k in vals)
                self.conn.execute(f"UPDATE pages SET {sets} WHERE id = :id", {**vals, "id": pid})
            else:
                ins = vals if page_id is None else {"id": page_id, **vals}
                cols = ", ".join(ins)
                ph = ", ".join(f":{k}" for k in ins)
                pid = self.conn.execute(f"INSERT INTO pages ({cols}, created_at) VALUES ({ph}, :updated_at) RETURNING id", ins).fetchone()[0]
            old_aliases = {r[0] for r in self.conn.execute("SELECT loose_key FROM aliases WHERE page_id = ?", (pid,))} if row else set()
            index = SqlIndex(self.conn)  # (one for the page's links: the journals read once)
            write_rows(self.conn, pid, page, (lambda kind, target: self.resolve_link(slug, kind, target, index)) if resolve_links else None, new=not row)
            write_name_folds(self.conn, [(pid, slug, vals["title"], vals["search_aliases"], vals["h1_key"])], new=not row)
            # names other pages' links may now resolve by (a new page, a changed title or alias)
            names = {loose_key(slug)} | title_names(page.title) if not row else (title_names(row["title"]) | title_names(page.title) if row["title"] != page.title else set())
            if not row or row["title"] != page.title:  # (a journal, by each spelling of its day, comes or goes)
                names |= self.journal_names(path, page.title) | (self.journal_names(path, row["title"]) if row else set())
            names |= old_aliases ^ {loose_key(a) for a in page.aliases}
            if resolve_incoming and names:
                self.re_resolve(names)
            if not row:
                if touch_sidecar:
                    # its sidecars stored before it (ana.json; ana.JSON, an NFD name: each a
                    # sidecar of this page, as a fresh import attaches them)
                    for f in self._sidecars_named(path, slug):
                        self._load_raw_rows(f["path"])
        return SaveResult(slug, path, pid, True, not row, page.warnings, (len(page.links), len(page.timeline_entries), len(page.all_tags)), names, content_hash=h)

    @staticmethod
    def _page_vals(slug: str, path: str, page: Page, data: bytes, h: str, ts: str) -> dict[str, Any]:
        """The ``pages`` columns of ``page`` (parsed from the UTF-8 bytes ``data``, sha256 ``h``)
        stored at ``path`` as ``slug``, written at ``ts``: the one definition for every writer."""
        return dict(
            slug=slug,
            slug_key=slug_key(slug),
            name_key=name_key(slug),
            loose_key=loose_key(slug),
            title_key=title_key(page.title),
            path=path,
            type=page.type,
            title=page.title,
            compiled_truth=page.compiled_truth,
            timeline=page.timeline,
            frontmatter=_json_text(page.frontmatter),
            frontmatter_raw=page.frontmatter_raw,
            frontmatter_error=page.frontmatter_error,
            separator=page.separator,
            bom=int(page.bom),
            content_hash=h,
            size=len(data),
            updated_at=ts,
            **search_fields(page),
        )

    def save_new_pages(self, items: list[tuple[str, str, Page]], *, defer_links: PendingLinks | None = None) -> list[SaveResult]:
        """Store many pages that are not in the brain yet, in the caller's write transaction:
        ``items`` are ``(path, text, page)`` with ``page`` parsed from ``text`` (bulk import).

        The rows are what :meth:`save_page` (``resolve_links=False``, ``touch_sidecar=False``,
        ``resolve_incoming=False``) gives page by page, written with one statement per table:
        every link is stored dangling, to be resolved by the caller (:meth:`re_resolve`). The
        caller guarantees that no page row has any of the paths or slugs, and that the slugs are
        distinct (a clash raises the database's unique-constraint error). ``defer_links``
        (bulk import): the link rows are kept there instead, to be written once, resolved, at the
        end (:class:`~gbrain.storage.derive.PendingLinks`). Returns one :class:`SaveResult` per
        item, in order."""
        if not items:
            return []
        assert self._tx_depth, "save_new_pages runs inside the caller's write transaction"
        ts = now_iso()
        rows = []
        for path, text, page in items:
            data = text.encode("utf-8")
            rows.append(self._page_vals(slug_for_path(path), path, page, data, sha256(data), ts))
        cols = list(rows[0])
        insert_many(self.conn, f"INSERT INTO pages ({', '.join(cols)}, created_at) VALUES ({', '.join('?' * (len(cols) + 1))})", [(*r.values(), ts) for r in rows])
        slugs = [r["slug"] for r in rows]
        ids: dict[str, int] = {}
        for part, marks in in_parts(slugs):
            ids.update({r[0]: r[1] for r in self.conn.execute(f"SELECT slug, id FROM pages WHERE slug IN ({marks})", part)})
        pids = [ids[s] for s in slugs]
        write_rows_many(self.conn, [(pid, page) for pid, (_, _, page) in zip(pids, items)], defer=defer_links)
        write_name_folds(self.conn, [(pid, r["slug"], r["title"], r["search_aliases"], r["h1_key"]) for pid, r in zip(pids, rows)], new=True)
        out = []
        for pid, r, (path, _, page) in zip(pids, rows, items):
            names = {r["loose_key"]} | title_names(page.title) | {loose_key(a) for a in page.aliases}
            names |= self.journal_names(path, page.title)
            out.append(SaveResult(r["slug"], path, pid, True, True, page.warnings, (len(page.links), len(page.timeline_entries), len(page.all_tags)), names))
        return out

    @atomic
    def put(self, slug: str, text: str) -> SaveResult:
        """Create or replace the page ``slug`` with ``text`` (full markdown).

        Raises ``BadInput`` for text that is not a page (NUL, too big) and for an empty or blank
        text over a page that has text (a lost input must not wipe a page); ``Ambiguous`` for a
        short name that matches several pages."""
        if not isinstance(text, str):
            raise BadInput("page content must be text")
        refuse_nul(text)
        if len(text) > MAX_PAGE_CHARS or len(text.encode("utf-8")) > MAX_PAGE_CHARS:
            raise BadInput(f"page content is over {MAX_PAGE_CHARS // (1024 * 1024)} MiB; keep large sources as files next to the brain")
        # `get ana-lima | put ana-lima` must update people/ana-lima, not create a second page:
        # the same lookup as get (exact as written, a unique suffix, an alias); a miss creates,
        # an ambiguous short name or a name that differs only in case is refused
        row = self.resolve_for_write(slug)
        if row and is_hidden_path(row["path"]):  # an older gbrain's page at a hidden name: as put of a new one
            raise BadInput(hidden_page_write(row["slug"]))
        path = row["path"] if row else path_for_slug(check_slug(slug, keep_spaces=True))  # a new name as given
        if not row:
            clash = self.conn.execute("SELECT path FROM files WHERE path = ?", (path,)).fetchone()
            if clash:
                raise BadInput(f"{path} is stored as a non-page file (an attachment, sidecar or index/log/schema file); refusing to overwrite it")
            self._check_path_free(path)
            self._check_name_length(path)
        old_text, sound = self._stored_text(row) if row else ("", True)
        if row and not text.strip() and old_text.strip():
            # `gbrain put x < /dev/null` from a script whose input went missing must not wipe a page
            raise BadInput(
                f"refusing to replace {row['slug']} ({len(old_text.encode('utf-8', 'surrogatepass')):,} bytes) with an empty text "
                "(was the input empty?); nothing was written. To remove the page, delete it"
            )
        if not sound:
            # a whole new text replaces a stored text that fails its hash (the way to repair it):
            # the damaged bytes become a trashed version first, so nothing is lost
            from .history import keep_version
            from ..storage.origin import origin

            with origin(operation="damaged text replaced by put"):
                keep_version(self.conn, "page", row["slug"], path, old_text.encode("utf-8", "surrogatepass"), "damaged text replaced by put")
            return self.save_page(path, text, force=True)
        return self.save_page(path, text)

    def _check_path_free(self, path: str) -> None:
        """Raise :class:`BadInput` when ``path`` cannot be a file next to what the brain holds:
        a folder on its way is a stored file (``x.md/y.md`` beside page ``x``), or the path is a
        folder of stored files."""
        parts = path.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if self.conn.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (d, d)).fetchone():
                raise BadInput(f"{path}: {d} is a file in the brain, so it cannot also be a folder")
        pre = path + "/"
        q = "SELECT 1 FROM pages WHERE substr(path, 1, ?) = ? UNION ALL SELECT 1 FROM files WHERE substr(path, 1, ?) = ? LIMIT 1"
        if self.conn.execute(q, (len(pre), pre, len(pre), pre)).fetchone():
            raise BadInput(f"{path} is a folder of files in the brain, so it cannot also be a page")

    def rename_page_row(self, pid: int, src: str, dst: str) -> None:
        """Give page ``pid`` (stored at ``src``) the path ``dst`` and its slug, keeping its row,
        text and history (the page triggers record the move): what sync does when a note moved on
        disk, and ``move``. Title (when it comes from the file name), type (from the folder) and
        the search fields follow the path, as a fresh import of the moved file derives them; its
        own links and the links to it (and to its old and new names: slug, title, aliases) are resolved again. The
        caller checked that ``dst`` is a page path no other page has; renaming a ``.raw`` sidecar
        is the caller's (:meth:`sidecar_renames`, before), the sidecars the page has after are
        those its new name gives it (:meth:`_sidecars_follow`), as a fresh import's."""
        c = self.conn
        new_slug = slug_for_path(dst)
        old_title = c.execute("SELECT title FROM pages WHERE id = ?", (pid,)).fetchone()[0]
        # its aliases before the move: a name several pages hold goes to the one nearest the link,
        # then by path, so a link by any of them may now resolve elsewhere (as for slug and title)
        old_aliases = {r[0] for r in c.execute("SELECT loose_key FROM aliases WHERE page_id = ?", (pid,))}
        c.execute(
            "UPDATE pages SET slug = ?, slug_key = ?, name_key = ?, loose_key = ?, path = ? WHERE id = ?",
            (new_slug, slug_key(new_slug), name_key(new_slug), loose_key(new_slug), dst, pid),
        )
        row = c.execute("SELECT * FROM pages WHERE id = ?", (pid,)).fetchone()
        moved = self.parsed(row)
        alias_keys = old_aliases | {loose_key(a) for a in moved.aliases}
        if derived_rows(moved) != derived_rows(self.parse_text(render_row(row), src)):
            # the new folder reads the same text otherwise (into or out of a Logseq graph's
            # pages/: its tags:: and alias:: lines, its #tags as links): its rows as a save writes them
            index = SqlIndex(c)  # (the page's title not yet written: an index of its own)
            write_rows(c, pid, moved, lambda kind, target: self.resolve_link(new_slug, kind, target, index))
        sf = search_fields(moved)
        c.execute("UPDATE pages SET title = ?, type = ?, title_key = ?, search_aliases = ?, search_headings = ?, h1_key = ?, search_words = ?, search_cjk = ?, "
                  "search_fold_names = ? WHERE id = ?",
                  (moved.title, moved.type, title_key(moved.title), sf["search_aliases"], sf["search_headings"], sf["h1_key"], sf["search_words"], sf["search_cjk"],
                   sf["search_fold_names"], pid))
        write_name_folds(c, [(pid, new_slug, moved.title, sf["search_aliases"], sf["h1_key"])])
        # outbound links (relative ones depend on the folder) and inbound ones, resolved again
        index = SqlIndex(c)  # (pages and configs stay as they are while the links are resolved: one index)
        for r in c.execute("SELECT id, kind, target FROM links WHERE from_page_id = ?", (pid,)).fetchall():
            c.execute("UPDATE links SET to_page_id = ? WHERE id = ?", (self.resolve_link(new_slug, r["kind"], r["target"], index), r["id"]))
        for r in c.execute("SELECT l.id, l.kind, l.target, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.to_page_id = ?", (pid,)).fetchall():
            c.execute("UPDATE links SET to_page_id = ? WHERE id = ?", (self.resolve_link(r["slug"], r["kind"], r["target"], index), r["id"]))
        old_slug = slug_for_path(src)
        self.re_resolve({loose_key(new_slug), loose_key(old_slug)} | title_names(moved.title) | title_names(old_title) | alias_keys
                        | self.journal_names(dst, moved.title) | self.journal_names(src, old_title))
        self._sidecars_follow(pid, dst)
        self.conflicts_follow(src, dst)

    def conflicts_follow(self, src: str, dst: str) -> None:
        """The ``sync_conflicts`` rows of the page moving from path ``src`` to ``dst`` and of its
        ``.raw`` sidecars (any spelling of the page's name beside it: :func:`moved_sidecar_path`)
        name the new paths, so ``gbrain conflicts`` names the page where it is: every row, with a
        copy or none (resolved: its copy deleted; noted: none made). A row's ``copy_path`` is left
        as it is (``move_copy`` moves the copy still stored, and its row's). In the caller's write
        transaction; a rename of :meth:`rename_page_row`, and sync's move of a page by re-import."""
        c = self.conn
        c.execute("UPDATE sync_conflicts SET path = ? WHERE path = ?", (dst, src))
        raw = posixpath.join(posixpath.dirname(src), ".raw") + "/"
        page = slug_for_path(src)
        for (p,) in c.execute("SELECT DISTINCT path FROM sync_conflicts WHERE substr(path, 1, ?) = ?", (len(raw), raw)).fetchall():
            if page_slug_for_sidecar(p) == page and posixpath.dirname(posixpath.dirname(p)) == posixpath.dirname(src):
                c.execute("UPDATE sync_conflicts SET path = ? WHERE path = ?", (moved_sidecar_path(p, src, dst), p))

    def sidecar_renames(self, pid: int | None, src: str, dst: str) -> list[tuple[str, str]]:
        """``(old path, new path)`` of each ``.raw`` sidecar of page ``pid`` (stored at ``src``)
        when it moves to ``dst`` (:func:`gbrain.page.slugs.moved_sidecar_path`), the one read
        (:meth:`page_sidecar`) first; a sidecar whose new name another one takes (``josé.json`` in
        NFC and NFD moved to ``bob``) is left out: it keeps its name and belongs to no page.
        ``pid`` None: the sidecars of no page named for ``src`` (a page gone from there, sync
        bringing it back under ``dst``: ``SyncEngine._moved_page_history``)."""
        if pid is None:
            paths = sorted(f["path"] for f in self._sidecars_named(src, slug_for_path(src), unattached=True))
        else:
            paths, _ = self.page_sidecars(pid)
        if not paths:
            return []
        chosen = chosen_sidecar(paths, src)
        out, taken = [], set()
        for p in sorted(paths, key=lambda p: p != chosen):
            new = moved_sidecar_path(p, src, dst)
            if new != p and new not in taken:
                out.append((p, new))
            taken.add(new)
        return out

    def _sidecars_follow(self, pid: int, dst: str) -> None:
        """After page ``pid`` took the path ``dst``: its ``.raw`` sidecars are those a fresh import
        gives it (:func:`page_slug_for_sidecar` of their names): one named for its old name is
        no longer its (kept, raw data of no page), one stored for the new name is; its raw rows
        from the one read (:meth:`page_sidecar`), none when it has none."""
        slug = slug_for_path(dst)
        for (p,) in self.conn.execute("SELECT path FROM files WHERE page_id = ? AND kind = 'raw'", (pid,)).fetchall():
            if page_slug_for_sidecar(p) != slug:
                self.conn.execute("UPDATE files SET page_id = NULL WHERE path = ?", (p,))
        for f in self._sidecars_named(dst, slug, unattached=True):
            self.conn.execute("UPDATE files SET page_id = ? WHERE path = ?", (pid, f["path"]))
        self._raw_rows_again(pid)

    def _sidecars_named(self, page_path: str, slug: str, unattached: bool = False, any_kind: bool = False) -> list:
        """The stored files (rows: ``path``, ``page_id``) that are ``.raw`` sidecars of the page
        ``slug`` at ``page_path`` in any spelling (``ana.json``, ``ana.JSON``, an NFD name:
        :func:`gbrain.page.slugs.sidecar_ranges`, kept where :func:`page_slug_for_sidecar` gives
        ``slug``), of kind ``raw`` (``any_kind``: any kind), of no page only when ``unattached``."""
        sql = ("SELECT path, page_id FROM files WHERE path >= ? AND path < ?" + ("" if any_kind else " AND kind = 'raw'")
               + (" AND page_id IS NULL" if unattached else ""))
        return [f for lo, hi in sidecar_ranges(page_path) for f in self.conn.execute(sql, (lo, hi)).fetchall()
                if page_slug_for_sidecar(f["path"]) == slug]

    def _raw_rows_again(self, pid: int) -> None:
        """Page ``pid``'s raw rows from the sidecar it reads now (:meth:`page_sidecar`, as a fresh
        import's), none when it has none."""
        left = self.page_sidecar(pid)
        if left is None:
            self.conn.execute(f"DELETE FROM {'raw_spans' if self._raw_spans_table() else 'raw_data'} WHERE page_id = ?", (pid,))
        else:
            self._raw_rows(left, page_slug_for_sidecar(left), pid, blobs.file_bytes(self.conn, left))

    @staticmethod
    def _check_name_length(path: str) -> None:
        """Raise :class:`BadInput` when a part of the new page file ``path`` is over
        :data:`MAX_NAME_BYTES` (the names ``put`` creates and ``move`` gives)."""
        if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in path.split("/")):
            raise BadInput(f"{path}: a name longer than {MAX_NAME_BYTES} bytes cannot be a file on most systems")

    @atomic
    def move_page(self, slug: str, new: str) -> tuple[sqlite3.Row, str]:
        """Rename the page ``slug`` (as :meth:`resolve_slug` finds it) to the slug ``new``, or move
        it to another folder (:meth:`rename_page_row`), its ``.raw`` sidecar with it. Returns
        ``(the page row before, its new slug)``. Raises :class:`Conflict` when another page has
        the new name or a file is stored at its sidecar's path, and :class:`BadInput` when the
        name is another spelling of another page's (case, Unicode form: as put refuses it), no
        page slug, or its path clashes with a stored file or folder."""
        row = self.resolve_slug(slug)
        new = check_slug(new)
        dst = path_for_slug(new)
        if dst == row["path"]:
            return row, row["slug"]
        other = self.conn.execute("SELECT slug FROM pages WHERE slug_key = ? AND id != ?", (slug_key(new), row["id"])).fetchone()
        twin = other and other[0] != new and (nfc(other[0]) == nfc(new) or nfc(other[0]).casefold() == nfc(new).casefold())
        if other and not twin:
            raise Conflict(f"{other[0]} exists: move {row['slug']} to a free name, or merge the two pages and delete one")
        if twin:  # another spelling (case, Unicode form) of its name: bad input, exit 2, as put says it
            how = "differs only in case from" if nfc(other[0]) != nfc(new) else "is another Unicode form (NFC/NFD) of"
            raise BadInput(f"'{new}' {how} the page {other[0]}: move {row['slug']} to a name of its own, or merge the two pages and "
                           "delete one; nothing was changed", suggestions=[other[0]])
        if self.conn.execute("SELECT 1 FROM files WHERE path = ?", (dst,)).fetchone():
            raise BadInput(f"{dst} is a stored file: move {row['slug']} to a free name")
        self._check_path_free(dst)
        self._check_name_length(dst)
        # every sidecar of the page moves with it (ana.JSON beside ana.json too: left at the old
        # name it would be raw data of no page to a fresh import, and the page's in the brain)
        renames = self.sidecar_renames(row["id"], row["path"], dst)
        for f in self._sidecars_named(dst, slug_for_path(dst), any_kind=True):
            if f["page_id"] != row["id"]:
                # a sidecar whose page is gone (any spelling, bob.JSON too): the page would read
                # its raw data (as a fresh import would), its own left behind (review48)
                raise Conflict(f"{f['path']} is stored already (raw data of no page): move {row['slug']} to a free name, or delete that file first")
        for old_sc, new_sc in renames:
            self.conn.execute("UPDATE files SET path = ? WHERE path = ?", (new_sc, old_sc))
        self.rename_page_row(row["id"], row["path"], dst)
        return row, new

    @atomic
    def move_stored(self, src: str, dst: str) -> None:
        """Give the page or file stored at path ``src`` the path ``dst``, keeping its row, bytes and
        history (the triggers record a ``move``): a page through :meth:`rename_page_row`, a file by
        its path, attached as a fresh import attaches it (a ``.raw`` sidecar to the page its new
        name gives, when stored; the page it left reads what it has then). What ``move`` and sync
        do with a moved page's conflict copies (``sync/engine.py: move_copy``); a graph's
        ``logseq/config.edn`` moved reads the graphs it leaves and joins again
        (:meth:`graph_config_changed`). The caller checked
        that ``dst`` is free (no page of that name in any spelling, no file). Raises
        :class:`NotFound` when nothing is stored at ``src``."""
        c = self.conn
        page = c.execute("SELECT id FROM pages WHERE path = ?", (src,)).fetchone()
        if page is not None:
            self.rename_page_row(page[0], src, dst)
            return
        f = c.execute("SELECT page_id FROM files WHERE path = ?", (src,)).fetchone()
        if f is None:
            raise NotFound(f"{src}: nothing is stored there")
        before = graph_settings(c, src) if is_graph_config(src) else None  # (a graph's config: its folders)
        c.execute("UPDATE files SET path = ?, kind = ?, page_id = NULL WHERE path = ?", (dst, file_kind(dst), src))
        if is_graph_config(src):
            self.graph_config_changed(src, existed=True, before=before)  # (gone from there: its graph read again)
        if is_graph_config(dst):
            self.graph_config_changed(dst, existed=False)
        if f[0] is not None:
            self._raw_rows_again(f[0])
        slug = page_slug_for_sidecar(dst)
        to = c.execute("SELECT id, path FROM pages WHERE slug = ?", (slug,)).fetchone() if slug else None
        if to is not None:
            self._sidecars_follow(to[0], to[1])

    @atomic
    def delete_page(self, slug: str) -> str:
        row = self.resolve_slug(slug)
        self.remove_page_row(row["path"])
        return row["slug"]

    def remove_page_row(self, path: str, *, resolve_incoming: bool = True) -> set[str] | None:
        """Delete the page stored at ``path`` (its tags, links, timeline and raw rows cascade)
        and point the links that pointed at it where a fresh import would: at another page with
        that name or title, or nowhere. Every path that removes a page row goes through here
        (``gbrain delete``, sync's trash, a page that became a file), so links never dangle where
        a fresh import resolves them. Returns the link-target keys whose resolution may have
        changed (``resolve_incoming=False`` leaves re-resolving them to the caller, as bulk
        import does), or None when no page is stored at ``path``."""
        row = self.conn.execute("SELECT id, slug, title FROM pages WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        names = {loose_key(row["slug"])} | title_names(row["title"])
        names |= {r[0] for r in self.conn.execute("SELECT loose_key FROM aliases WHERE page_id = ?", (row["id"],))}
        names |= self.journal_names(path, row["title"])
        with self.transaction():
            inbound = [r[0] for r in self.conn.execute("SELECT id FROM links WHERE to_page_id = ? AND from_page_id != ?", (row["id"], row["id"]))]
            self.conn.execute("DELETE FROM pages WHERE id = ?", (row["id"],))
            if resolve_incoming:
                self.re_resolve(names)
                if inbound:  # a link that reached the page by another key than its name or title
                    for ids, marks in in_parts(inbound):
                        self._re_resolve(f"SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.id IN ({marks})", tuple(ids))
        return names

    def _edit(self, row: sqlite3.Row, new_text: str, check=None, what: str = "edit", *, frontmatter_checked: bool = False) -> SaveResult:
        """Save an edit of a page's text, after checking that it did what it was for.

        ``check(old_page, new_page)`` returns True when the edit is recognised in the new text
        (the timeline entry parses as one, the link is a link, …). Frontmatter must keep its
        meaning unless the edit is a frontmatter edit. A page whose shape defeats the edit (an
        unclosed code fence swallowing the new line, a bare ``---`` opener) raises
        :class:`Conflict` and nothing is written, rather than reporting a change that did not land.
        ``frontmatter_checked``: ``check`` itself judges a change of the frontmatter block.
        An edit that adds a NUL character raises ``BadInput`` (:data:`NUL_TEXT`), as ``put`` does;
        so does an edit of a page an older gbrain stored under a hidden name (``slugs.hidden_page_write``).
        """
        if is_hidden_path(row["path"]):
            raise BadInput(hidden_page_write(row["slug"]))
        # the edit was made to this text: a text that fails its hash must not become a version
        self.check_text(self.conn.execute("SELECT * FROM pages WHERE id = ?", (row["id"],)).fetchone(), "nothing was written")
        old = self.parsed(row)
        if "\x00" in new_text and new_text.count("\x00") > old.render().count("\x00"):
            refuse_nul(new_text)  # (a timeline-add summary, a link's context; a NUL a SQLite page already held stays)
        new = self.parse_text(new_text, row["path"])
        ok = check(old, new) if check else True
        if ok and what != "frontmatter" and not frontmatter_checked and (new.frontmatter_raw != old.frontmatter_raw or new.bom != old.bom):
            ok = False
        if not ok:
            raise Conflict(
                f"{row['slug']}: the {what} would not be recognised in this page's markdown (an unclosed code fence, "
                "<!-- or %% comment, a '---' line read as frontmatter, or timeline_split=heading without a '## Timeline' heading); "
                "nothing was written. Edit the page with `gbrain get` / `gbrain put`."
            )
        return self.save_page(row["path"], new_text, page=new)

    # ---- links ----------------------------------------------------------------

    def resolve_link(self, from_slug: str, kind: str, target: str, index: "SqlIndex | None" = None) -> int | None:
        """Page id a link points at, or None (dangling); rules in :mod:`gbrain.page.links`.
        ``index``: a :class:`~gbrain.page.links.SqlIndex` shared by the links of one write (it
        reads the graph's journals once, :func:`~gbrain.page.links.journal_keys`, for every link
        naming a day; a new one per call reads them per link); pass one only while no page's
        title, path or a graph's config changes between the calls."""
        return resolve(index or SqlIndex(self.conn), from_slug, kind, target)

    def link_target(self, src: sqlite3.Row, name: str) -> sqlite3.Row:
        """The page ``link``/``unlink`` from page ``src`` to ``name`` means: :meth:`resolve_slug`'s
        (a slug, a unique suffix, an alias), else the page ``[[name]]`` written in ``src`` points
        at (:func:`gbrain.page.links.resolve`: a file name, the slugified name, a title, an
        alias, the nearest folder first), so ``Ana Lima`` finds ``people/ana-lima`` by its title.
        A name several pages share (:class:`Ambiguous`) is the one ``[[name]]`` in ``src`` points
        at only when it shares more leading folders with ``src`` than every other (``Canvas`` from
        ``en/Plugins/Templates`` is ``en/Plugins/Canvas``); a tie (the shortest path would decide)
        stays :class:`Ambiguous`. Raises what :meth:`resolve_slug` raises when neither finds a page."""
        try:
            return self.resolve_slug(name)
        except Ambiguous as e:
            pid = self.resolve_link(src["slug"], "wiki", name) if "\n" not in name else None
            names = e.suggestions
            row = self.conn.execute("SELECT * FROM pages WHERE id = ?", (pid,)).fetchone() if pid is not None else None
            if row is None or row["slug"] not in names or len(names) >= 10:  # 10: the list may be cut
                raise
            folders = src["slug"].split("/")[:-1]

            def shared(slug: str) -> int:
                return len(posixpath.commonprefix([folders, slug.split("/")[:-1]]))

            if all(shared(row["slug"]) > shared(n) for n in names if n != row["slug"]):
                return row
            raise
        except (NotFound, BadInput):
            pid = self.resolve_link(src["slug"], "wiki", name) if "\n" not in name else None
            if pid is None:
                raise
            return self.conn.execute("SELECT * FROM pages WHERE id = ?", (pid,)).fetchone()

    def journal_names(self, path: str, title: str) -> set[str]:
        """The link-target keys of the names a link finds the page at ``path`` titled ``title``
        by when Logseq reads it as a journal (a graph's page titled as its day: ``journals/2026_11_28``
        or ``pages/2026-11-28`` is ``Nov 28th, 2026``, found by ``[[2026-11-28]]``, ``[[nov 28th,
        2026]]``…: :func:`~gbrain.page.links.journal_link_names` of its
        :func:`~gbrain.page.links.journal_day_of` by its :meth:`page_syntax`), else none: a save,
        delete or move of a journal re-resolves them (:meth:`re_resolve`)."""
        if not any(ch.isdigit() for ch in title):  # (no day: spares page_syntax's lookup of the graphs)
            return set()
        found = journal_day_of(path, title, self.page_syntax(path))
        if found is None:
            return set()
        fmt, day = found
        out = journal_link_names(day, fmt)
        if regex_runs(fmt):
            # (a run such as ``.`` reads names day_spellings cannot list: ``[[23x11x2026]]`` under
            # ``dd.MM.yyyy``; the links read as this day are found among those holding a digit)
            out |= {key for target, key in self.conn.execute("SELECT DISTINCT target, target_name FROM links").fetchall()
                    if any(ch.isdigit() for ch in target) and logseq_day(target, fmt) == day}
        return out

    def graph_config_changed(self, path: str, existed: bool = True, before: "Settings | None" = None) -> int:
        """After the file at ``path`` was stored, changed, moved or deleted (``existed``: whether
        a file was at ``path`` before; ``before``: the settings gbrain read from it then,
        :func:`~gbrain.page.links.graph_settings`, None when unknown): when it is a Logseq graph's
        ``logseq/config.edn``, whose journal formats say which journal ``[[Nov 28th, 2026]]``
        names, resolve again every dangling link and every link to a journal page, as a fresh
        import would (one pass over those links; a config edit is rare); when it came or went, the
        graph's pages are derived again first (:meth:`rederive_graph`: whether its
        ``pages``/``journals`` are read as Logseq's depends on it), when its ``:file/name-format``
        changed, the pages whose names that format reads; when its ``:pages-directory``/
        ``:journals-directory`` changed, the pages of the old and the new folders. A config edited with the settings
        ``before`` unchanged (a comment, a setting gbrain does not read) changes nothing. Returns
        how many links changed (0 for any other file)."""
        if not is_graph_config(path):
            return 0
        now = graph_settings(self.conn, path)
        present = now is not None
        if present and existed and before is not None and now == before:
            return 0  # nothing gbrain reads from the config changed: no title, no link
        root = path[: -len(JOURNAL_CONFIG)].rstrip("/")
        new_dirs = (now.pages_dir, now.journals_dir) if present else None
        old_dirs = (before.pages_dir, before.journals_dir) if before is not None else ("pages", "journals") if existed else None
        moved = present and existed and old_dirs != new_dirs
        both = tuple(dict.fromkeys(d for d in (new_dirs, old_dirs) if d is not None)) or (("pages", "journals"),)
        if moved and self.property_syntax != "dataview":
            # its folders changed: the pages of the old folders and of the new ones read again
            self.rederive_graph(root, skip=self._graph_parsed, dirs=new_dirs, more=old_dirs)
        elif present != existed and self.property_syntax == "auto":
            self.rederive_graph(root, skip=self._graph_parsed, dirs=(new_dirs or old_dirs or ("pages", "journals")))
        elif present and self.property_syntax == "auto":
            if before is None or now.name_format != before.name_format:
                # its :file/name-format changed: the titles it gives
                self.rederive_graph(root, skip=self._graph_parsed, named=True, dirs=new_dirs)
            if before is None or now[1:3] != before[1:3]:
                # its journal formats changed: the journals' titles (and its pages/ pages named as a day)
                self.rederive_graph(root, skip=self._graph_parsed, days=True, dirs=new_dirs)
        elif self.property_syntax == "logseq" and (present != existed or before is None or now is None or now[1:3] != before[1:3]):
            # (``logseq``: a graph's journals are titled by its config's title format too)
            self.rederive_graph(root, skip=self._graph_parsed, days=True, dirs=both[0], more=both[-1])
        graphs = graph_roots(self.conn)
        likes = tuple(sorted(set(graph_folder_likes(graphs)) | {f"%{d}/%" for dirs in both for d in dirs}))
        journal_heads = graph_journal_folders(graphs) + tuple(f"{root}/{d[1]}/" if root else f"{d[1]}/" for d in both)
        sel = ("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug, t.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
               "LEFT JOIN pages t ON t.id = l.to_page_id WHERE l.to_page_id IS NULL OR " + " OR ".join("t.slug LIKE ?" for _ in likes) + " ORDER BY l.id")
        rows = [r for r in self.conn.execute(sel, likes).fetchall()
                if r[5] is None or graph_root(r[5]) is not None or any(ch.isdigit() for ch in r[2]) or moved
                or any(r[5].startswith(h) for h in journal_heads)]
        return self._resolve_rows(rows)

    def resolve_dangling(self) -> int:
        """Resolve every dangling link that now has a page. Returns how many changed."""
        return self._re_resolve("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.to_page_id IS NULL", ())

    def re_resolve(self, names: set[str], *, dangling: bool = False) -> int:
        """Resolve again every link (resolved or dangling) whose target's last segment has one of
        the loose keys ``names``: after a page with such a name or title appears, disappears or is
        renamed, links must point where a fresh import would point them (``''``, the key of a name
        of no letter or digit, `📚📚📚`, is a name too: the few links whose target has it). ``dangling``: also every
        dangling link (:meth:`resolve_dangling`), in the same pass. Returns how many changed."""
        names = set(names)
        if not names:
            return self.resolve_dangling() if dangling else 0
        sel = "SELECT l.id, l.kind, l.target, l.to_page_id, p.slug, l.target_name FROM links l JOIN pages p ON p.id = l.from_page_id"
        top = self.conn.execute("SELECT MAX(id) FROM links").fetchone()[0] or 0
        if len(names) * SCAN_NAMES >= top:
            # names of a good part of the brain (the end of a big import): read every link once
            rows = [r for r in tuple_rows(self.conn, sel) if r[5] in names or (dangling and r[3] is None)]
        else:
            found = {}
            order = sorted(names)
            for part, marks in in_parts(order):  # bounded statements (SQLite's parameter limit)
                found.update((r[0], r) for r in self.conn.execute(f"{sel} WHERE l.target_name IN ({marks})", part))
            if dangling:
                found.update((r[0], r) for r in self.conn.execute(f"{sel} WHERE l.to_page_id IS NULL"))
            rows = [found[k] for k in sorted(found)]
        return self._resolve_rows(rows)

    def derive_missing_links(self, pending: PendingLinks) -> int:
        """Derive, from its stored text, the links of every page that has no link row (those a
        killed bulk import kept back, :class:`~gbrain.storage.derive.PendingLinks`; a page with
        no links gives none) into ``pending``, which the caller writes. Returns pages parsed."""
        q = ("SELECT id, path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages p "
             "WHERE NOT EXISTS (SELECT 1 FROM links l WHERE l.from_page_id = p.id) ORDER BY id")
        kept = {pid for pid, _ in pending.rows}  # this import's own new pages: their links are kept already
        n = 0
        for r in self.conn.execute(q).fetchall():
            if r["id"] in kept:
                continue
            pending.rows += [(r["id"], link) for link in derived_rows(self.parsed(r))["links"]]
            n += 1
        return n

    def resolve_all(self) -> int:
        """Resolve every link again, as a fresh import would (after an import that died before
        its own resolution; ``importer.RESOLVE_PENDING``). Returns how many changed."""
        with self.transaction():
            return relink_all(self.conn)

    def _re_resolve(self, q: str, args: tuple) -> int:
        return self._resolve_rows(self.conn.execute(q, args).fetchall())

    def _resolve_rows(self, rows: list) -> int:
        """Resolve links ``rows`` (``id, kind, target, to_page_id, from slug``, by position) again
        (:func:`~gbrain.storage.derive.relink_updates`); store the ones that changed, in id order.
        Returns how many changed."""
        updates = relink_updates(self.conn, rows)
        with self.transaction():
            update_links(self.conn, updates)
        return len(updates)

    def links(self, slug: str) -> list[dict]:
        """Outbound links of a page, one per linked page (a dangling target: one per target as
        written): ``{target, to_slug (None: dangling), kind, context, count, forms, labels}``. ``count``
        is how many times the page links there, ``forms`` each form written (``[[Note#Heading]]``,
        ``![[Note]]``, ``(note.md)``), ``labels`` each text shown for it other than its name
        (``links.label``: ``[[acme|the seed fund]]``), ``target``/``kind``/``context`` those of the first link."""
        row = self.resolve_slug(slug)
        q = (
            "SELECT l.target, p.slug AS to_slug, l.kind, l.context, l.count, l.forms, l.label, l.to_page_id FROM links l "
            "LEFT JOIN pages p ON p.id = l.to_page_id WHERE l.from_page_id = ? ORDER BY l.id"
        )
        return _group_links(self.conn.execute(q, (row["id"],)), lambda r: ("page", r["to_page_id"]) if r["to_page_id"] is not None else ("dead", r["target"]))

    def backlinks(self, slug: str) -> list[dict]:
        """Pages linking to ``slug``, each once: ``{slug, title, type, context, count, forms, labels}``
        (``count``: links from that page, ``forms``: the forms it writes them in, ``labels``: what
        it calls the page where that is not its name); then the canvases and nav files listing it
        (:meth:`backlink_parts`, joined)."""
        return [x for part in self.backlink_parts(slug) for x in part]

    def backlink_parts(self, slug: str) -> tuple[list[dict], list[dict], list[dict]]:
        """:meth:`backlinks`' three parts, each in slug (path) order: the pages, the canvases
        (:meth:`canvas_backlinks`), the nav files (:meth:`nav_backlinks`). Raises NotFound or
        Ambiguous as :meth:`resolve_slug`."""
        row = self.resolve_slug(slug)
        q = (
            "SELECT p.slug, p.title, p.type, l.context, l.count, l.forms, l.label, p.id AS from_id FROM links l JOIN pages p ON p.id = l.from_page_id "
            "WHERE l.to_page_id = ? ORDER BY p.slug, l.id"
        )
        out = _group_links(self.conn.execute(q, (row["id"],)), lambda r: r["from_id"], drop=("from_id",))
        return out, self.canvas_backlinks(row["id"]), self.nav_backlinks(row["id"])

    def name_backlinks(self, name: str) -> list[dict]:
        """Pages of a Logseq graph (read as Logseq's, :meth:`page_syntax`) whose wiki links or
        tags name ``name`` and resolve to no page (``#[[multi word tag]]``, ``tags:: book``): the
        Linked References Logseq shows on the page of that name, which needs no file. Shaped as
        :meth:`backlinks`; ``[]`` when none (a name only a vault's page links is no page there).
        Matched as links resolve, by the whole name's :func:`title_key`."""
        last, whole = loose_key(name), title_key(name)
        if not last or not reads_graphs(self.property_syntax):
            return []
        q = ("SELECT p.slug, p.title, p.type, l.context, l.count, l.forms, l.label, p.id AS from_id, p.path, l.target FROM links l "
             "JOIN pages p ON p.id = l.from_page_id WHERE l.to_page_id IS NULL AND l.target_name = ? AND l.kind IN ('wiki', 'embed') ORDER BY p.slug, l.id")
        rows = [r for r in self.conn.execute(q, (last,)) if title_key(r["target"]) == whole and self.page_syntax(r["path"]).startswith("logseq")]
        return _group_links(rows, lambda r: r["from_id"], drop=("from_id", "path", "target"))

    def canvases(self) -> list[str]:
        """The paths of the stored canvases (``.canvas`` files), in path order."""
        rows = self.conn.execute("SELECT path FROM files WHERE path LIKE ? ORDER BY path", ("%.canvas",))
        return [r[0] for r in rows if is_canvas(r[0])]

    def canvas_links(self, path: str, index=None) -> list[dict]:
        """The links of the stored canvas ``path``, in its nodes' order, read from its bytes (a
        canvas is a stored file; no ``links`` rows: :mod:`gbrain.page.canvas`, docs/storage.md):
        ``{target, to_slug, kind, context, count, forms}`` as :meth:`links` gives. A file node is
        kind ``file``, its ``file`` the target (a vault path: the page stored at that path, else as
        Obsidian opens a link by path or file name; a non-note file or a missing note: ``to_slug``
        None); a text card's links are those of its markdown, resolved from the canvas's folder.
        A canvas that is not JSON has none. ``index``: a :class:`MemoryIndex` shared by many
        calls (else one query per lookup). What the bytes hold is parsed once per process per
        path, content hash and settings (``_CANVAS_PARSED``); the resolution is always now."""
        row = self.conn.execute("SELECT content_hash FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return []
        key = (path, row[0], self.timeline_split, self.tag_syntax)
        written = _CANVAS_PARSED.get(key)
        if written is None:
            data = blobs.file_bytes(self.conn, path)
            if data is None:
                return []
            written = []
            for n in canvas_nodes(data)[0]:
                if n.kind == "file":
                    form = "file: " + n.file + n.subpath
                    written.append(("file", n.file, form[:200], 1, (form,)))
                elif "[" in n.text:  # every page link kind is written with a '['
                    written += [(ln.kind, ln.target, ln.context[:200], ln.count, tuple(ln.forms)) for ln in self.parse_text(n.text, path[: -len(".canvas")] + ".md").links]
            if len(_CANVAS_PARSED) >= 512:
                _CANVAS_PARSED.clear()
            _CANVAS_PARSED[key] = written
        index, slug = index or SqlIndex(self.conn), path[: -len(".canvas")]
        slugs: dict[int, str | None] = {}

        def page_slug(pid):
            if pid is None:
                return None
            if pid not in slugs:
                r = self.conn.execute("SELECT slug FROM pages WHERE id = ?", (pid,)).fetchone()
                slugs[pid] = r[0] if r else None
            return slugs[pid]

        out: list[dict] = []
        for kind, target, context, count, forms in written:
            if kind == "file":
                pid = None
                if target.lower().endswith(".md"):
                    r = self.conn.execute("SELECT id FROM pages WHERE path = ?", (target,)).fetchone()
                    pid = r[0] if r else resolve(index, slug, "wiki", target[:-3], by_file=True)
            else:
                pid = resolve(index, slug, kind, target)
            out.append({"target": target, "to_slug": page_slug(pid), "kind": kind, "context": context, "count": count, "forms": list(forms)})
        return out

    def _canvas_index(self, paths: list[str]):
        """The page index for reading the links of the canvases ``paths``: every key in memory
        when there are several (one query instead of one per link)."""
        return MemoryIndex(self.conn) if len(paths) > 2 else SqlIndex(self.conn)

    def canvas_backlinks(self, page_id: int) -> list[dict]:
        """The canvases linking to page ``page_id`` (:meth:`canvas_links`), each once, in path
        order, as :meth:`backlinks` gives a page: ``slug`` is the canvas's path, ``type`` ``canvas``."""
        return self._file_backlinks(page_id, self.canvases(), self.canvas_links, "canvas", lambda p: posixpath.basename(p)[: -len(".canvas")])

    def _file_backlinks(self, page_id: int, paths: list[str], links_of, kind: str, title_of) -> list[dict]:
        """The stored files ``paths`` whose links (``links_of(path, index)``) reach page
        ``page_id``, each once, in path order, as :meth:`backlinks` gives a page."""
        if not paths:
            return []
        r = self.conn.execute("SELECT slug FROM pages WHERE id = ?", (page_id,)).fetchone()
        index = self._canvas_index(paths)
        out = []
        for path in paths:
            hits = [x for x in links_of(path, index) if x["to_slug"] == r[0]]
            if hits:
                forms = list(dict.fromkeys(f for x in hits for f in x["forms"]))
                out.append({"slug": path, "title": title_of(path), "type": kind, "context": hits[0]["context"],
                            "count": sum(x["count"] for x in hits), "forms": forms})
        return out

    def canvas_reached(self) -> set[str]:
        """The slugs of the pages some stored canvas links to."""
        paths = self.canvases()
        index = self._canvas_index(paths) if paths else None
        return {x["to_slug"] for p in paths for x in self.canvas_links(p, index) if x["to_slug"]}

    def nav_files(self) -> list[str]:
        """The paths of the stored nav files (``TOC.yml``, ``_toc.yml``, ``mkdocs.yml``:
        :mod:`gbrain.page.navfile`), in path order."""
        rows = self.conn.execute("SELECT path FROM files WHERE " + " OR ".join(["path LIKE ?"] * len(NAV_LIKE)) + " ORDER BY path", NAV_LIKE)
        return [r[0] for r in rows if is_nav_file(r[0])]

    def nav_links(self, path: str, index=None, full: bool = False) -> list[dict]:
        """The entries of the stored nav file ``path`` naming a page, in its order, from its
        ``nav_entries`` rows (SQLite v61 / Postgres v65: parsed from its bytes at its save,
        :func:`~gbrain.page.navfile.nav_rows`; no ``links`` rows: docs/storage.md "Navigation
        files"): ``{target (the href as written), to_slug, kind 'nav', context (the entry's
        section path), count 1, forms}`` as :meth:`links` gives (``full``: also ``path``, the page
        path it names, and ``line``). A target is the page at that path from the entry's base
        folder (the nav file's folder, an ``mkdocs.yml``'s ``docs_dir``), exactly, else in another
        case (one such page); else none, resolved now. A nav file that does not load has none, nor
        one over ``navfile.NAV_MAX_BYTES`` (2 MiB: never parsed)."""
        rows = self.conn.execute(
            "SELECT n.path, n.path_key, n.href, n.context, n.form, n.line FROM nav_entries n JOIN files f ON f.id = n.file_id "
            "WHERE f.path = ? ORDER BY n.ord", (path,)).fetchall()
        if not rows:
            return []
        index = index or SqlIndex(self.conn)
        found: dict[str, str | None] = {}
        out = []
        for c, key, href, context, form, line in rows:
            if c not in found:
                found[c] = self._nav_target(index, c, key)
            x = {"target": href, "to_slug": found[c], "kind": "nav", "context": context, "count": 1, "forms": [form]}
            if full:
                x.update(path=c, line=line)
            out.append(x)
        return out

    @staticmethod
    def _nav_target(index, c: str, key: str) -> str | None:
        """The slug of the page a nav entry naming path ``c`` (its ``slug_key`` ``key``) reaches:
        the page at that path, else the one page whose path is that in another case."""
        if c.startswith("..") or c == ".":
            return None
        rows = index.lookup("slug", c)
        if not rows:
            rows = index.lookup("slug_key", key)
            rows = rows if len(rows) == 1 else []
        return rows[0][1] if rows else None

    def nav_read(self, path: str) -> "tuple[str, list[tuple[str, str, str, str]], bool] | None":
        """What the stored nav file ``path`` holds, parsed (once per process per path and content
        hash, ``_NAV_PARSED``): ``(base folder, [(href, target, context, form)], lists_all)``;
        ``lists_all``: an ``mkdocs.yml`` without ``nav:``, whose site lists every page under its
        ``docs_dir`` (:func:`~gbrain.page.navfile.lists_every_page`). None: no such file, or one over
        ``navfile.NAV_MAX_BYTES`` (never read)."""
        row = self.conn.execute("SELECT content_hash, pieces, size FROM files WHERE path = ?", (path,)).fetchone()
        if row is None or row[1] or row[2] > navfile.NAV_MAX_BYTES:  # a nav file that big is read as none, unread
            return None
        key = (path, row[0])
        parsed = _NAV_PARSED.get(key)
        if parsed is None:
            data = blobs.file_bytes(self.conn, path)
            if data is None:
                return None
            base, entries, warning = nav_entries(data, path)
            every = not entries and warning is None and navfile.lists_every_page(data, path)
            parsed = (base, [(e.href, e.target, SECTION_SEP.join(e.section)[:200], e.form[:200]) for e in entries], every)
            if len(_NAV_PARSED) >= 512:
                _NAV_PARSED.clear()
            _NAV_PARSED[key] = parsed
        return parsed

    def nav_folders(self) -> list[str]:
        """The folders whose every page a docs site lists without naming it: the ``docs_dir`` of
        each stored ``mkdocs.yml`` without ``nav:`` (MkDocs then builds its navigation from every
        page under that folder); '' for the brain's top. Parses only the ``mkdocs.yml`` files
        that have no ``nav_entries`` row."""
        out = []
        listed = {p for (p,) in self.conn.execute("SELECT DISTINCT f.path FROM nav_entries n JOIN files f ON f.id = n.file_id")}
        for p in self.nav_files():
            if posixpath.basename(p).lower().startswith("mkdocs.") and p not in listed:
                parsed = self.nav_read(p)
                if parsed is not None and parsed[2]:
                    out.append("" if parsed[0] in (".", "") else parsed[0])
        return out

    def nav_listing(self, page_ids: list[int]) -> list[tuple[str, int, str, str]]:
        """The nav entries reaching the pages ``page_ids``: ``(nav file path, page id, context,
        form)``, in nav file path order, then the file's order; found by the ``nav_entries``
        indexes (the page's path, or its ``slug_key`` when that names it alone)."""
        out = []
        for part, marks in in_parts(page_ids):
            pages = self.conn.execute(f"SELECT id, slug, slug_key FROM pages WHERE id IN ({marks})", part).fetchall()
            for pid, slug, key in pages:
                q = ("SELECT f.path, n.ord, n.path, n.path_key, n.context, n.form FROM nav_entries n JOIN files f ON f.id = n.file_id "
                     "WHERE n.path = ? OR n.path_key = ?")
                index = None
                for fpath, ord_, c, k, context, form in self.conn.execute(q, (slug, key)).fetchall():
                    if c != slug:  # by its slug_key: only where no page has that path and this page alone has that key
                        index = index or SqlIndex(self.conn)
                        if self._nav_target(index, c, k) != slug:
                            continue
                    out.append((fpath, ord_, pid, context, form))
        out.sort(key=lambda e: (e[0], e[1]))
        return [(f, pid, context, form) for f, _o, pid, context, form in out]

    def nav_backlinks(self, page_id: int) -> list[dict]:
        """The nav files listing page ``page_id`` (:meth:`nav_links`), each once, in path order,
        as :meth:`backlinks` gives a page: ``slug`` is the nav file's path, ``type`` ``nav``,
        ``context`` the first entry's section path. Read from ``nav_entries`` by index: no nav file
        is parsed."""
        by: dict[str, list[tuple[str, str]]] = {}
        for f, _pid, context, form in self.nav_listing([page_id]):
            by.setdefault(f, []).append((context, form))
        return [{"slug": f, "title": posixpath.basename(f), "type": "nav", "context": hits[0][0], "count": len(hits),
                 "forms": list(dict.fromkeys(form for _c, form in hits))} for f, hits in by.items()]

    def nav_reached(self) -> set[str]:
        """The slugs of the pages some stored nav file lists."""
        rows = self.conn.execute("SELECT DISTINCT path, path_key FROM nav_entries").fetchall()
        if not rows:
            return set()
        index = MemoryIndex(self.conn) if len(rows) > 50 else SqlIndex(self.conn)
        return {t for c, k in rows if (t := self._nav_target(index, c, k))}

    def stored_file_path(self, name: str) -> str | None:
        """The path of the stored non-page file ``name`` names (an attachment, a sidecar): that
        exact path, else that path in another case (NFC), else, for a bare name (``fig1.png``),
        the one file of that name in any folder, as a bare ``![[fig1.png]]`` finds it; None for
        no such file. Raises :class:`Ambiguous` (the paths) for a name several files have."""
        r = self.conn.execute("SELECT path FROM files WHERE path = ?", (name,)).fetchone()
        if r is not None:
            return r[0]
        typed = unicodedata.normalize("NFC", name.strip().strip("/"))
        key = typed.casefold()
        if not key:
            return None
        rows = self.conn.execute("SELECT path FROM files WHERE path LIKE ? ESCAPE '!'", ("%" + _like_escape(posixpath.basename(typed)),)).fetchall()
        paths = [(p, unicodedata.normalize("NFC", p).casefold()) for (p,) in rows]
        hits = [p for p, k in paths if k == key] or [p for p, k in paths if "/" not in key and posixpath.basename(k) == key]
        if len(hits) > 1:
            names = sorted(hits)
            raise Ambiguous(f"'{name}' names {len(names)} files: " + ", ".join(names[:10]) + "; give the path", names[:10])
        return hits[0] if hits else None

    def file_backlinks(self, path: str) -> list[dict]:
        """Pages whose text links to or embeds the stored file ``path`` (``[paper](../papers/x.pdf)``,
        ``![[fig1.png]]``, ``![](a%20b.png)``, ``[x](<a b.pdf#page=3>)``), each once, in slug order:
        ``{slug, title, type, context, count, forms}`` as :meth:`backlinks` gives for a page
        (``context``: the line of the first link, at most 200 characters). A written name is found
        as lint's ``dead_attachments`` finds one (:func:`gbrain.page.linkedit.written_links`,
        case-insensitively, NFC): the path relative to the linking page, from the root, a path
        ending in it, or a bare file name (any file of that name). Attachments are no page links
        (no ``links`` rows): only the pages whose text holds the file's name (SQL LIKE) are read; a
        link the page parser does not read (in code: :func:`gbrain.page.linkedit.parser_reads`) is none."""
        from ..page.linkedit import parser_reads, written_links

        target = unicodedata.normalize("NFC", path).casefold()
        base = posixpath.basename(path)
        names = {base, unicodedata.normalize("NFC", base), unicodedata.normalize("NFD", base)}
        # the spellings a link writer gives it: fully quoted, as encodeURI / encodeURIComponent
        # (`(`, `)`, `'` kept), or only the blanks encoded (Obsidian: `Smith%20et%20al%20(2024).pdf`)
        names |= {q for n in list(names) for q in (urlquote(n), urlquote(n, safe="/;,?:@&=+$!*'()#"), urlquote(n, safe="!*'()"), n.replace(" ", "%20"))}
        like = sorted({"%" + _like_escape(n) + "%" for n in names})
        cond = " OR ".join("compiled_truth LIKE ? ESCAPE '!' OR timeline LIKE ? ESCAPE '!'" for _ in like)
        out = []
        rows = self.conn.execute(f"SELECT slug, path, title, type, compiled_truth, separator, timeline FROM pages WHERE {cond} ORDER BY slug",
                                 [x for x in like for _ in (0, 1)])
        for r in rows:
            body = r["compiled_truth"] + r["separator"] + r["timeline"]
            forms: list[str] = []
            hits = []
            for w in written_links(body):
                key = unicodedata.normalize("NFC", w.name.strip()).casefold()
                if not key or posixpath.basename(key) != posixpath.basename(target):
                    continue
                rel = posixpath.normpath(posixpath.join(posixpath.dirname(r["path"]), key))
                root = posixpath.normpath(key.lstrip("/"))
                if rel == target or root == target or "/" not in key.strip("/") or target.endswith("/" + root):
                    hits.append(w)
            if hits:  # (one in code the text scan does not see, an indented block: no link)
                read = parser_reads(body, [w.probe for w in hits])
                hits = [w for i, w in enumerate(hits) if i in read]
            count = len(hits)
            for w in hits:
                if w.form not in forms:
                    forms.append(w.form)
            if count:
                line = next((ln for ln in body.splitlines() if forms[0] in ln), "")
                out.append({"slug": r["slug"], "title": r["title"], "type": r["type"], "context": " ".join(line.split())[:200],
                            "count": count, "forms": forms})
        return out

    @atomic
    def link(self, from_slug: str, to_slug: str, context: str = "") -> SaveResult:
        """Add a link from one page to another by writing it into the source page's markdown.

        Appends ``[Title](relative/path.md)`` (plus `` — context``) as a new paragraph at the end
        of the compiled truth (one more item of the list of links it ends with, if it does), or ``[[Name]]`` / ``[[Name|Title]]`` from a page whose links are
        mostly wiki links (a page without links: the brain's). No change when the page already
        links there.
        """
        src = self.resolve_slug(from_slug)
        try:
            dst = self.link_target(src, to_slug)
        except Ambiguous:
            raise
        except NotFound as e:  # the page to link to is not written yet (trial 70: say what to do)
            if e.suggestions or "\n" in to_slug:
                raise
            raise NotFound(f"{e}: the page to link to; create it first (`gbrain put {cmd_arg(to_slug)} --compiled-truth ...`), "
                           "then link; nothing was written") from None
        if src["id"] == dst["id"]:
            raise BadInput(f"{src['slug']} cannot link to itself")
        have = self.conn.execute("SELECT 1 FROM links WHERE from_page_id = ? AND to_page_id = ?", (src["id"], dst["id"])).fetchone()
        ctx = " ".join((context or "").split())
        if have:
            note = f"{src['slug']} already links to {dst['slug']}; nothing added" + (" (the context was not written: edit the page to add it)" if ctx else "")
            return SaveResult(src["slug"], src["path"], src["id"], False, False, note=note, content_hash=src["content_hash"])
        line = (self._wiki_link(src, dst) if self._writes_wiki_links(src["id"]) else self._markdown_link(src, dst)) + (f" — {ctx}" if ctx else "")
        page = self.parsed(src)
        return self._edit(src, append_link_line(page, line), lambda o, n: len(n.links) > len(o.links), "link")

    def _writes_wiki_links(self, page_id: int) -> bool:
        """Whether ``link`` writes ``[[…]]`` from this page: when most of its links are wiki
        links (an Obsidian vault's habit), or, for a page without links, most of the brain's."""
        def counts(where: str, args: tuple) -> tuple[int, int]:
            r = self.conn.execute(
                f"SELECT COALESCE(SUM(CASE WHEN kind = 'markdown' THEN 0 ELSE 1 END), 0), COALESCE(SUM(CASE WHEN kind = 'markdown' THEN 1 ELSE 0 END), 0) FROM links {where}",
                args).fetchone()
            return int(r[0]), int(r[1])

        wiki, md = counts("WHERE from_page_id = ?", (page_id,))
        if wiki + md == 0:
            wiki, md = counts("", ())
        return wiki > md

    def _wiki_link(self, src, dst) -> str:
        """``[[Name]]`` from page ``src`` to page ``dst`` (its file name when no other page has
        it, else its whole slug), with ``|Title`` when the title is not that name: the form
        Obsidian writes, which gbrain resolves back to ``dst``; a markdown link when the name
        holds a character a wiki link cannot (``[ ] | # ^``)."""
        name = posixpath.basename(dst["slug"])
        n = self.conn.execute("SELECT COUNT(*) FROM pages WHERE name_key = ?", (name_key(dst["slug"]),)).fetchone()[0]
        target = name if n == 1 else dst["slug"]
        title = (dst["title"] or "").replace("]", ")").replace("|", "/").replace("[", "(")
        if any(ch in target for ch in "[]|#^"):  # a name Obsidian cannot link to by name
            return self._markdown_link(src, dst)
        return f"[[{target}]]" if not title or title == name else f"[[{target}|{title}]]"

    def _markdown_link(self, src, dst) -> str:
        """``[Title](relative/path.md)`` from page ``src`` to page ``dst``."""
        from urllib.parse import quote

        rel = posixpath.relpath(dst["path"], posixpath.dirname(src["path"]) or ".")
        label = dst["title"].replace("[", "(").replace("]", ")")
        return f"[{label}]({quote(rel, safe='/.-_~')})"

    @atomic
    def unlink(self, from_slug: str, to_slug: str) -> SaveResult:
        """Remove every link from one page to another by turning it into plain text (its label).

        ``to_slug`` names a page (as :meth:`link` finds it: :meth:`link_target`), or the target of
        a dead link: as written (``Nobody Here``, ``../people/ghost.md``) or as the slug it points
        at (``nobody-here``, ``people/ghost``). Raises NotFound when the page has no such link."""
        src = self.resolve_slug(from_slug)
        try:
            dst = self.link_target(src, to_slug)
        except (NotFound, BadInput):
            dst = None
        rows: list = []
        if dst is not None:
            name = dst["slug"]
            rows = self.conn.execute("SELECT kind, target FROM links WHERE from_page_id = ? AND to_page_id = ?", (src["id"], dst["id"])).fetchall()
        if not rows:  # a dead link written so (its name may also be a page's the link does not reach)
            name = dst["slug"] if dst is not None else to_slug
            rows = [
                r
                for r in self.conn.execute("SELECT kind, target FROM links WHERE from_page_id = ? AND to_page_id IS NULL", (src["id"],))
                if _dead_target_is(src["slug"], r["kind"], r["target"], to_slug)
            ]
        targets = {(r["kind"] if r["kind"] == "markdown" else "wiki", r["target"]) for r in rows}
        if not targets:
            raise NotFound(f"{src['slug']} does not link to {name}")
        from ..page.linkedit import unlink_text, unlink_value

        bear = self.tag_syntax == "bear"  # Bear's [[Note/Heading]] links the note (markdown.bear_note)
        matches = lambda kind, t: (kind, nfc(t)) in targets or (bear and kind == "wiki" and "/" in t and (kind, nfc(bear_note(t))) in targets)  # noqa: E731
        # the links are found where the parser reads them (not in code, HTML or %% comments)
        text, n = unlink_text(render_row(src), matches)
        if n == 0:
            from ..page.markdown import notion_relation_links, to_lf

            rel = [ln.context for ln in notion_relation_links(to_lf(render_row(src)).lstrip(BOM), src["path"]) if matches("markdown", ln.target)]
            if rel:  # a Notion relation property: a line of its own, not link syntax to turn into text
                raise BadInput(f"{src['slug']} links {name} by a Notion relation property ({rel[0]}): edit or remove that line")
            tags = [f for (fs,) in self.conn.execute("SELECT forms FROM links WHERE from_page_id = ? AND kind = 'wiki'", (src["id"],))
                    for f in json.loads(fs or "[]") if f.startswith(("#", "tags:: ")) and matches("wiki", f.split(" ", 1)[-1].lstrip("#"))]
            if tags:  # a Logseq tag is a link to its page (markdown.logseq_tag_links): no link syntax to turn into text
                raise BadInput(f"{src['slug']} links {name} by its tag ({tags[0]}): in a Logseq graph a tag links its page; remove the tag from the text")
            raise GBrainError(f"could not find the link text to {name} in {src['slug']}")

        def check(o: Page, n: Page) -> bool:
            # a link in a property becomes its text in place (``related: "[[Ana]]"`` → ``"Ana"``):
            # the frontmatter must load to the old data with just those links unwrapped
            if n.frontmatter_raw != o.frontmatter_raw:
                want = map_strings(o.frontmatter, lambda s: unlink_value(s, matches))
                if n.frontmatter_error or o.frontmatter_error or n.frontmatter != want or n.bom != o.bom:
                    return False
            # fewer links written (an embed of the same page may stay: ``![[Ana]]`` is kept)
            return sum(x.count for x in n.links) < sum(x.count for x in o.links)

        return self._edit(src, text, check, "unlink", frontmatter_checked=True)

    # ---- tags -----------------------------------------------------------------

    def tags(self, slug: str) -> list[str]:
        """The page's tags as written: frontmatter ``tags`` first, then inline ``#tags``."""
        row = self.resolve_slug(slug)
        return [r[0] for r in self.conn.execute("SELECT tag FROM tags WHERE page_id = ? ORDER BY id", (row["id"],))]

    def all_tags(self) -> list[dict]:
        """Every tag once per identity (``tag_identity``: NFC + lowercase, as Obsidian): ``[{"tag", "pages", "spellings"}]``.
        ``tag`` is the spelling most pages use (ties: :func:`~gbrain.page.slugs.tag_spelling_rank`, the
        spelling :meth:`tag` writes and lint's canonical one), ``spellings`` maps each
        spelling written to its page count. Ordered by pages, then tag."""
        groups: dict[str, dict[str, int]] = {}
        for key, tag, n in self.conn.execute("SELECT tag_key, tag, COUNT(*) FROM tags GROUP BY tag_key, tag"):
            groups.setdefault(key, {})[tag] = n
        out = []
        for key, sp in groups.items():
            pages = self.conn.execute("SELECT COUNT(DISTINCT page_id) FROM tags WHERE tag_key = ?", (key,)).fetchone()[0] if len(sp) > 1 else next(iter(sp.values()))
            order = sorted(sp.items(), key=lambda kv: tag_spelling_rank(*kv))
            out.append({"tag": order[0][0], "pages": pages, "spellings": dict(order)})
        out.sort(key=lambda r: (-r["pages"], r["tag"]))
        return out

    def _set_tags(self, row: sqlite3.Row, tags: list[str], *, untag: bool = False) -> SaveResult:
        page = self.parsed(row)
        try:
            text = edit_frontmatter(page, tags=tags)
        except ValueError as e:
            raise Conflict(str(e)) from e
        if untag and not tags:
            text = self._empty_tags_key_back(row, page, text) or text
        return self._edit(row, text, lambda o, n: n.tags == tags and n.body == o.body, "frontmatter")

    #: page versions :meth:`_empty_tags_key_back` reads back, newest first
    EMPTY_KEY_LOOKBACK = 4

    def _empty_tags_key_back(self, row: sqlite3.Row, page: Page, text: str) -> str | None:
        """The page ``text`` an untag of the page's last tag writes (``edit_frontmatter`` removed
        its emptied tag key, and a block left with nothing else), with the frontmatter the page
        had before its tags last changed instead, when that wrote the key empty (``tags:``,
        ``tags:\n- ``, ``tags: []``: Obsidian's empty property, a template's) and is otherwise
        the same data: ``tag X`` then ``untag X`` gives those bytes back, where a key gbrain
        added goes. The version is the newest of the page's last :data:`EMPTY_KEY_LOOKBACK`
        whose frontmatter differs from the page's now (the history; none kept: None). None when
        no such version, or it differs in anything but an empty tag key."""
        from .history import version_bytes

        new = self.parse_text(text, row["path"])
        if new.body != page.body or set(new.frontmatter) == set(page.frontmatter):
            return None  # (no key removed)
        for n in range(-1, -1 - self.EMPTY_KEY_LOOKBACK, -1):
            try:
                old = self.parse_text(version_bytes(self, "page", row["slug"], n).decode("utf-8"), row["path"])
            except (NotFound, BadInput, UnicodeDecodeError):
                return None
            if old.frontmatter_raw == page.frontmatter_raw:
                continue  # (the tag's own version, an edit of the body)
            empty = {k for k, v in old.frontmatter.items() if k.casefold() in ("tags", "tag")
                     and (v is None or v == "" or isinstance(v, list) and all(x is None or not str(x).strip() for x in v))}
            gone = set(page.frontmatter) - set(new.frontmatter)
            if old.frontmatter_error or old.tags or not gone <= empty or {k: v for k, v in old.frontmatter.items() if k not in empty} != new.frontmatter:
                return None
            back = (BOM if page.bom else "") + old.frontmatter_raw + page.body
            got = self.parse_text(back, row["path"])
            return back if got.tags == [] and got.body == page.body else None
        return None

    @atomic
    def tag(self, slug: str, tag: str) -> SaveResult:
        """Add ``tag`` to the page's frontmatter ``tags`` (in its composed Unicode form, NFC); to a
        Notion export's page with properties and no frontmatter, to its ``Tags:`` line instead
        (:func:`gbrain.page.markdown.notion_tag_added`: frontmatter would end its Notion reading). No
        change when the page already has the tag in any spelling (case, Unicode normalisation), in
        its frontmatter or inline. A tag the brain's pages spell otherwise (``Energy`` where they have
        ``energy``; ``CFO-candidate`` where they have ``cfo_candidate``, one normalised form,
        :func:`~gbrain.page.slugs.tag_merge_form`) is written in their spelling (:meth:`_tag_spelling`:
        the one ``gbrain tags`` shows and lint's ``--fix-safe`` renames to), with a ``note`` saying so;
        a page having the tag in that spelling, or in another of that form (``cfo_candidate``), is left
        as it is (the ``note`` says which, and how to merge: lint's ``--fix-safe`` for the tags property, by
        hand for an inline ``#tag`` or a Notion ``Tags:``/Logseq ``tags::`` line, :meth:`tag_line`). A tag no page has
        is written as given (Obsidian shows a tag's first spelling).
        Raises :class:`BadInput` for a tag holding a control or invisible character, or white space (Obsidian reads ``#YC Alum`` as
        the tag ``YC``): the message offers the dashed spelling, or the brain's tag that spelling
        matches (``yc-alum``, with its page count)."""
        tag = nfc(_check_tag(tag))  # (a tag typed decomposed is written composed, as put names a page: trial 43)
        bad = _SOMETHING_ELSE.search(tag)
        if any(ch.isspace() for ch in tag) and not bad:
            raise BadInput(self._spaced_tag(tag))
        row = self.resolve_slug(slug)
        page = self.parsed(row)
        has = next((t for t in page.all_tags if tag_identity(t) == tag_identity(tag)), None)
        if has is not None:  # (one the page has, even one written so in Obsidian; the note names another spelling)
            return SaveResult(row["slug"], row["path"], row["id"], False, False, content_hash=row["content_hash"],
                              note=f"it has '{has}' (tags match in any case, as in Obsidian)" if has != tag else None)
        if bad:  # as a slug, a new tag must look like what it is (a NUL, a right-to-left override; trial 66); untag still takes one
            raise BadInput(f"invalid tag '{shown(tag)}': it contains an invisible or control character (U+{ord(bad.group()):04X})")
        if any(ch.isspace() for ch in tag):
            raise BadInput(self._spaced_tag(tag))
        note = None
        spelled = self._tag_spelling(tag)
        if spelled is not None and spelled[0] != tag:
            # the brain spells it otherwise (case, Unicode form; `_` or blanks for `-`): Obsidian matches tags in
            # any case and lists one; write the spelling `gbrain tags` shows, and say so (trial 48: `Energy`
            # beside `energy`; 2026-12-07: `CFO-candidate` beside `cfo-candidate` / `cfo_candidate`)
            old, (tag, n) = tag, spelled
            why = "tags match in any case, as in Obsidian" if tag_identity(tag) == tag_identity(old) else \
                f"lint's tag_duplicates takes '{old}' for the same tag"
            note = f"'{tag}', the spelling {n:,} {'page uses' if n == 1 else 'pages use'} ({why})"
            if tag_identity(tag) in {tag_identity(t) for t in page.all_tags}:  # (the page has it, in the brain's form)
                return SaveResult(row["slug"], row["path"], row["id"], False, False, content_hash=row["content_hash"], note="it has " + note)
            note = "wrote " + note
        form = tag_merge_form(tag)
        has = next((t for t in page.all_tags if tag_merge_form(t) == form), None)
        if has is not None:  # (the page has it in a rarer spelling lint merges: a second one would be one tag twice)
            line = None if has in page.tags else self.tag_line(row, page, tag_identity(has))[0]  # (a Logseq tags:: or Notion Tags: line)
            fix = ("`gbrain lint --fix-safe` writes one spelling everywhere" if has in page.tags else  # (lint-fix edits the tags property only)
                   f"its {line} writes '{has}'" if line else f"its text writes '#{has}'")
            if has not in page.tags:
                fix += ": rename it there by hand, as lint's tag_duplicates says"
            return SaveResult(row["slug"], row["path"], row["id"], False, False, content_hash=row["content_hash"],
                              note=f"it has '{has}', a spelling of the same tag ({fix})")
        body = None if page.frontmatter_raw else notion_tag_added(page.body, row["path"], tag)
        if body is not None:  # a Notion export's page: a frontmatter block would end its Tags: line's and relations' reading
            res = self._edit(row, (BOM if page.bom else "") + body, _notion_tags_check(page, tag_identity(tag), True), "tag")
        else:
            res = self._set_tags(row, page.tags + [tag])
        res.note = res.note or note
        return res

    def _tag_spelling(self, tag: str) -> tuple[str, int] | None:
        """The spelling of ``tag`` the brain's pages use, and how many pages write it: among the
        tags of its normalised form (:func:`~gbrain.page.slugs.tag_merge_form`: case, Unicode form, and
        ``_``/blanks for ``-``, the spellings lint's ``--fix-safe`` merges), the best by
        :func:`~gbrain.page.slugs.tag_spelling_rank` (the one ``gbrain tags`` shows); None when no page has
        one. Reads the tags' distinct keys (the ``tag_key`` index), then the spellings of those that match."""
        form = tag_merge_form(tag)
        keys = [k for (k,) in self.conn.execute("SELECT DISTINCT tag_key FROM tags") if tag_merge_form(k) == form]
        if not keys:
            return None
        rows = self.conn.execute(f"SELECT tag, COUNT(DISTINCT page_id) FROM tags WHERE tag_key IN ({', '.join('?' * len(keys))}) GROUP BY tag", keys).fetchall()
        best = min(rows, key=lambda r: tag_spelling_rank(r[0], r[1]))
        return best[0], best[1]

    def tag_line(self, row: sqlite3.Row, page: Page, key: str) -> tuple[str, str] | tuple[None, None]:
        """Where the page's text writes the tag of identity ``key`` (:func:`tag_identity`) when not as
        an inline ``#tag``: ``("Logseq tags:: line", spelling)`` or ``("Notion Tags: line", spelling)``,
        else ``(None, None)``. For messages saying what to edit by hand (untag, lint's tag_duplicates)."""
        props = logseq_properties(page.body) if "::" in page.body and reads_logseq_properties(row["path"], self.page_syntax(row["path"])) else {}
        prop = [t for t in logseq_items(props.get("tags", "")) if tag_identity(t) == key]
        if prop:
            return "Logseq tags:: line", prop[0]
        notion = [] if page.frontmatter_raw else [t for t in notion_items(notion_properties(to_lf(page.body), row["path"]).get("tags", "")) if tag_identity(t) == key]
        return ("Notion Tags: line", notion[0]) if notion else (None, None)

    def _spaced_tag(self, tag: str) -> str:
        """The refusal of a tag with white space in it, naming the tag to use instead."""
        key = lambda t: _NOT_ALNUM_TAG.sub("-", nfc(t).casefold()).strip("-")  # noqa: E731
        want = key(tag)
        have = [(r[0], r[1]) for r in self.conn.execute("SELECT tag, COUNT(DISTINCT page_id) FROM tags GROUP BY tag ORDER BY COUNT(DISTINCT page_id) DESC, tag")
                if key(r[0]) == want and not any(ch.isspace() for ch in r[0])]
        dashed = re.sub(r"\s+", "-", tag.strip())
        use = f"'{have[0][0]}', the tag {have[0][1]:,} page(s) have" if have else f"'{dashed}'"
        return f"a tag cannot hold spaces ('{tag}': Obsidian and inline #tags would read '{tag.split()[0]}'); use {use}"

    @atomic
    def untag(self, slug: str, tag: str) -> SaveResult:
        """Remove ``tag`` (every spelling of it) from the page's frontmatter ``tags``.

        A page without the tag is left as it is: ``changed`` False with a note (a retried
        ``untag``, like a retried ``tag`` or ``delete``, is no error), listing the page's tags
        when one is near the name given (a typo). A Notion export's page (no frontmatter) has the
        tag taken out of its ``Tags:`` line, where ``tag`` writes it
        (:func:`gbrain.page.markdown.notion_tag_removed`; the line with it when it was the only item).
        Raises :class:`BadInput` when the tag is written only inline in the body (``#tag``): untag
        edits the frontmatter (or that line) only, so nothing is written and the message says where
        the tag is (``#tag``, a Logseq ``tags::`` line)."""
        tag = _check_tag(tag)
        row = self.resolve_slug(slug)
        page = self.parsed(row)
        key = tag_identity(tag)
        keep = [t for t in page.tags if tag_identity(t) != key]
        if len(keep) == len(page.tags):
            inline = [t for t in page.inline_tags if tag_identity(t) == key]
            if inline:
                line, written = self.tag_line(row, page, key)
                body = notion_tag_removed(page.body, row["path"], lambda t: tag_identity(t) == key) if line == "Notion Tags: line" else None
                if body is not None:  # written there by tag (or Notion): taken out of that line
                    text = (BOM if page.bom else "") + body
                    still = [t for t in self.parse_text(text, row["path"]).all_tags if tag_identity(t) == key]
                    if not still:
                        return self._edit(row, text, _notion_tags_check(page, key, False), "untag")
                    line, inline = None, still  # written inline (#tag) too: the refusal names that
                where = f"in the page's {line} ({written})" if line else f"inline in the page's text (#{inline[0]})"
                raise BadInput(f"{row['slug']}: tag '{tag}' is written {where}, not only in its frontmatter tags or a Notion export's Tags: line, the places untag changes, so nothing was written. Edit the text to remove it")
            near = difflib.get_close_matches(key, [tag_identity(t) for t in page.all_tags], n=3, cutoff=0.6)
            hint = f"; its tags: {', '.join(page.all_tags)}" if near else ""
            return SaveResult(row["slug"], row["path"], row["id"], False, False, note=f"{row['slug']} has no tag '{tag}': nothing removed{hint}",
                              content_hash=row["content_hash"])
        return self._set_tags(row, keep, untag=True)

    # ---- timeline ---------------------------------------------------------------

    def copy_page_ids(self) -> list[int]:
        """The ids of the pages that are conflict copies (:func:`~gbrain.page.slugs.is_page_copy`:
        gbrain's ``.conflict-…`` and a file-sync tool's), ascending: the few slugs holding
        ``conflict`` (LIKE: ILIKE on Postgres), the mark decides."""
        return sorted(r[0] for r in self.conn.execute("SELECT id, slug FROM pages WHERE slug LIKE '%conflict%'") if is_page_copy(r[1]))

    def timeline(self, slug: str | None, limit: int | None = None, since: str | None = None, until: str | None = None,
                 copies: bool = True, after: list | None = None, positions: list | None = None) -> list[dict]:
        """Timeline entries, newest first: of page ``slug``, or (None) of every page, each with its
        page's ``slug`` (same date: by slug, then as written). ``since``/``until`` bound the date,
        inclusive, compared as text (``YYYY-MM-DD`` as written, a date that is no real one too:
        ``2025-02-30`` sorts after ``2025-02-28``); the range reads ``idx_timeline_date``.
        ``copies=False`` (every page's only) leaves out the entries of conflict copies
        (:meth:`copy_page_ids`; :meth:`timeline_copy_entries` counts them).

        An entry's position is ``[date, slug, n]`` (of one page: ``[date, n]``), ``n`` its number
        among its page's entries of that date, as written (0 first): entry ids change on every
        save of their page, a page's text order does not change unless the page is written.
        ``positions``: a list each returned entry's position is appended to; ``after``: only the
        entries after that position (a keyset page: entries another page gains meanwhile move no
        entry of a page left unchanged). Raises BadInput for a position not of its shape."""
        where, args = self._timeline_range(since, until)
        skip = 0  # the entries of the position's (date, slug) up to its own, read and left out
        if after is not None:
            shape = [str, int] if slug is not None else [str, str, int]
            if len(after) != len(shape) or not all(type(x) is t for x, t in zip(after, shape)) or after[-1] < 0:
                raise BadInput(f"timeline: a position is {'[date, n]' if slug is not None else '[date, slug, n]'}")
            if slug is not None:
                where.append("t.date <= ?")
                args.append(after[0])
            else:
                where.append("(t.date < ? OR (t.date = ? AND p.slug >= ?))")
                args += [after[0], after[0], after[1]]
            skip = after[-1] + 1
        if slug is not None:
            where.insert(0, "t.page_id = ?")
            args.insert(0, self.resolve_slug(slug)["id"])
        elif not copies and (ids := self.copy_page_ids()):
            where.append(f"t.page_id NOT IN ({','.join('?' * len(ids))})")
            args += ids
        cond = f" WHERE {' AND '.join(where)}" if where else ""
        if slug is not None:
            q = f"SELECT t.date, t.source, t.summary, t.detail FROM timeline_entries t{cond} ORDER BY t.date DESC, t.id"
        else:
            q = (f"SELECT p.slug, t.date, t.source, t.summary, t.detail FROM timeline_entries t JOIN pages p ON p.id = t.page_id{cond}"
                 " ORDER BY t.date DESC, p.slug, t.id")
        if limit:
            q += " LIMIT ?"
            args.append(int(limit) + skip)
        out, group, n = [], None, 0
        for r in self.conn.execute(q, tuple(args)):
            e = dict(r)
            g = (e["date"],) if slug is not None else (e["date"], e["slug"])
            n = n + 1 if g == group else 0
            group = g
            if after is not None and list(g) == after[:-1] and n <= after[-1]:
                continue
            if limit and len(out) >= limit:
                break
            out.append(e)
            if positions is not None:
                positions.append([*g, n])
        return out

    @staticmethod
    def _timeline_range(since: str | None, until: str | None) -> tuple[list[str], list]:
        where, args = [], []
        if since:
            where.append("t.date >= ?")
            args.append(since)
        if until:
            where.append("t.date <= ?")
            args.append(until)
        return where, args

    def timeline_copy_entries(self, since: str | None = None, until: str | None = None) -> tuple[int, int]:
        """``(entries, copies)``: how many timeline entries dated within ``since``/``until`` (as
        :meth:`timeline` bounds them) the conflict copies hold, and how many copies hold them."""
        ids = self.copy_page_ids()
        if not ids:
            return 0, 0
        where, args = self._timeline_range(since, until)
        where.append(f"t.page_id IN ({','.join('?' * len(ids))})")
        r = self.conn.execute(f"SELECT COUNT(*), COUNT(DISTINCT t.page_id) FROM timeline_entries t WHERE {' AND '.join(where)}", args + ids).fetchone()
        return r[0], r[1]

    @atomic
    def timeline_add(self, slug: str, date: str, summary: str, source: str = "", detail: str = "") -> SaveResult:
        """Append a timeline line to the page's markdown (creating the ``---`` timeline if needed)."""
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date or ""):
            raise BadInput(f"date must be YYYY-MM-DD, got {date!r}")
        import datetime as _dt

        try:
            _dt.date.fromisoformat(date)
        except ValueError as e:
            raise BadInput(f"not a real date: {date}") from e
        summary = " ".join((summary or "").split())
        if not summary:
            raise BadInput("summary is empty")
        source = " ".join((source or "").replace("—", "-").split())
        row = self.resolve_slug(slug)
        page = self.parsed(row)
        heading = self.timeline_split == "heading"
        # entries already under the page's own '## Timeline' heading count once it becomes the timeline
        base = timeline_target(page, heading)
        if (date, source, summary) in {entry_key(e) for e in base.timeline_entries}:
            # a retried call: the entry is there already, so nothing is added
            return SaveResult(row["slug"], row["path"], row["id"], changed=False, created=False, content_hash=row["content_hash"],
                              note=f"the timeline already has this entry ({date} | {source or 'no source'} — {summary}); nothing added")
        entry = timeline_line(date, summary, source, detail or "", nl=page.newline)

        def landed(o, n) -> bool:
            return len(n.timeline_entries) == len(base.timeline_entries) + 1 and any(e.date == date and e.summary.endswith(summary) for e in n.timeline_entries)

        res = self._edit(row, append_timeline(page, entry, heading=heading), landed, "timeline entry")
        if res.changed:
            res.note = rule_as_separator_note(page, base, heading) or res.note
        return res

    # ---- listing / stats --------------------------------------------------------

    #: list's sorts: the column (None: the slug alone) and whether it runs newest first; ties by slug
    LIST_SORTS = {"slug": (None, False), "updated": ("updated_at", True), "created": ("created_at", True), "title": ("title", False)}

    @staticmethod
    def list_position(sort: str, row: dict) -> list:
        """A :meth:`list_pages` row's position in ``sort`` order: ``[slug]``, or ``[key, slug]``
        (``updated_at``, ``created_at`` or ``title``); what ``after`` takes."""
        col = Brain.LIST_SORTS[sort][0]
        return [row["slug"]] if col is None else [row[col], row["slug"]]

    def list_pages(self, type: str | None = None, tag: str | None = None, limit: int | None = 50, sort: str = "slug", since: str | None = None,
                   prefix: str | None = None, after: list | None = None) -> list[dict]:
        """The pages of a :class:`~gbrain.storage.filters.PageFilter` (type, tag, folder
        ``prefix``: search's filters), updated since ``since``, in ``sort`` order (ties by slug),
        each ``{slug, title, type, updated_at}`` (and ``created_at`` for ``sort="created"``).
        ``after``: only the pages after that position (:meth:`list_position` of the last row a
        page showed): a keyset page, whose rows stay where they were whatever was written before
        it. Raises BadInput for an unknown ``sort`` or a position not of its shape."""
        if sort not in self.LIST_SORTS:
            raise BadInput("sort must be one of slug, updated, created, title")
        col, desc = self.LIST_SORTS[sort]
        where, args = PageFilter(type, tag, prefix).where()
        q = "SELECT p.slug, p.title, p.type, p.updated_at" + (", p.created_at" if sort == "created" else "") + " FROM pages p"
        if since:
            where.append("p.updated_at >= ?")
            args.append(since)
        if after is not None:
            if len(after) != (1 if col is None else 2) or not all(isinstance(x, str) for x in after):
                raise BadInput(f"list: a position of sort {sort} is {'[slug]' if col is None else f'[{col}, slug]'}")
            if col is None:
                where.append("p.slug > ?")
            else:
                where.append(f"(p.{col} {'<' if desc else '>'} ? OR (p.{col} = ? AND p.slug > ?))")
                args += [after[0], after[0]]
            args.append(after[-1])
        if where:
            q += " WHERE " + " AND ".join(where)
        q += " ORDER BY " + ("p.slug" if col is None else f"p.{col}{' DESC' if desc else ''}, p.slug")
        if limit:
            q += " LIMIT ?"
            args.append(int(limit))
        return [dict(r) for r in self.conn.execute(q, args)]

    def recent_news(self, since: str | None, limit: int) -> tuple[list[dict], int, int]:
        """The newest ``limit`` pages updated since ``since`` (an ISO time; None: all), as
        ``list --sort updated`` orders and gives them, leaving out what is no news: pages of type
        ``briefing``, conflict copies (:func:`~gbrain.page.slugs.conflict_original`) and pages
        whose newest version an import wrote (an import counts as a change of every page it
        stored; the briefing skill's step 1.1); how many such news pages there are in all; and
        how many pages were left out as the import's. One COUNT each, the few slugs that look
        like copies, and at most ``limit`` + that many rows read, however many pages changed
        (the briefing prompt)."""
        cond, args = "(p.type IS NULL OR p.type <> 'briefing')", []
        if since:
            cond += " AND p.updated_at >= ?"
            args.append(since)
        # the surface of the page's newest version (the history's (kind, name, version) index)
        by_import = ("COALESCE((SELECT h.surface FROM history h WHERE h.kind = 'page' AND h.name = p.slug "
                     "ORDER BY h.version DESC LIMIT 1), '') = 'import'")
        imported = self.conn.execute("SELECT COUNT(*) FROM pages p WHERE " + cond + " AND " + by_import, args).fetchone()[0]
        if imported:
            cond += " AND NOT " + by_import
        total = self.conn.execute("SELECT COUNT(*) FROM pages p WHERE " + cond, args).fetchone()[0]
        # LIKE (ILIKE on Postgres) finds every copy's slug and maybe more; the mark decides
        copies = sum(1 for (slug,) in self.conn.execute("SELECT p.slug FROM pages p WHERE " + cond + " AND p.slug LIKE '%.conflict-%'", args) if conflict_original(slug))
        rows = self.conn.execute("SELECT p.slug, p.title, p.type, p.updated_at FROM pages p WHERE " + cond + " ORDER BY p.updated_at DESC, p.slug LIMIT ?",
                                 args + [limit + copies])
        return [dict(r) for r in rows if not conflict_original(r["slug"])][:limit], total - copies, imported

    def check_type(self, type_: str | None, warn=None) -> None:
        """When no page of the brain has the type ``type_`` (a filter that can only match
        nothing): raise :class:`NotFound` if the brain has near types (a slip: ``people`` where
        pages are ``person``), with the near ones as ``suggestions``; else (a type no page has
        yet: the first ``briefing`` of a brain) call ``warn(message)`` and return, so the answer
        is an empty list. Either way the message names the brain's types and their page counts.
        Nothing when ``type_`` is None, some page has it, or no page has any type. Callers ask
        only after a filtered read came back empty (one indexed lookup)."""
        if not type_ or self.conn.execute("SELECT 1 FROM pages WHERE type = ? LIMIT 1", (type_,)).fetchone():
            return
        counts = [(r[0], r[1]) for r in self.conn.execute(
            "SELECT type, COUNT(*) FROM pages WHERE type IS NOT NULL AND type <> '' GROUP BY type ORDER BY COUNT(*) DESC, type")]
        same_but_case = [t for t, _ in counts if t.casefold() == type_.casefold()]
        folder_type = [FOLDER_TYPES[type_.casefold()]] if type_.casefold() in FOLDER_TYPES else []
        self._no_match("type", type_, type_.casefold(), counts, warn, also=same_but_case + folder_type)

    def check_filters(self, type_: str | None = None, tag: str | None = None, prefix: str | None = None, warn=None) -> None:
        """:meth:`check_type`, and the same for a ``tag`` no page has (nested tags count: the
        ``list --tag`` filter, :class:`~gbrain.storage.filters.PageFilter`) and a folder
        ``prefix`` no page is under: a near miss (``meetng`` where pages are tagged ``meeting``,
        ``People`` for ``person/``) raises :class:`NotFound` naming the near ones as
        ``suggestions``; else ``warn(message)`` and an empty answer. Each message names the
        brain's tags or top folders with their page counts. Callers ask only after a filtered
        read came back empty."""
        self.check_type(type_, warn)

        def none_has(f: PageFilter) -> bool:
            where, args = f.where()
            return self.conn.execute("SELECT 1 FROM pages p WHERE " + " AND ".join(where) + " LIMIT 1", args).fetchone() is None

        if tag and none_has(PageFilter(tag=tag)):
            counts = [(r[0], r[1]) for r in self.conn.execute(
                "SELECT tag_key, COUNT(DISTINCT page_id) FROM tags GROUP BY tag_key ORDER BY COUNT(DISTINCT page_id) DESC, tag_key")]
            # each shown as written: as `tags` lists it, the spelling most pages use, ties by tag_spelling_rank (trial s59)
            spelled: dict[str, tuple] = {}
            for key, written, n in self.conn.execute("SELECT tag_key, tag, COUNT(DISTINCT page_id) FROM tags GROUP BY tag_key, tag"):
                rank = tag_spelling_rank(written, n)
                if key not in spelled or rank < spelled[key]:
                    spelled[key] = rank
            self._no_match("tag", tag, tag_filter_key(tag), counts, warn, shown={k: r[2] for k, r in spelled.items()})
        if prefix and none_has(PageFilter(prefix=prefix)):
            pages_in: dict[str, int] = {}  # each folder as written: the pages right in it
            for (slug,) in self.conn.execute("SELECT slug FROM pages WHERE slug_key LIKE '%/%'"):
                d = slug.rpartition("/")[0]
                pages_in[d] = pages_in.get(d, 0) + 1
            folders: dict[str, int] = {}
            written: dict[str, dict[str, int]] = {}  # a folder's key: its spellings, with their page counts
            for d, n in pages_in.items():
                parts = d.split("/")
                for i in range(1, len(parts) + 1):  # every folder of the page, parents too
                    f = "/".join(parts[:i]) + "/"
                    k = slug_key(f)
                    folders[k] = folders.get(k, 0) + n
                    sp = written.setdefault(k, {})
                    sp[f] = sp.get(f, 0) + n
            counts = sorted(folders.items(), key=lambda kv: (-kv[1], kv[0]))
            # a folder under its parent's spelling, its own name the one most used (ties: the smallest): a
            # parent and its subfolder never disagree on the parent's case (`en/`, `En/Plugins/`)
            shown: dict[str, str] = {}
            for k in sorted(written, key=lambda x: x.count("/")):
                names: dict[str, int] = {}
                for f, n in written[k].items():
                    seg = f[:-1].rpartition("/")[2]
                    names[seg] = names.get(seg, 0) + n
                parent = k[:-1].rpartition("/")[0]
                seg = min(names.items(), key=lambda kv: (-kv[1], kv[0]))[0]
                shown[k] = (shown[parent + "/"] if parent else "") + seg + "/"
            self._no_match("folder", prefix, folder_key(prefix), counts, warn, shown=shown)

    @staticmethod
    def _no_match(what: str, asked: str, key: str, counts: list[tuple[str, int]], warn, *, also: list[str] = (),
                  shown: dict[str, str] | None = None) -> None:
        """:meth:`check_type`'s and :meth:`check_filters`' answer for a ``what`` (type, tag,
        folder) ``asked`` (compared as ``key``) that no page has, given the brain's ``counts``
        (``[(name, pages)]``, most first): the names ``key`` is a slip for (:func:`_slip_for`),
        and those of ``also`` the brain has, are near misses: NotFound naming them. Another word
        that merely looks alike (``company`` beside ``comparison``, ``active`` beside ``action``:
        difflib's ratio took them for slips until trial 38, so the skills' standard calls failed
        on a vault without companies) is a name no page has yet: ``warn`` and an empty answer.
        ``shown`` maps a name of ``counts`` (a lookup key: a tag's or folder's, lowercased) to
        the name as the brain writes it, which the message and the suggestions give (trial s59)."""
        if not counts:
            return
        names = [n for n, _ in counts]
        near = [n for n in also if n in names]
        slips = sorted((d, i, n) for i, n in enumerate(names) if n not in near and (d := _slip_for(key, n)) is not None)
        near += [n for _, _, n in slips][:max(0, 3 - len(near))]
        if shown:
            near = [shown.get(n, n) for n in near]
            counts = [(shown.get(n, n), c) for n, c in counts]
        listed = ", ".join(f"{n} ({c:,})" for n, c in counts[:12]) + (f", … {len(counts) - 12} more" if len(counts) > 12 else "")
        has = f"no page is under the folder '{asked}'" if what == "folder" else f"no page has {what} '{asked}'"
        if near:
            raise NotFound(f"{has}; did you mean: {', '.join(near)}; the {what}s in this brain: {listed}", near)
        if warn is not None:
            warn(f"{has} yet, so nothing matches; the {what}s in this brain: {listed}")

    def stats(self) -> dict:
        """Counts of the brain's rows (pages by type, links, tags, raw rows, timeline entries,
        embeddings by model, files, ingest log, frontmatter errors) and sizes in bytes:
        ``files_bytes`` (the stored files' sizes), ``history_bytes`` (what the stored versions
        take: history bodies, compressed, and the pieces of big files only the history holds),
        ``db_bytes`` (:meth:`_db_bytes`); ``history_versions`` (rows of the history),
        ``history_table_bytes`` and ``free_bytes`` (:meth:`_history_bytes`)."""
        c = self.conn
        one = lambda q: c.execute(q).fetchone()[0]  # noqa: E731
        return {
            "pages": one("SELECT COUNT(*) FROM pages"),
            "by_type": {r[0]: r[1] for r in c.execute("SELECT type, COUNT(*) FROM pages GROUP BY type ORDER BY COUNT(*) DESC, type")},
            "links": one("SELECT COUNT(*) FROM links"),
            "links_resolved": one("SELECT COUNT(*) FROM links WHERE to_page_id IS NOT NULL"),
            "links_dangling": one("SELECT COUNT(*) FROM links WHERE to_page_id IS NULL"),
            "tags": one("SELECT COUNT(*) FROM tags"),
            "unique_tags": one("SELECT COUNT(DISTINCT tag_key) FROM tags"),  # one per identity, as `tags` lists them
            "raw_data": one("SELECT COUNT(*) FROM raw_data"),
            "timeline_entries": one("SELECT COUNT(*) FROM timeline_entries"),
            "embeddings": one("SELECT COUNT(*) FROM page_embeddings"),
            "embeddings_by_model": {r[0]: r[1] for r in c.execute("SELECT model, COUNT(*) FROM page_embeddings GROUP BY model ORDER BY COUNT(*) DESC, model")},
            "files": one("SELECT COUNT(*) FROM files"),
            "files_bytes": one("SELECT COALESCE(SUM(size), 0) FROM files"),
            # the stored versions: history bodies, and the pieces of big files no current file holds
            "history_bytes": one("SELECT COALESCE(SUM(length(data)), 0) FROM history_bodies")
            + one("SELECT COALESCE(SUM(length(d.data)), 0) FROM blob_pieces p JOIN blob_data d ON d.id = p.data_id "
                  "WHERE p.hash NOT IN (SELECT content_hash FROM files WHERE pieces > 0)"),
            "ingest_log": one("SELECT COUNT(*) FROM ingest_log"),
            "frontmatter_errors": one("SELECT COUNT(*) FROM pages WHERE frontmatter_error IS NOT NULL"),
            "db_bytes": self._db_bytes(),
            "history_versions": one("SELECT COUNT(*) FROM history"),
            **self._history_bytes(),
        }

    def _db_bytes(self) -> int:
        """Size of the database in bytes: SQLite's pages (``page_count × page_size``: the file once
        the WAL is checkpointed, free pages included) or ``pg_database_size`` (Postgres)."""
        if dbmod.is_postgres(self.conn):
            return int(self.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])
        c = self.conn
        return int(c.execute("PRAGMA page_count").fetchone()[0]) * int(c.execute("PRAGMA page_size").fetchone()[0])

    def _history_bytes(self) -> dict:
        """``{"history_table_bytes": the bytes of the tables history and history_bodies with their
        indexes (SQLite: the pages ``dbstat`` counts, None where SQLite was built without it;
        Postgres: ``pg_total_relation_size``), "free_bytes": SQLite's free pages (what a prune or a
        deletion left inside the file: reused by later writes, given back only by a VACUUM); None
        on Postgres, whose free space is per table (VACUUM FULL)}``. Reads the history's pages
        once (SQLite): milliseconds per MB."""
        c = self.conn
        if dbmod.is_postgres(c):
            n = c.execute("SELECT pg_total_relation_size('history') + pg_total_relation_size('history_bodies')").fetchone()[0]
            return {"history_table_bytes": int(n), "free_bytes": None}
        page = int(c.execute("PRAGMA page_size").fetchone()[0])
        free = int(c.execute("PRAGMA freelist_count").fetchone()[0]) * page
        names = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE tbl_name IN ('history', 'history_bodies') AND type IN ('table', 'index')")]
        try:
            n = sum(c.execute("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = 1", (x,)).fetchone()[0] for x in names)
        except sqlite3.OperationalError:  # no dbstat in this SQLite
            return {"history_table_bytes": None, "free_bytes": free}
        return {"history_table_bytes": int(n), "free_bytes": free}

    # ---- non-page files and raw data ----------------------------------------------

    def save_file(self, path: str, data: bytes, kind: str | None = None) -> list[str] | None:
        """Store a non-page file's exact bytes; derive raw_data / config / ingest_log rows from it.
        Returns None when the stored bytes are already equal, else the warnings of deriving the
        rows (a sidecar that is not JSON, or has no page). A ``blob`` bigger than
        ``blobs.BIG`` is stored in pieces (:mod:`gbrain.storage.blobs`)."""
        return self._store_file(path, data, kind or file_kind(path), sha256(data))

    def _store_file(self, path: str, data: bytes, kind: str, h: str) -> list[str] | None:
        """:meth:`save_file` of ``data`` whose sha256 is ``h`` (already taken by the caller)."""
        if kind == "blob" and blobs.is_big(len(data)):
            import io

            return self._save_pieces(path, kind, lambda: io.BytesIO(data), h, len(data))[0]
        row = self.conn.execute("SELECT content_hash, kind FROM files WHERE path = ?", (path,)).fetchone()
        if row and row["content_hash"] == h and row["kind"] == kind:
            return None
        warnings: list[str] = []
        with self.transaction():
            if kind == "raw":
                # the sidecar's page id goes in with the row (one statement, not an UPDATE after:
                # the same row; no trigger reads files.page_id), then its raw rows
                slug, pid = self._sidecar_page(path)
                self.conn.execute(
                    "INSERT INTO files(path, kind, data, content_hash, size, pieces, updated_at, page_id) VALUES (?, ?, ?, ?, ?, 0, ?, ?) "
                    "ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, data = excluded.data, content_hash = excluded.content_hash, "
                    "size = excluded.size, pieces = 0, updated_at = excluded.updated_at, page_id = excluded.page_id",
                    (path, kind, data, h, len(data), now_iso(), pid),
                )
                return self._raw_rows(path, slug, pid, data if isinstance(data, bytes) else None)
            before = graph_settings(self.conn, path) if is_graph_config(path) else None  # (what a config's save may change)
            self.conn.execute(
                "INSERT INTO files(path, kind, data, content_hash, size, pieces, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?) "
                "ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, data = excluded.data, content_hash = excluded.content_hash, "
                "size = excluded.size, pieces = 0, updated_at = excluded.updated_at",
                (path, kind, data, h, len(data), now_iso()),
            )
            if kind == "special":
                self._load_special(path, data)
            if is_canvas(path):  # its searchable cards, as Python reads them (docs/storage.md "Canvases")
                self._canvas_cards(path, data)
            nav_warning = self._nav_entries(path, data) if is_nav_file(path) else None
            self.graph_config_changed(path, existed=row is not None, before=before)
        if is_canvas(path):  # its links are read from these bytes when asked; bad ones are kept as they are
            warnings += [f"{path}: {w}" for w in [canvas_nodes(data)[1]] if w]
        elif is_nav_file(path):  # its entries are stored (docs/storage.md "Navigation files")
            warnings += [f"{path}: nav file not read: {w} (kept as it is)" for w in [nav_warning] if w]
        return warnings

    def save_file_from(self, path: str, source: str | os.PathLike, kind: str | None = None, known_hash: str | None = None) -> tuple[list[str] | None, str]:
        """Store the file at ``source`` on disk as stored file ``path``, streaming a big ``blob``
        (over ``blobs.BIG``) into pieces, one piece in memory at a time. ``known_hash`` (its
        sha256 from a scan) lets an unchanged file, or bytes already stored in pieces, skip the
        read. Returns ``(save_file's result, sha256 of the bytes stored)``; the hash differs from
        ``known_hash`` when the file changed since it was hashed. ``source`` is never read through
        a symlink (``blobs.open_nofollow``: sync and import read a folder's files; a file swapped
        for a link after their walk raises ``OSError``, ``blobs.is_symlink_refusal``). Raises ``OSError``."""
        kind = kind or file_kind(path)
        size = os.path.getsize(source) if kind == "blob" else 0  # only a blob may be stored in pieces
        if kind != "blob" or not blobs.is_big(size):
            with blobs.open_nofollow(source) as fh:
                data = fh.read()
            h = sha256(data)
            return self._store_file(path, data, kind, h), h
        return self._save_pieces(path, kind, lambda: blobs.open_nofollow(source), known_hash, size)

    def _save_pieces(self, path: str, kind: str, opener, known_hash: str | None, size: int) -> tuple[list[str] | None, str]:
        row = self.conn.execute("SELECT content_hash, kind FROM files WHERE path = ?", (path,)).fetchone()
        if known_hash and row and row["content_hash"] == known_hash and row["kind"] == kind:
            return None, known_hash
        with self.transaction():
            n = blobs.has_pieces(self.conn, known_hash) if known_hash else 0
            if n:
                hx = known_hash
            else:
                with opener() as fh:
                    hx, size, n = blobs.store_stream(self.conn, fh)
                if row and row["content_hash"] == hx and row["kind"] == kind:
                    return None, hx
            before = graph_settings(self.conn, path) if is_graph_config(path) else None
            self.conn.execute(
                "INSERT INTO files(path, kind, data, content_hash, size, pieces, updated_at) VALUES (?, ?, X'', ?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, data = excluded.data, content_hash = excluded.content_hash, "
                "size = excluded.size, pieces = excluded.pieces, updated_at = excluded.updated_at",
                (path, kind, hx, size, n, now_iso()),
            )
            if is_canvas(path):  # a canvas in pieces is never read whole: no cards
                self._canvas_cards(path, None)
            if is_nav_file(path):  # nor a nav file's entries
                self._nav_entries(path, None)
            self.graph_config_changed(path, existed=row is not None, before=before)
        return [], hx

    def _canvas_cards(self, path: str, data: bytes | None) -> None:
        """The ``canvas_cards`` rows of the canvas stored at ``path`` replaced by those of its
        bytes ``data`` (None: stored in pieces, none), in the writer's transaction
        (:func:`gbrain.search.keyword.write_canvas_cards`)."""
        fid = self.conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()[0]
        write_canvas_cards(self.conn, fid, bytes(data) if data is not None else None)

    def _nav_entries(self, path: str, data: bytes | None) -> str | None:
        """The ``nav_entries`` rows of the nav file stored at ``path`` replaced by those of its bytes
        ``data`` (None: stored in pieces, none), in the writer's transaction
        (:func:`gbrain.storage.db.write_nav_entries`); returns the parse's warning."""
        fid = self.conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()[0]
        return dbmod.write_nav_entries(self.conn, fid, path, bytes(data) if data is not None else None)

    def _load_raw_rows(self, path: str, fdata: bytes | None = None) -> list[str]:
        """(Re)build raw_data rows of the page a ``.raw/<name>.json`` sidecar belongs to.
        One row per source key of ``{"sources": {...}}`` (or per top-level key). Returns warnings.
        ``fdata``: the sidecar's bytes just stored (else read from the brain)."""
        slug, pid = self._sidecar_page(path)
        if fdata is None:
            fdata = blobs.file_bytes(self.conn, path)
        self.conn.execute("UPDATE files SET page_id = ? WHERE path = ?", (pid, path))
        return self._raw_rows(path, slug, pid, fdata)

    def _raw_spans_table(self) -> bool:
        """Whether the brain's schema has ``raw_spans`` (v40 / pg_v41), asked once."""
        if getattr(self, "_has_raw_spans", None) is None:
            self._has_raw_spans = dbmod.has_table(self.conn, "raw_spans")
        return self._has_raw_spans

    def _sidecar_page(self, path: str) -> tuple[str | None, int | None]:
        """``(slug, page id)`` of the page the sidecar ``path`` belongs to: the slug None when
        ``path`` is not a sidecar, the id None when no page has that slug."""
        slug = page_slug_for_sidecar(path)
        page = self.conn.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone() if slug else None
        return slug, (page[0] if page else None)

    def page_sidecars(self, pid: int) -> tuple[list[str], str]:
        """The paths of the ``.raw`` sidecars attached to page ``pid`` (sorted) and its path."""
        rows = self.conn.execute("SELECT f.path, p.path FROM files f JOIN pages p ON p.id = f.page_id WHERE f.page_id = ? AND f.kind = 'raw'",
                                 (pid,)).fetchall()
        if not rows:
            r = self.conn.execute("SELECT path FROM pages WHERE id = ?", (pid,)).fetchone()
            return [], r[0] if r else ""
        return sorted(r[0] for r in rows), rows[0][1]

    def page_sidecar(self, pid: int, known: list[str] | None = None) -> str | None:
        """The sidecar of page ``pid`` that ``raw``/``raw-put`` read and write and its raw rows come
        from: of two or more (``ana.json`` beside ``ana.JSON``, one name in NFC and NFD),
        :func:`gbrain.page.slugs.chosen_sidecar`'s (the others are kept and exported, not read);
        None when it has none. ``known``: paths the caller knows are attached (one query spared
        when it is the only one)."""
        if known and len(known) == 1 and not self.conn.execute(
                "SELECT 1 FROM files WHERE page_id = ? AND kind = 'raw' AND path <> ?", (pid, known[0])).fetchone():
            return known[0]
        paths, page_path = self.page_sidecars(pid)
        return chosen_sidecar(paths, page_path) if paths else None

    def sidecar_twins(self) -> list[tuple[str, list[str], str]]:
        """``(slug, sidecar paths, page path)`` of every page with more than one ``.raw`` sidecar
        (:meth:`page_sidecar`), by slug: one indexed query when there is none."""
        ids = [r[0] for r in self.conn.execute(
            "SELECT page_id FROM files WHERE page_id IS NOT NULL AND kind = 'raw' GROUP BY page_id HAVING COUNT(*) > 1")]
        out = []
        for pid in ids:
            paths, page_path = self.page_sidecars(pid)
            out.append((slug_for_path(page_path), paths, page_path))
        return sorted(out)

    def sidecar_twins_note(self, pid: int) -> str | None:
        """:func:`gbrain.page.slugs.sidecar_twins_note` for page ``pid``, None when it has at most one sidecar."""
        paths, page_path = self.page_sidecars(pid)
        if len(paths) < 2:
            return None
        slug = self.conn.execute("SELECT slug FROM pages WHERE id = ?", (pid,)).fetchone()[0]
        return sidecar_twins_note(slug, paths, page_path)

    def sidecars_note(self, paths: list[str]) -> str | None:
        """:meth:`sidecar_twins_note` of the page whose sidecars ``paths`` are (a group of names
        that are one name on macOS and Windows: ``slugs.portability_problems``), when two or more
        of them belong to one page; else None."""
        slugs = {page_slug_for_sidecar(p) for p in paths}
        if len(slugs) != 1 or None in slugs:
            return None
        r = self.conn.execute("SELECT id FROM pages WHERE slug = ?", (slugs.pop(),)).fetchone()
        return self.sidecar_twins_note(r[0]) if r else None

    def _raw_rows(self, path: str, slug: str | None, pid: int | None, fdata: bytes | None) -> list[str]:
        """:meth:`_load_raw_rows` once ``files.page_id`` of ``path`` is ``pid``: page ``pid``'s raw
        rows replaced by those of the sidecar's bytes ``fdata``. Returns warnings."""
        if pid is None or fdata is None:
            return [f"{path}: sidecar without a page {slug}.md"] if pid is None else []
        chosen = self.page_sidecar(pid, [path])
        if chosen is not None and chosen != path:
            # another sidecar of the page is the one read (slugs.chosen_sidecar): the rows are its,
            # whichever was stored last (so a sync round's order gives a fresh import's rows)
            path, fdata = chosen, blobs.file_bytes(self.conn, chosen)
            if fdata is None:
                return []
        spans = self._raw_spans_table()
        self.conn.execute(f"DELETE FROM {'raw_spans' if spans else 'raw_data'} WHERE page_id = ?", (pid,))
        rows = rawspans.sidecar_rows(fdata)
        if rows is None:
            try:
                rawspans.loads(fdata)
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                return [f"{path}: not valid JSON ({e}); kept as bytes"]
        if not spans:  # (a brain held at a schema before v40: tests of older migrations)
            self.conn.executemany("INSERT INTO raw_data(page_id, source, data) VALUES (?, ?, ?)",
                                  [(pid, k, rawspans.row_text(fdata, a, n, t)) for k, a, n, t in rows or ()])
            return []
        f = self.conn.execute("SELECT id, pieces FROM files WHERE path = ?", (path,)).fetchone()
        fid = f[0] if f is not None and not f[1] else None  # (spans of bytes in files.data only)
        rawspans.insert_rows(self.conn, pid, fid, fdata, rows)
        return []

    def _load_special(self, path: str, data: bytes) -> None:
        text = data.decode("utf-8", errors="replace")
        key = SPECIAL_FILES.get(path)
        if key:
            self.conn.execute("INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, text))
            self._config_cache = None
        if path == "log.md":
            self.conn.execute("DELETE FROM ingest_log WHERE source_ref = 'log.md'")
            rows = [
                (e.source or "log", "log.md", "[]", e.summary, e.date + "T00:00:00Z")
                for e in parse_timeline_entries(text)
            ]
            self.conn.executemany("INSERT INTO ingest_log(source_type, source_ref, pages_updated, summary, timestamp) VALUES (?, ?, ?, ?, ?)", rows)

    def delete_file(self, path: str) -> None:
        with self.transaction():
            row = self.conn.execute("SELECT kind, page_id FROM files WHERE path = ?", (path,)).fetchone()
            before = graph_settings(self.conn, path) if row and is_graph_config(path) else None  # (its folders: whose pages to read again)
            self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
            if row and row["kind"] == "raw" and row["page_id"]:
                self._raw_rows_again(row["page_id"])  # the page's other sidecar (ana.JSON beside ana.json) gives its rows now
            if row:
                self.graph_config_changed(path, existed=True, before=before)

    def raw_get(self, slug: str, source: str | None = None, on_warning: Callable[[str], None] | None = None) -> dict:
        """The page's raw data, source → JSON. A sidecar whose text is not JSON has none: that
        is said (``on_warning``; a miss of ``source`` says it in its error), never read as empty."""
        row = self.resolve_slug(slug)
        rows = self.conn.execute("SELECT source, data, fetched_at FROM raw_data WHERE page_id = ? ORDER BY source", (row["id"],)).fetchall()
        twins = self.sidecar_twins_note(row["id"]) if on_warning is not None else None
        if twins:  # ana.json beside ana.JSON: which one this is (slugs.chosen_sidecar)
            on_warning(twins)
        have = [r["source"] for r in rows]
        if source is not None:
            rows = [r for r in rows if r["source"] == source]
        if not rows:
            bad = self._unreadable_sidecar(row)
            if source is not None:  # the sources it has, the near one suggested (trial 26: `Crustdata`)
                near = [h for h in have if h.casefold() == source.casefold()] or difflib.get_close_matches(source, have, n=3)
                raise NotFound(f"{row['slug']} has no raw data from '{source}'" + (f" ({bad})" if bad else "")
                               + (f"; it has raw data from {', '.join(have)}" if have else ""), near)
            if bad and on_warning is not None:
                on_warning(bad)
        return {r["source"]: json.loads(r["data"]) for r in rows}

    def _unreadable_sidecar(self, row) -> str | None:
        """Why the ``.raw`` sidecar of page ``row`` gives no raw data (not UTF-8 JSON, not an
        object), or None (no sidecar, or a readable one)."""
        path = self.page_sidecar(row["id"]) or page_sidecar_path(row["path"])
        data = blobs.file_bytes(self.conn, path)
        if data is None:
            return None
        try:
            obj = rawspans.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            return f"{path} is not valid JSON ({e}); kept as bytes (export writes them): fix the file and import it again"
        return None if isinstance(obj, dict) else f"{path} is not a JSON object; kept as bytes (export writes them)"

    @atomic
    def raw_put(self, slug: str, source: str, data: Any, on_warning: Callable[[str], None] | None = None) -> dict:
        """Store a source's JSON for a page by rewriting its ``.raw/<name>.json`` sidecar.

        Keeps the file's shape (``{"sources": {...}}`` by default) and every other source, byte
        for byte: only this source's value is written into the file's text
        (:func:`gbrain.page.jsonsplice.set_member`; a full re-dump only if that splice would not
        read back as the same JSON). A page an older gbrain stored under a hidden name raises
        ``BadInput`` (``slugs.hidden_page_write``), as every edit of one does."""
        if not isinstance(source, str) or not source.strip():
            raise BadInput("source must be a non-empty name such as 'crustdata'")
        if "/" in source:
            raise BadInput(f"source {source!r} holds '/': a source is one name such as 'crustdata' or 'linkedin-2025' (any characters but '/')")
        row = self.resolve_slug(slug)
        if is_hidden_path(row["path"]):  # an older gbrain's page at a hidden name: no page to enrich, as put refuses it
            raise BadInput(hidden_page_write(row["slug"]))
        # the sidecar already attached to this page (it may carry an older name; of several, the
        # one slugs.chosen_sidecar takes), else the usual one
        path = self.page_sidecar(row["id"]) or page_sidecar_path(row["path"])
        twins = self.sidecar_twins_note(row["id"]) if on_warning is not None else None
        if twins:
            on_warning(twins)
        fdata = blobs.file_bytes(self.conn, path)
        if fdata is None and len(path.rsplit("/", 1)[-1].encode("utf-8", "surrogatepass")) > NAME_MAX:
            # (an imported page named by up to 252 bytes, NAME.md 255: NAME.json would be no file; review of trial 66)
            raise BadInput(f"{shown(row['slug'])}: its raw data file {shown(path.rsplit('/', 1)[-1])} would be a name longer than "
                           f"{NAME_MAX} bytes, which no file system holds; move the page to a shorter name first")
        obj: dict = {"sources": {}}
        bom = ""  # (a byte order mark the file starts with: kept, as a page keeps its bom)
        if fdata is not None:
            try:
                bom, old_text = rawspans.json_text(fdata)
                obj = json.loads(old_text)
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise Conflict(f"{path} is not valid JSON; refusing to overwrite it ({e})") from e
            if not isinstance(obj, dict):
                raise Conflict(f"{path} is not a JSON object; refusing to overwrite it")
        target = obj["sources"] if isinstance(obj.get("sources"), dict) else obj
        if target.get(source) == data:
            return {"slug": row["slug"], "source": source, "path": path, "changed": False}
        target[source] = data
        text = None
        if fdata is not None:
            # the other sources keep their bytes (number spellings, escapes, repeated keys,
            # layout): only this source's value is written into the file's text
            try:
                spliced = set_member(old_text, ["sources"] if target is not obj else [], source, data)
                if json.loads(spliced) == obj:
                    text = spliced
            except (ValueError, RecursionError):
                pass
        if text is None:  # a new sidecar, or a splice that would not read back the same
            text = json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
        self.save_file(path, (bom + text).encode("utf-8"), "raw")
        return {"slug": row["slug"], "source": source, "path": path, "changed": True}

    # ---- ingest log -------------------------------------------------------------

    def log_ingest(self, source_type: str, source_ref: str, pages: list[str], summary: str = "") -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO ingest_log(source_type, source_ref, pages_updated, summary, timestamp) VALUES (?, ?, ?, ?, ?)",
                (source_type, source_ref, json.dumps(pages, ensure_ascii=False), summary, now_iso()),
            )


def open_lock_names(path: Path) -> list[str]:
    """Where :func:`_open_lock` may put its file, first choice first: beside the database (every
    process that can open the brain sees that folder, whatever its ``TMPDIR``: an MCP server an
    agent started and the CLI run from a shell or a sandbox often have different ones), else,
    when that folder cannot hold it (a read-only mount), ``db.LOCK_TEMP`` (/tmp, not ``$TMPDIR``),
    else the process's temp folder, both named after the database's real path. The last is also
    where gbrain before 2026-12 took it alone: :func:`_open_lock` takes it too, for a release."""
    import hashlib
    import tempfile

    real = os.path.realpath(str(path))
    key = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    base = f"gbrain-open-{key}.lock"
    return [real + dbmod.OPEN_LOCK_SUFFIX, os.path.join(dbmod.LOCK_TEMP, base), os.path.join(tempfile.gettempdir(), base)]


def _take_lock(name: str, held: list[tuple[int, str]], like: str | None = None) -> tuple[int, bool] | None:
    """Open ``name`` (never through a symlink) and flock it: exclusively when nobody else holds
    it, else shared (waiting for an exclusive holder). ``(fd, exclusive)``, or None when the file
    cannot be opened, is no empty regular file, or is one of ``held`` (the same file by another
    name: a second flock of it by this process would wait on its own). ``like``: the database
    beside which the file lies: a file this process owns gets its owner and mode (as SQLite
    gives its ``-wal`` and ``-shm``), so root's lock file does not shut the brain's owner out."""
    import fcntl
    import stat

    for _ in range(100):
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return None  # this folder cannot hold it (read-only, a folder or a symlink there)
        try:
            st = os.fstat(fd)
            # the lock is an empty file: one with content there is not gbrain's (another brain
            # named so: never flocked as the lock, never removed by the last close)
            if not stat.S_ISREG(st.st_mode) or st.st_size or any(_same_file(h, name) for h, _ in held):
                os.close(fd)
                return None
            if like is not None and st.st_uid == os.geteuid():
                _like_database(fd, st, like)
            try:
                exclusive = _try_alone(fd)
                if not exclusive:
                    fcntl.flock(fd, fcntl.LOCK_SH)  # waits while an unclean open looks at the log
                    # the process waited for may have been killed in its look: alone now, the log
                    # left is a dead process's and this opener looks at it
                    exclusive = _try_alone(fd)
                    if not exclusive:
                        fcntl.flock(fd, fcntl.LOCK_SH)  # (a failed conversion may drop the lock)
            except OSError:
                # this file system does not lock (NFS without its lock daemon: ENOLCK): the next
                # place. The file stays: a process whose locks work there may hold it
                os.close(fd)
                return None
        except BaseException:
            os.close(fd)
            raise
        # a closing process may have removed the file between our open and our lock: then the
        # lock is on a file nobody else will find, so take the one at the path now
        if _same_file(fd, name):
            return fd, exclusive
        os.close(fd)
    return None  # pragma: no cover - 100 closes racing one open


def _like_database(fd: int, st: os.stat_result, db: str) -> None:
    """Give the lock file ``fd`` (``st``, owned by this process) the database ``db``'s owner
    (when this process is root) and group, readable and writable by those who may write the
    database (one who may only read it could hold the lock exclusively: every open would wait),
    best effort."""
    try:
        dst = os.stat(db)
    except OSError:
        return  # a new brain: its creator's lock, its creator's database
    mode = 0o600 | (0o060 if dst.st_mode & 0o020 else 0) | (0o006 if dst.st_mode & 0o002 else 0)
    try:
        if (st.st_uid, st.st_gid) != (dst.st_uid, dst.st_gid):
            os.fchown(fd, dst.st_uid if os.geteuid() == 0 else -1, dst.st_gid)
    except OSError:
        pass  # not root, not of the database's group
    try:
        if st.st_mode & 0o777 != mode:
            os.fchmod(fd, mode)
    except OSError:
        pass


def _try_alone(fd: int) -> bool:
    """Take ``fd``'s flock exclusively if no other process holds it."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _open_lock(path: Path) -> tuple[bool, list[tuple[int, str]]]:
    """Take a shared lock that says "a gbrain process has this brain open" (a file beside the
    database, else in a temp folder: :func:`open_lock_names`, released by the kernel when the
    process dies; :func:`_close_lock` removes the file when the last process closes the brain),
    and, for a release, the lock gbrain before 2026-12 took in the process's temp folder (so an
    older process and a newer one see each other).
    Returns ``(unclean, [(fd, lock path), ...])``: unclean is True when no other gbrain process
    holds any and a non-empty ``-wal`` file is left, i.e. the last process died without closing
    the database; the locks are then still held exclusively, so no other gbrain process opens the
    brain (and writes its log) while the opener looks at the log left (``db.set_aside_misfit_wal``):
    :func:`_share_lock` when done. ``(False, [])`` when no folder can hold the file."""
    try:
        real = os.path.realpath(str(path))
        *first, legacy = open_lock_names(path)
    except OSError:
        return False, []
    held: list[tuple[int, str]] = []
    alone = True
    try:
        for name in first:
            got = _take_lock(name, held, like=real if name == first[0] else None)
            if got is not None:
                held.append((got[0], name))
                alone = got[1]
                break
        got = _take_lock(legacy, held)  # (None when it is the file just taken)
        if got is not None:
            held.append((got[0], legacy))
            alone = alone and got[1]
    except BaseException:
        _close_lock(held)
        raise
    if not held:
        return False, []
    unclean = False
    if alone:
        try:
            unclean = os.path.getsize(real + "-wal") > 0
        except OSError:
            pass
    if not unclean:
        _share_lock(held)
    return unclean, held


def _share_lock(locks: list[tuple[int, str]]) -> None:
    """Turn :func:`_open_lock`'s exclusive locks (an unclean open's look at the log is done)
    into the shared ones every open process holds. flock's conversion is not atomic: an opener
    that takes the lock in between finds the log as this look left it and looks again.
    Last taken first: an opener holding the first exclusively while it waits for the second
    never waits on a process that holds the second exclusively and waits for the first."""
    import fcntl

    for fd, _ in reversed(locks):
        fcntl.flock(fd, fcntl.LOCK_SH)


def _same_file(fd: int, name: str) -> bool:
    """True when the open file ``fd`` is the file now at path ``name``."""
    try:
        a, b = os.fstat(fd), os.stat(name, follow_symlinks=False)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _close_lock(locks: list[tuple[int, str]]) -> None:
    """Release :func:`_open_lock`'s locks; the last holder removes each file (it holds the lock
    exclusively while it does, and an opener checks that its lock is on the file at the path)."""
    import fcntl

    for fd, name in locks:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _same_file(fd, name) and not os.fstat(fd).st_size:
                os.unlink(name)
        except OSError:
            pass  # another process has the brain open: the file stays
        finally:
            os.close(fd)


def _like_escape(text: str) -> str:
    """``text`` as a literal inside a SQL LIKE pattern with ``ESCAPE '!'``."""
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_")


def urlquote(name: str, safe: str = "/") -> str:
    """``name`` as a markdown link writes it percent-encoded (``a b.png`` → ``a%20b.png``),
    keeping ``safe``'s characters."""
    from urllib.parse import quote

    return quote(name, safe=safe)


def _group_links(rows, key, drop: tuple[str, ...] = ("to_page_id",)) -> list[dict]:
    """Merge link rows with the same ``key(row)``: counts add up, forms and labels (``label``,
    one per line) join (first seen first); the other fields are the first row's. Keeps the rows' order."""
    out: dict[Any, dict] = {}
    for r in rows:
        k = key(r)
        forms = json.loads(r["forms"] or "[]")
        labels = r["label"].split("\n") if r["label"] else []
        if k in out:
            g = out[k]
            g["count"] += r["count"]
            g["forms"] += [f for f in forms if f not in g["forms"]]
            g["labels"] += [x for x in labels if x not in g["labels"]]
        else:
            out[k] = {**{c: r[c] for c in r.keys() if c not in drop and c not in ("forms", "label")}, "forms": forms, "labels": labels}
    return list(out.values())


#: ``json.dumps(v, ensure_ascii=False)`` (a raw row's ``data``, a page's ``frontmatter``) without
#: building an encoder per call
_json_text = json.JSONEncoder(ensure_ascii=False).encode


raw_sources = rawspans.raw_sources  # (source → data of a sidecar object; kept importable here)


_NOT_ALNUM_TAG = re.compile(r"[^\w/]+|_+")


def _check_tag(tag: str) -> str:
    t = (tag or "").strip().lstrip("#").strip()
    if not t or "," in t or "\n" in t:
        raise BadInput(f"invalid tag {tag!r} (empty, or contains a comma or newline)")
    return t


def _dead_target_is(from_slug: str, kind: str, target: str, name: str) -> bool:
    """Whether the dead link ``target`` (of ``kind``, on page ``from_slug``) is what ``name``
    means: the target as written, the slug a markdown path points at (relative to the linking
    page, or from the root), or a wiki name's slug form."""
    t, want = nfc(target.strip()), nfc(name.strip())
    if t == want:
        return True
    if kind == "markdown":
        strip = lambda p: p[:-3] if p.casefold().endswith(".md") else p  # noqa: E731
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(from_slug), t))
        return strip(want) in (strip(rel), strip(posixpath.normpath(t.lstrip("/"))))
    return loose_key(t) == loose_key(want)
