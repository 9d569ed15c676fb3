"""A word inside a run of CJK text is found, on both engines (schema v21, ``pages.search_cjk``).

FTS5's unicode61 tokenizer (and Postgres' parser) makes a whole run of Han, kana or Hangul one
token, so ``同期`` matched a page only where it stood alone (obsidian-help: 6 pages, grep: 41);
the substring fallback ran only when that found nothing. Every CJK run is now also indexed as its
overlapping character bigrams (and its last character), and a query's CJK run is the phrase of
its bigrams (``search/keyword.py: cjk_bigrams``, ``_cjk_terms``)."""
from __future__ import annotations

import sqlite3
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.search import keyword as search
from gbrain.storage import db as dbmod
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import derived_snapshot, fresh_import_differences

from conftest import write_tree

NOTES = {
    "ja/alone.md": "# 同期\n\n同期 は、ひとつの語として書かれています。\n",
    "ja/inside.md": "# メモ\n\nデータ同期処理を設定する。\n",
    "ja/apart.md": "# 別\n\n同じ期間のデータです。\n",  # 同 and 期, never 同期
    "ja/spaced.md": "# 空白\n\nデータ 同期 の話。\n",
    "zh/sync.md": "# 数据同步\n\n如何在设备之间同步笔记。\n",
    "ko/note.md": "# 노트\n\n노트를 동기화하려면 설정을 여세요.\n",
    "en/mixed.md": "# Sync\n\nSync your notes with Obsidianの同期 and more.\n",
    "会議録/週次.md": "English only body.\n",  # CJK only in the folder and the file name (the title)
    "en/plain.md": "# Plain\n\nNothing in Japanese here.\n",
}


def _brain(tmp_path, db, notes=NOTES):
    b = Brain.open(db)
    import_tree(b, write_tree(tmp_path / "vault", notes))
    return b


def slugs(hits):
    return sorted(h["slug"] for h in hits)


def _grep(notes: dict[str, str], word: str) -> list[str]:
    """The pages whose text or path holds ``word`` (what grep and a file browser find)."""
    return sorted(p[:-3] for p, text in notes.items() if word in text or word in p[:-3])


@pytest.mark.parametrize("word", ["同期", "データ", "同步", "笔记", "设备", "노트", "동기화", "설정", "会議", "週次", "議録",
                                  "期", "同", "録", "데이터", "データ同期", "同期処理", "処理を設定"])
def test_a_cjk_word_is_found_wherever_grep_finds_it(tmp_path, db_path, word):
    with _brain(tmp_path, db_path) as b:
        want = _grep(NOTES, word)
        assert slugs(search.search(b.conn, word, limit=50)) == want
        # the keyword half of `query` (and its fusion) reads the same ranking
        assert sorted(b.conn.execute("SELECT slug FROM pages WHERE id = ?", (h["id"],)).fetchone()[0]
                      for h in search.keyword_candidates(b.conn, word)) == want
        assert slugs(ops.run("query", {"question": word, "limit": 50}, brain=b)["hits"]) == want


def test_a_word_inside_a_run_is_found_beside_the_word_standing_alone(tmp_path, db_path):
    """The bug: the whole-token match found ``ja/alone`` and ``ja/spaced``, so the substring
    fallback never ran for the pages holding ``同期`` inside a run."""
    with _brain(tmp_path, db_path) as b:
        hits = search.search(b.conn, "同期", limit=50)
        assert {"ja/inside", "en/mixed", "ja/alone", "ja/spaced"} <= set(slugs(hits))
        inside = next(h for h in hits if h["slug"] == "ja/inside")
        assert [inside["snippet"][x:y] for x, y in inside["highlights"]] == ["同期"]  # marked inside its run
        assert inside["signals"] == ["body"]


def test_highlights_mark_the_word_inside_every_run(tmp_path, db_path):
    notes = {"a.md": "# 設定\n\n同期は大切です。データ同期処理と同期ログを見る。\n"}
    with _brain(tmp_path, db_path, notes) as b:
        [h] = search.search(b.conn, "同期")
        assert [h["snippet"][x:y] for x, y in h["highlights"]] == ["同期", "同期", "同期"]


def test_a_snippet_of_text_without_spaces_is_cut_to_its_width(tmp_path, db_path):
    """CJK text has no spaces to cut at: the snippet was the whole rest of the page."""
    body = "これは長い文章です。" * 60 + "ここで同期します。" + "その後も文章が続きます。" * 60
    with _brain(tmp_path, db_path, {"long.md": "# 長文\n\n" + body + "\n"}) as b:
        [h] = search.search(b.conn, "同期")
        assert len(h["snippet"]) <= search.SNIPPET_WIDTH + 2 and h["snippet"].startswith("…") and h["snippet"].endswith("…")
        assert [h["snippet"][x:y] for x, y in h["highlights"]] == ["同期"]


