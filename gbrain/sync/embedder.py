"""``gbrain watch --embed``: keep the embeddings of a watched brain current.

A thread beside the watch loop, on a brain connection of its own. The loop pokes it after every
batch that changed pages (a save in the folder, a write by another process or machine that the
watch wrote to its file, the catch-up sync at start); once no poke came for
:data:`EMBED_IDLE_S`, it embeds the pages that are stale for the brain's active model
(:func:`gbrain.search.vectors.select_pages` ``"stale"``: never embedded with it, or changed
since), :data:`EMBED_PAGES` at a time, each group in its own write transaction
(:func:`~gbrain.search.vectors.embed_pages`), so the watch's own writes wait at most one group.
The watch loop never waits for it: a save is searchable by keyword at once, and by meaning once
its page is embedded.

An OpenAI-compatible server's window is asked once, as ``embed`` asks it
(:meth:`gbrain.core.brain.Brain.learn_server_window`, cached in the brain's config), so the
chunks are the ones ``embed`` makes.

A provider error (an OpenAI-compatible endpoint that is down, a key that expired) is logged once
per kind and retried after :data:`EMBED_RETRY_S`; finished pages stay embedded. Stopping the
watch stops the thread after the provider batch in flight.
"""
from __future__ import annotations

import threading
from typing import Callable

from ..errors import GBrainError

#: seconds without a poke before the pages that changed are embedded
EMBED_IDLE_S = 1.0
#: pages embedded per write transaction
EMBED_PAGES = 16
#: seconds before a round that failed (provider or database error) is tried again
EMBED_RETRY_S = 60.0
#: seconds :meth:`EmbedKeeper.stop` waits without a word before it says what it waits for (trial 39:
#: Ctrl-C on a watch whose server hung left the terminal silent for 30 s)
STOP_QUIET_S = 1.0


class _Halted(Exception):
    """Raised inside an embed run when the watch stops."""


class EmbedKeeper:
    """Embeds the stale pages of the brain at ``db`` (a path or Postgres URL, as
    :meth:`gbrain.core.brain.Brain.open` takes it) whenever :meth:`poke` was called and
    :data:`EMBED_IDLE_S` passed without another poke. ``log`` gets one line per round that embedded new chunks, naming up to 3 pages it embedded
    (``embedded 3 page(s) …``; the pages the server refused counted apart: ``; 2 refused``) and per error. :meth:`start` / :meth:`stop`; ``rounds``,
    ``pages`` and ``errors`` count what it did (for tests and the summary)."""

    def __init__(self, db, log: Callable[[str], None], *, idle_s: float = EMBED_IDLE_S, pages: int = EMBED_PAGES, retry_s: float = EMBED_RETRY_S):
        self.db = db
        self.log = log
        self.idle_s = idle_s
        self.group = max(1, int(pages))
        self.retry_s = retry_s
        self._due = threading.Event()
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None
        self._said: set[str] = set()
        self._asked: set[tuple] = set()  # (model, base URL) whose server was asked for its window
        self.rounds = 0
        self.pages = 0
        self.errors = 0

    def start(self) -> None:
        """Start the thread; the first round runs once :meth:`poke` is called."""
        self._thread = threading.Thread(target=self._run, name="gbrain-embed", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Pages may have changed: embed them once things settle."""
        self._due.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the provider batch in flight (finished groups stay) and wait for the thread."""
        self._halt.set()
        self._due.set()
        if self._thread is None:
            return
        quiet = min(STOP_QUIET_S, timeout)
        self._thread.join(quiet)
        if self._thread.is_alive() and timeout > quiet:
            self.log(f"stopping: waiting up to {timeout - quiet:.0f} s for the embedding request in flight (finished pages are kept)")
            self._thread.join(timeout - quiet)

    def _check_halt(self) -> None:
        if self._halt.is_set():
            raise _Halted

    def _run(self) -> None:
        from ..core.brain import Brain

        brain = None
        try:
            while not self._halt.is_set():
                self._due.wait()
                # settle: go on only once no poke came for idle_s
                while self._due.is_set() and not self._halt.is_set():
                    self._due.clear()
                    if self._halt.wait(self.idle_s):
                        return
                if self._halt.is_set():
                    return
                try:
                    if brain is None:
                        brain = Brain.open(self.db)
                    self._round(brain)
                except _Halted:
                    return
                except (GBrainError, OSError, ValueError) as e:  # a provider or database error: later
                    self.errors += 1
                    self._asked.clear()  # the server may have been down: ask for its window again
                    msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                    if msg not in self._said:
                        self._said.add(msg)
                        self.log(f"warning: embedding failed ({msg}); trying again in {self.retry_s:g} s (finished pages are kept)")
                    if brain is not None:
                        try:
                            brain.close()
                        finally:
                            brain = None
                    if self._halt.wait(self.retry_s):
                        return
                    self._due.set()
        finally:
            if brain is not None:
                brain.close()

    def _round(self, brain) -> None:
        """Embed every page stale for the active model, :attr:`group` pages per transaction."""
        from ..search.vectors import active_model, embed_pages, plan_embed, select_pages

        model, note = active_model(brain.conn, brain.config())
        # the server's window, asked once (as `embed` asks; cached in the brain's config): a server
        # that did not answer is asked again only after a failed round, not at every save
        asked = (model.model_id, getattr(model, "base_url", None))
        said = None
        if asked not in self._asked:
            self._asked.add(asked)
            said = brain.learn_server_window(model)
        if said:
            self.log(said)
            model, note = active_model(brain.conn, brain.config())  # cut at the budget the server's window gives
        if note and note not in self._said:
            self._said.add(note)
            self.log(f"note: {note}")
        from ..search.embeddings import chunking_of, length_refusal, too_long_advice

        rows = select_pages(brain.conn, model.model_id, "stale", chunking=chunking_of(model))
        if not rows:
            return
        pages = new = 0
        too_long = []
        stored: set = set()
        refused: set = set()
        for i in range(0, len(rows), self.group):
            self._check_halt()
            _plan, work = plan_embed(brain.conn, model, rows[i : i + self.group])
            stats = embed_pages(brain.conn, model, work, transaction=brain.transaction, check_stop=self._check_halt)
            pages += stats["pages"]
            new += stats["embedded"]
            too_long += [k for k in stats["skipped"] if length_refusal(k["error"])]
            stored.update(stats["stored"])
            refused.update(k["page_id"] for k in stats["skipped"])
        if too_long and f"too long {chunking_of(model)}" not in self._said:
            # a server whose model reads fewer tokens: said once per chunk budget, as `embed` says it
            self._said.add(f"too long {chunking_of(model)}")
            self.log("warning: " + too_long_advice(model, too_long, "the watch embeds them"))
        self.rounds += 1
        self.pages += pages
        if new:  # (pages whose chunks were all known already, a move or a title, are not news)
            # named (up to 3) are the pages embedded, not every page selected: a refused one is counted apart
            names = [r["title"] or str(r["id"]) for r in rows if r["id"] in stored] if len(stored) <= 3 else []
            self.log(f"embedded {pages:,} page(s) with {model.model_id} ({new:,} new chunk(s))" + (f": {', '.join(names)}" if names else "")
                     + (f"; {len(refused):,} refused" if refused else ""))
