"""Two embedders on one brain send each chunk once (team trial s60: two teammates' `embed --stale`
at the same moment each sent the shared chunks to the server, paid twice).

Each run claims the chunks it is about to send (``embed_claims``, SQLite v85 / Postgres v93) and
gives the claim back in the transaction that stores their vectors; a chunk another live run holds
waits until that run stored it (then its vector is reused) or died (then it is taken over). Real
runs against a real OpenAI-compatible server on 127.0.0.1 (``embed_server.EmbedServer``): one a
`gbrain embed` process, the other the CLI in this process; both engines (``$GBRAIN_DB``)."""
from __future__ import annotations

import collections
import hashlib
import os
import signal
import subprocess
import sys
import threading

import pytest

from conftest import gbrain_in_process
from embed_server import EmbedServer, embeddings

PAGES = 40


class CountingServer(EmbedServer):
    """/v1/embeddings answering 8-dimensional vectors made from each input's SHA-256; ``inputs``
    counts every input received. The first request is held until ``go`` is set (the test's other
    run has sent one, or the test lets go), so two runs overlap for certain."""

    def __init__(self):
        self.inputs: collections.Counter = collections.Counter()
        self.requests = 0
        self.first = threading.Event()  # the first request came
        self.go = threading.Event()  # the first request may be answered
        self.answer_first = True
        self.lock = threading.Lock()
        super().__init__()

    def on_post(self, h, body, inputs):
        with self.lock:
            self.requests += 1
            n = self.requests
            self.inputs.update(inputs)
        if n == 1:
            self.first.set()
            self.go.wait(60)
            if not self.answer_first:
                return  # (its process was killed meanwhile)
        else:
            self.go.set()
        vecs = [[(b - 128) / 128 for b in hashlib.sha256(t.encode()).digest()[:8]] for t in inputs]
        h.send(200, embeddings(body, vecs))


@pytest.fixture
def server():
    s = CountingServer()
    yield s
    s.go.set()
    s.close()


def _brain(db_path, url):
    """The brain at ``db_path`` with :data:`PAGES` pages of one chunk each, embedded by ``url``."""
    from gbrain.core.brain import Brain

    assert gbrain_in_process("--db", str(db_path), "init").returncode == 0
    # (the first request is held until the other run sent one: at a busy CI's load, past the 15 s
    # first-answer timeout, its retry would count its input twice)
    for k, v in (("embedding_base_url", url), ("embedding_model", "team-embed"), ("embedding_first_timeout", "120")):
        r = gbrain_in_process("--db", str(db_path), "config", "set", k, v)
        assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        for i in range(PAGES):
            b.put(f"notes/n{i:03d}", f"# Note {i}\n\nthe {i}th note on zebras and yaks\n")


