"""``gbrain watch --embed``: pages that change (in the folder or by another writer) get embedded
in the background; a provider that fails is retried, never the end of the watch. Both engines
(``--engine postgres``); waits on conditions, never on the clock."""
from __future__ import annotations

from pathlib import Path

from conftest import gbrain, write_tree
from test_watch import Watch, wait_for

from gbrain.core.brain import Brain
from gbrain.sync.embedder import EmbedKeeper


def embedded(db, slug: str, model: str = "fake-32") -> bool:
    """Whether page ``slug``'s current text is embedded with ``model``."""
    with Brain.open(db) as b:
        return b.conn.execute(
            "SELECT 1 FROM pages p JOIN embed_state s ON s.page_id = p.id AND s.model = ? "
            "WHERE p.slug = ? AND s.content_hash = p.content_hash", (model, slug)).fetchone() is not None


def test_watch_embed_keeps_changed_pages_embedded(tmp_path, db_path):
    root = tmp_path / "v"
    write_tree(root, {"notes/alpha.md": "# Alpha\n\nRockets and launch pads.\n"})
    with Brain.open(db_path, create=True) as b:
        b.set_config("embedding_model", "fake-32")
    w = Watch(root, db_path, "--embed")
    try:
        wait_for(lambda: embedded(db_path, "notes/alpha"), "the page there at start to be embedded")
        # a save in the folder
        (root / "notes/beta.md").write_text("# Beta\n\nSubmarines and the deep sea.\n")
        wait_for(lambda: embedded(db_path, "notes/beta"), "a new note to be embedded")
        (root / "notes/alpha.md").write_text("# Alpha\n\nRockets, launch pads and orbits.\n")
        wait_for(lambda: embedded(db_path, "notes/alpha"), "an edited note to be embedded again")
        # a write by another process (an agent's put): the watch writes its file, and embeds it
        p = gbrain("--db", str(db_path), "put", "notes/gamma", input="# Gamma\n\nWritten by an agent.\n")
        assert p.returncode == 0, p.stderr
        wait_for(lambda: (root / "notes/gamma.md").exists() and embedded(db_path, "notes/gamma"), "an agent's page to be embedded")
        assert w.saw("embedded ") and w.saw("with fake-32")
    finally:
        code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)


def test_a_failing_provider_is_retried_and_said_once(tmp_path, db_path, monkeypatch):
    """An OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1) that refuses the key: the
    keeper logs one warning however many rounds fail, keeps running, and embeds once the
    endpoint answers again."""
    from test_semantic import FakeOpenAI

    server = FakeOpenAI()
    server.always = 401
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with Brain.open(db_path, create=True) as b:
        b.save_page("notes/a.md", "# A\n\nSome text.\n")
        b.set_config("embedding_base_url", server.url)
        b.set_config("embedding_model", "text-embedding-3-small")
    lines: list[str] = []
    k = EmbedKeeper(db_path, lines.append, idle_s=0.01, retry_s=0.05)
    k.start()
    try:
        k.poke()
        wait_for(lambda: k.errors >= 3, "three failed rounds")
        assert sum("embedding failed" in ln and "401" in ln for ln in lines) == 1, lines
        server.always = None
        wait_for(lambda: embedded(db_path, "notes/a", "text-embedding-3-small"), "the page to be embedded once the endpoint answers")
    finally:
        k.stop()
        server.close()
    assert k.pages == 1 and any(ln.startswith("embedded 1 page(s) with text-embedding-3-small") for ln in lines), lines


def test_without_embed_watch_embeds_nothing(tmp_path, db_path):
    root = tmp_path / "v"
    write_tree(root, {"notes/alpha.md": "# Alpha\n\nRockets.\n"})
    with Brain.open(db_path, create=True) as b:
        b.set_config("embedding_model", "fake-32")
    w = Watch(root, db_path)
    try:
        (root / "notes/beta.md").write_text("# Beta\n\nSubmarines.\n")
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/beta'").fetchone(), "the note to sync")
    finally:
        code, _ = w.stop()
    assert code == 0 and not embedded(db_path, "notes/alpha") and not w.saw("embedded ")