def test_a_quoted_phrase_of_cjk_words_keeps_them_apart(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        assert slugs(search.search(b.conn, '"データ 同期"')) == ["ja/spaced"]  # not データ同期処理
        assert slugs(search.search(b.conn, '"データ同期"')) == ["ja/inside"]
        assert slugs(search.search(b.conn, '"同期"')) == _grep(NOTES, "同期")


def test_a_word_glued_to_cjk_text_finds_both_parts(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        assert "en/mixed" in slugs(search.search(b.conn, "Obsidianの同期"))
        assert search.search(b.conn, "Obsidianの同期")[0]["slug"] == "en/mixed"  # both of its parts


def test_the_cjk_page_gets_its_real_length(tmp_path, db_path):
    """BM25 normalises by length: a long CJK page that mentions the word once ranks below a short
    one (unicode61 counted a whole run as one token: the long page seemed as short)."""
    other = "".join(chr(0x4E00 + 7 * i) for i in range(400))  # 400 distinct characters, no 同期
    notes = {"short.md": "同期する。\n", "long.md": other + "。同期する。\n"}
    with _brain(tmp_path, db_path, notes) as b:
        assert [h["slug"] for h in search.search(b.conn, "同期")] == ["short", "long"]


SYNTAX = ['"同期', '同期"', '同期*', '*同期*', '"同期"*', '同期"処理', 'NEAR(同期 データ)', '同期 OR データ', '同期 AND',
          '{title}: 同期', '同期^', '-同期', '同期:処理', '同期 & データ | ! <-> x', "'同期'", '同期\\', '(同期)', '"" 同期 ""',
          '"データ 同"', '"データ 同期 x"', '同期🧠', '同期\u3000データ']


@pytest.mark.parametrize("q", SYNTAX)
def test_cjk_mixed_with_query_syntax_is_plain_text(tmp_path, db_path, q):
    with _brain(tmp_path, db_path) as b:
        hits = search.search(b.conn, q, limit=50)
        assert isinstance(hits, list)
        if q in ('"同期', '同期"', '同期*', '*同期*', '"同期"*', '同期^', '-同期', '(同期)', "'同期'", '"" 同期 ""'):
            assert slugs(hits) == _grep(NOTES, "同期"), q
        r = ops.run("query", {"question": q, "limit": 50}, brain=b)
        assert isinstance(r["hits"], list)


_ALPHABET = list("同期デー タ処理猫한국어重gen\"*-:^(){}&|!<>' ") + ["NEAR", "AND", "OR", "NOT", "\u3000", "・", "ｶﾞ"]


@pytest.mark.engine_free
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=12).map("".join))
def test_every_cjk_query_is_a_valid_fts5_query(q):
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE page_fts USING fts5({dbmod._FTS_COLS}, tokenize='{search.FTS_TOKENIZE}')")
    conn.execute(f"INSERT INTO page_fts({dbmod._FTS_COLS}) VALUES ('同期', '', '', '', 'データ同期処理', '', '', ?)",
                 (search.cjk_bigrams("データ同期処理"),))
    fq = search.fts_query(search.search_form(q))
    if fq:
        conn.execute("SELECT count(*) FROM page_fts WHERE page_fts MATCH ?", (fq,)).fetchone()
    for p in search.fts_parts(search.search_form(q)):
        conn.execute("SELECT count(*) FROM page_fts WHERE page_fts MATCH ?", (p,)).fetchone()


@pytest.mark.engine_free
def test_bigrams_of_runs():
    assert search.cjk_bigrams("データ同期処理") == "デー ータ タ同 同期 期処 処理 理"
    assert search.cjk_bigrams("猫、犬。Obsidianの同期") == "猫 犬 の同 同期 期"
    assert search.cjk_bigrams("plain English", "") == ""
    assert search.cjk_bigrams("ｶﾀｶﾅ") == "カタ タカ カナ ナ"  # NFKC, as a query is read
    assert search.cjk_bigrams(unicodedata.normalize("NFD", "データ")) == "デー ータ タ"
    assert search.cjk_bigrams("데이터를 보관") == "데이 이터 터를 를 보관 관"
    assert search.fts_parts("同期") == ['"同期"']
    assert search.fts_parts("データ同期") == ['"デー ータ タ同 同期"']
    assert search.fts_parts("猫") == ['"猫"*']
    assert search.fts_parts("重跑gen*") == ['"重跑"', '"gen"*']
    assert search.fts_parts('"データ 同期"') == ['"デー ータ タ 同期"']