def _embed_process(db_path):
    return subprocess.Popen([sys.executable, "-m", "gbrain", "--db", str(db_path), "embed", "--stale", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _stale(db_path) -> int:
    from gbrain.core.brain import Brain
    from gbrain.search.vectors import stale_count

    with Brain.open(db_path) as b:
        return stale_count(b.conn, "team-embed")


def test_two_embedders_at_once_send_each_chunk_once(server, db_path, monkeypatch):
    """One `embed --stale` process sends its first group and is held there; a second run (this
    process) starts meanwhile: it leaves the chunks the first holds to it, sends the others, and
    waits for the first's before it ends, saying so (after ``CLAIM_NOTE_S``, 0 here). Every chunk
    reached the server once; nothing is left."""
    from gbrain.search import vectors

    monkeypatch.setattr(vectors, "CLAIM_NOTE_S", 0.0)
    _brain(db_path, server.url)
    first = _embed_process(db_path)
    try:
        assert server.first.wait(60), first.communicate(timeout=60)
        r = gbrain_in_process("--db", str(db_path), "embed", "--stale", "--json")
        server.go.set()
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0 and r.returncode == 0, (err, r.stderr)
    assert "page(s) wait for chunks another embed run is sending now" in r.stderr.decode(), r.stderr
    twice = {t: n for t, n in server.inputs.items() if n > 1}
    assert not twice, f"{len(twice)} chunks sent more than once: {sorted(twice.values())}"
    assert len(server.inputs) == PAGES, len(server.inputs)
    assert _stale(db_path) == 0


def test_a_killed_embedders_claimed_chunks_are_embedded_by_the_next_run(server, db_path):
    """An embedder killed (-9) while its request is at the server leaves its claims behind: the
    next run takes them over at once (the claimer's process, or on Postgres its server backend, is
    gone; no waiting out the claim's time) and every page is embedded."""
    from gbrain.core.brain import Brain

    _brain(db_path, server.url)
    server.answer_first = False
    first = _embed_process(db_path)
    try:
        assert server.first.wait(60), first.communicate(timeout=60)
        with Brain.open(db_path) as b:
            held = b.conn.execute("SELECT COUNT(*) FROM embed_claims").fetchone()[0]
        assert held > 0  # (the first group's chunks, claimed before they were sent)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(60)
    finally:
        if first.poll() is None:
            first.kill()
        server.go.set()
    r = gbrain_in_process("--db", str(db_path), "embed", "--stale", "--json")
    assert r.returncode == 0, r.stderr
    assert _stale(db_path) == 0
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM embed_claims").fetchone()[0] == 0
    assert len(server.inputs) == PAGES


def test_whose_claims_hold(db_path):
    """A claim holds while it has not lapsed and its owner may live: another host's process is
    trusted until the claim lapses, a process of this host that is gone is not; on Postgres the
    owner's server backend decides. The claims of dead owners are dropped by the look."""
    import socket
    import time

    from gbrain.core.brain import Brain
    from gbrain.search import vectors
    from gbrain.search.vectors import _Claims

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname()
    with Brain.open(db_path, create=True) as b:
        c = b.conn
        pg = getattr(c, "dialect", "sqlite") == "postgres"
        live_backend = c.execute("SELECT pg_backend_pid()").fetchone()[0] if pg else 0
        later, past = time.time() + 600, time.time() - 1
        other = _Claims(c, "m")  # another run of this process (watch's embedder beside an MCP call)
        rows = [("elsewhere:17:aa", 0, later, "h1"),  # another host, not lapsed: holds
                ("elsewhere:18:bb", 0, past, "h2"),  # lapsed
                (f"{host}:{gone.pid}:cc", 0, later, "h3"),  # this host, its process gone
                (other.owner, 0, later, "h4 h5")]  # this host, alive (another run of this process)
        if pg:
            rows += [("elsewhere:19:ee", live_backend, later, "h6"),  # a backend that lives
                     ("elsewhere:20:ff", 2**31 - 7, later, "h7"),  # one that does not
                     # this host name and pid, no run of this process: another machine's (two
                     # containers named alike, each gbrain pid 1), its live backend decides
                     (f"{host}:{os.getpid()}:hh", live_backend, later, "h10")]
        with b.transaction():
            c.executemany("INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES (?, 'm', ?, ?, ?)", rows)
            c.execute("INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES ('elsewhere:21:gg', 'other', 0, ?, 'h8')", (later,))
        mine = _Claims(c, "m")
        with b.transaction():
            busy = mine.busy(["h1", "h2", "h3", "h4", "h6", "h7", "h8", "h9", "h10"])
            mine.hold(["h2", "h3", "h9"])
        assert busy == ({"h1", "h4", "h6", "h10"} if pg else {"h1", "h4"}), busy
        left = {r[0] for r in c.execute("SELECT owner FROM embed_claims")}
        assert left == {"elsewhere:17:aa", other.owner, "elsewhere:21:gg", mine.owner} | ({"elsewhere:19:ee", f"{host}:{os.getpid()}:hh"} if pg else set()), left
        mine.give_back_all(b.transaction)
        other.give_back_all(b.transaction)  # (its run over: no longer among this process's runs)
        assert mine.owner not in {r[0] for r in c.execute("SELECT owner FROM embed_claims")}
        assert mine.owner not in vectors._RUNS and other.owner not in vectors._RUNS


@pytest.mark.pg_empty
def test_a_brain_before_v85_gets_the_claims_table(db_path):
    """A brain at SQLite v84 / Postgres v92 opened by this gbrain gets ``embed_claims`` (empty)."""
    from conftest import assert_upgraded, brain_at_version

    from gbrain.core.brain import Brain

    with brain_at_version(db_path, sqlite=84, postgres=92) as b:
        b.put("notes/a", "# A\n\nalpha\n")
        with pytest.raises(Exception):
            b.conn.execute("SELECT 1 FROM embed_claims")
    with Brain.open(db_path) as b:
        assert_upgraded(b.conn, 84, 92)
        assert b.conn.execute("SELECT COUNT(*) FROM embed_claims").fetchone()[0] == 0


def test_the_time_sample_sends_no_text_another_run_holds(server, db_path):
    """The time sample before a long local run (`sample_rate`) claims its texts as a group does:
    a text another live run holds is left out, and the sample's claim is given back."""
    import time

    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    server.go.set()
    _brain(db_path, server.url)
    with Brain.open(db_path) as b:
        model, _ = vectors.active_model(b.conn, b.config())
        _, work = vectors.plan_embed(b.conn, model, vectors.select_pages(b.conn, model.model_id, "stale"))
        texts = {c.hash: c.text for w in work for c in w.chunks}
        theirs = sorted(texts)[::2]
        with b.transaction():
            b.conn.execute("INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES ('elsewhere:1:aa', ?, 0, ?, ?)",
                           (model.model_id, time.time() + 600, " ".join(theirs)))
        rate, n = vectors.sample_rate(b.conn, model, work, n=8, transaction=b.transaction)
        assert rate > 0 and n > 0
        assert server.inputs and not set(server.inputs) & {texts[h] for h in theirs}, server.inputs
        assert [r[0] for r in b.conn.execute("SELECT owner FROM embed_claims")] == ["elsewhere:1:aa"]


def _fake_work(b, n=6):
    """``(model, work)``: ``fake-8`` and the plan of ``n`` new pages of ``b``, all stale."""
    from gbrain.search import vectors
    from gbrain.search.embeddings import get_model

    for i in range(n):
        b.put(f"notes/f{i}", f"# F {i}\n\nthe {i}th fact about otters\n")
    model = get_model("fake-8", b.config())
    _, work = vectors.plan_embed(b.conn, model, vectors.select_pages(b.conn, model.model_id, "stale"))
    return model, work


def test_a_store_that_failed_leaves_no_claim(db_path):
    """The transaction storing a group's vectors (which gives its claim back) fails at its end (a
    commit refused: a full disk, a cut): the run's end gives the claim back still, so a long-lived
    process (watch's embedder, `serve`) leaves nothing another run waits on for ``CLAIM_S``."""
    import contextlib

    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    class Refused(Exception):
        pass

    with Brain.open(db_path, create=True) as b:
        model, work = _fake_work(b)
        n = [0]

        @contextlib.contextmanager
        def tx():
            n[0] += 1
            with b.transaction():
                yield
                if n[0] == 2:  # (1: the group's claim; 2: its store)
                    raise Refused("commit refused")

        with pytest.raises(Refused):
            vectors.embed_pages(b.conn, model, work, transaction=tx)
        assert n[0] >= 3, n  # (the run's end: the claim given back in a transaction of its own)
        assert b.conn.execute("SELECT owner FROM embed_claims").fetchall() == []


def test_a_claim_of_this_process_no_run_of_it_holds_is_dead(db_path, monkeypatch):
    """A claim with this host and this process's pid but no run of this process holds it (a run of
    this process that could not give it back; a process before it with the same pid: a container
    restarted, pid 1 again) is dead: the run takes its texts over at once, no waiting ``CLAIM_S``;
    a live run of this process (watch's embedder beside an MCP call) still holds its own."""
    import socket
    import time

    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    def no_wait(s):
        raise AssertionError("the run waited for a claim nobody holds")

    monkeypatch.setattr(vectors, "_sleep", no_wait)
    with Brain.open(db_path, create=True) as b:
        model, work = _fake_work(b)
        hashes = " ".join(sorted({c.hash for w in work for c in w.chunks}))
        with b.transaction():
            b.conn.execute("INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES (?, ?, 0, ?, ?)",
                           (f"{socket.gethostname()}:{os.getpid()}:0ld", model.model_id, time.time() + 600, hashes))
        live = vectors._Claims(b.conn, model.model_id)  # another run of this process, alive
        try:
            with b.transaction():
                assert live.busy(hashes.split()) == set()
                live.hold(hashes.split()[:1])
            assert vectors._Claims(b.conn, model.model_id).busy(hashes.split()) == {hashes.split()[0]}
        finally:
            live.give_back_all(b.transaction)
        stats = vectors.embed_pages(b.conn, model, work, transaction=b.transaction)
        assert stats["pages"] == len(work)
        assert b.conn.execute("SELECT owner FROM embed_claims").fetchall() == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process start times from /proc")
def test_a_claim_whose_pid_another_process_took_since_is_dead(db_path):
    """A claim of this host whose pid is now another process's, one started after the claim was
    last made (the claimer died and the pid was given again: a busy host, a restarted container),
    is dead at once, not held ``CLAIM_S``; one made after its process started holds."""
    import socket
    import time

    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    took = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # the pid's new process
    try:
        time.sleep(0.05)
        host, now = socket.gethostname(), time.time()
        with Brain.open(db_path, create=True) as b:
            with b.transaction():
                b.conn.executemany("INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES (?, 'm', 0, ?, ?)",
                                   [(f"{host}:{took.pid}:old", now - 30 + vectors.CLAIM_S, "h1"),  # made 30 s before the process
                                    (f"{host}:{took.pid}:new", now + 5 + vectors.CLAIM_S, "h2")])  # made after it started
            mine = vectors._Claims(b.conn, "m")
            try:
                with b.transaction():
                    assert mine.busy(["h1", "h2"]) == {"h2"}
            finally:
                mine.give_back_all(b.transaction)
            assert [r[0] for r in b.conn.execute("SELECT owner FROM embed_claims")] == [f"{host}:{took.pid}:new"]
    finally:
        took.kill()
        took.wait()