@pytest.mark.engine_free
def test_english_query_terms_are_unchanged():
    """Text without CJK reads as before v21 (the terms, byte for byte)."""
    for q, parts in [("hello world", ['"hello"', '"world"']), ('café "new york" tes*', ['"café"', '"new york"', '"tes"*']),
                     ("what is the sync", ['"sync"']), ("Привет мир", ['"Привет"', '"мир"']), ("ไทย", ['"ไทย"'])]:
        assert search.fts_parts(q) == parts


def test_edits_keep_search_cjk_equal_to_a_fresh_import(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        ops.run("put", {"slug": "ja/inside", "compiled_truth": "# メモ\n\n設定の同期とバックアップ。\n"}, brain=b)
        ops.run("put", {"slug": "zh/new", "content": "---\naliases: [同步笔记]\nstatus: 进行中\n---\n# 新\n\n内容。\n"}, brain=b)
        ops.run("tag", {"slug": "ko/note", "tag": "동기화"}, brain=b)
        ops.run("timeline-add", {"slug": "ja/alone", "date": "2025-01-02", "summary": "同期を追加した"}, brain=b)
        assert slugs(search.search(b.conn, "進行")) == []
        assert slugs(search.search(b.conn, "进行")) == ["zh/new"]  # a frontmatter value
        assert slugs(search.search(b.conn, "笔记")) == ["zh/new", "zh/sync"]  # an alias
        assert "ja/alone" in slugs(search.search(b.conn, "追加"))  # the timeline
        assert "ja/inside" in slugs(search.search(b.conn, "バックアップ"))
        assert fresh_import_differences(b) == {}


def _as_v20(p) -> None:
    """Set the SQLite brain at ``p`` back to schema v20: no ``search_cjk``, ``page_fts`` as v6 made it."""
    conn = sqlite3.connect(p, isolation_level=None)
    conn.execute("BEGIN")
    for t in ("pages_ai", "pages_ad", "pages_au"):
        conn.execute(f"DROP TRIGGER {t}")
    conn.execute("DROP TABLE page_fts")
    conn.execute("DROP VIEW page_fts_src")  # (v38's, with its columns)
    for col in ("search_cjk", "search_body", "search_timeline"):
        conn.execute(f"ALTER TABLE pages DROP COLUMN {col}")
    dbmod._create_fts(conn, dbmod._FTS_COLS_V6)
    conn.execute("PRAGMA user_version = 20")
    conn.execute("COMMIT")
    conn.close()


@pytest.mark.sqlite_only("SQLite's migration v21 (FTS5 table rebuilt); Postgres v21 has its own test")
def test_migration_v21_fills_the_bigrams_of_an_existing_brain(tmp_path):
    p = tmp_path / "old.db"
    with _brain(tmp_path, p) as b:
        fresh = derived_snapshot(b)
        cjk = dict(b.conn.execute("SELECT slug, search_cjk FROM pages").fetchall())
    # the title (here also the text's heading), then the text
    assert cjk["ja/inside"] == "メモ モ メモ モ デー ータ タ同 同期 期処 処理 理を を設 設定 定す する る" and cjk["en/plain"] == ""
    assert cjk["会議録/週次"] == "週次 次 会議 議録 録"
    _as_v20(p)
    conn = sqlite3.connect(p)
    assert "search_cjk" not in {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    conn.close()
    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION >= 21
        assert derived_snapshot(b) == fresh  # the column filled, the index equal to the pages
        assert slugs(search.search(b.conn, "同期", limit=50)) == _grep(NOTES, "同期")
        with b.transaction():
            b.conn.execute("UPDATE pages SET search_cjk = ''")
            assert dbmod.rederive_cjk(b.conn) == 8
            assert dbmod.rederive_cjk(b.conn) == 0


@pytest.mark.engine_free
def test_postgres_v21_fills_the_bigrams_of_an_existing_brain(tmp_path, pg_url):
    """Postgres schema v21 (search_tsv rebuilt with search_cjk, then the Python step) does what
    SQLite v21 does, and the BM25 totals stay the sums over the pages."""
    from gbrain.storage import pg

    [step] = [v for v, f in pg._PY_STEPS.items() if f is pg._cjk]
    with _brain(tmp_path, pg_url) as b:
        fresh = derived_snapshot(b)
        with b.transaction():
            b.conn.execute("UPDATE pages SET search_cjk = ''")
            b.conn.execute("DELETE FROM gbrain_schema WHERE version >= %d" % step)
        assert search.rank(b.conn, "同期処理") == []  # (search's substring fallback would find it)
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        assert derived_snapshot(b) == fresh
        assert slugs(search.search(b.conn, "同期", limit=50)) == _grep(NOTES, "同期")
        totals = tuple(b.conn.execute("SELECT pages, lexemes FROM search_totals").fetchone())
        assert totals == tuple(b.conn.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone())


TITLED = {
    "en": {"a/sync-settings.md": "# Sync settings\n\nHow to set it up.\n",
           "a/other.md": "# Other note\n\nSync here, sync there: sync is everywhere in this note.\n"},
    "ja": {"a/同期設定.md": "# 同期設定\n\n設定の方法。\n",
           "a/別.md": "# 別のメモ\n\n同期、ここで同期、そこで同期：このメモのどこにでも同期がある。\n"},
}


@pytest.mark.sqlite_only("a CJK word inside a title is name evidence on SQLite's ranking only (docs/search.md, CJK text)")
def test_a_cjk_word_in_a_title_ranks_as_a_title_word(tmp_path, db_path):
    """Trial: a CJK word in a page's title weighed as body text (the title is one token to
    unicode61; its bigrams are in the body-weight column), so a page mentioning the word four
    times in its body outranked the page titled with it, where an English title word puts its
    page first. The CJK title word now names its page as a Latin one does: first, signal `title`."""
    order = {}
    for lang, notes in TITLED.items():
        with _brain(tmp_path / lang, tmp_path / f"{lang}.db", notes) as b:
            hits = search.search(b.conn, "sync" if lang == "en" else "同期")
            order[lang] = [(h["slug"].split("/")[1], "title" in h.get("signals", [])) for h in hits]
    assert order["en"] == [("sync-settings", True), ("other", False)]
    assert order["ja"] == [("同期設定", True), ("別", False)], order


QUESTION_NOTES = {
    "zh/compress.md": "# 上下文压缩\n\n当对话长度接近模型的上下文上限时，需要压缩历史消息，同时保留关键信息。\n",
    "zh/rope.md": "# 旋转编码\n\n通过旋转矩阵编码位置信息。\n",
    "zh/other.md": "# 其他\n\n这里没有相关内容。\n",
}


def test_a_cjk_question_no_page_holds_as_written_finds_the_pages_holding_its_parts(tmp_path, db_path):
    """trial37: a Chinese question typed as one run (``对话太长时如何压缩历史消息``, as Chinese is
    written: no spaces) was the phrase of all its bigrams, which no page holds: `search` found
    nothing (and the keyword half of `query` nothing) though a page answers it. When the phrase
    finds nothing its bigrams are searched apart, the pages holding more of them first, said."""
    with _brain(tmp_path, db_path, QUESTION_NOTES) as b:
        warned: list[str] = []
        hits = search.search(b.conn, "对话太长时如何压缩历史消息", warn=warned.append)
        assert hits and hits[0]["slug"] == "zh/compress"
        assert "zh/other" not in slugs(hits)
        assert any("对话太长时如何压缩历史消息" in w for w in warned)
        ids = search.keyword_candidates(b.conn, "对话太长时如何压缩历史消息")
        assert ids and b.conn.execute("SELECT slug FROM pages WHERE id = ?", (ids[0]["id"],)).fetchone()[0] == "zh/compress"
        assert ops.run("query", {"question": "对话太长时如何压缩历史消息", "limit": 5}, brain=b)["hits"][0]["slug"] == "zh/compress"
        # a run some page holds is still that phrase, nothing looser
        assert slugs(search.search(b.conn, "压缩历史消息")) == ["zh/compress"]
        assert slugs(search.search(b.conn, "旋转位置编码")) == ["zh/rope"]  # 旋转, 位置, 编码 apart
        # a quoted phrase is what the user asked for: never loosened
        assert search.search(b.conn, '"对话太长时如何压缩历史消息"') == []


@pytest.mark.parametrize("n", [12_000, 30_000])
def test_a_very_long_cjk_query_searches_without_error(tmp_path, db_path, n):
    # (review, session 54: on Postgres a CJK run of 12,000-30,000 characters was one phrase of
    # thousands of bigrams, "stack depth limit exceeded"; its terms are now capped, CJK_MAX_TERMS)
    q = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(n))
    with _brain(tmp_path, db_path) as b:
        assert isinstance(search.search(b.conn, q, limit=10), list)
        assert isinstance(search.search(b.conn, "データ同期処理" + q, limit=10), list)
