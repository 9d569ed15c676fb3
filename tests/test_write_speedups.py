"""The write half's pure-Python speed-ups (2026-12-03, writepy) give exactly what the code they
replaced gave, on every page of every corpus in ../shared/corpora and of a make_brain brain (a
deterministic sample of them in CI, ``corpus_sample.sample_pages``; every page with
GBRAIN_FULL_CORPUS=1), on a make_brain brain's ``.raw`` sidecars and on generated inputs:

* a sidecar is stored (``Brain._store_file``) with its page id in the ``files`` row's own
  ``INSERT`` instead of an ``UPDATE`` after it, and its raw rows' JSON made by one encoder: the
  ``files``, ``raw_data``, ``history`` and ``history_bodies`` rows and the warnings are those of
  the old ``_store_file`` + ``_load_raw_rows``, for new sidecars, replaced ones, sidecars whose
  page is missing, and bytes that are not JSON or not UTF-8;
* ``derived_rows`` takes each tag's key once (``page.all_tags`` merged in place): the same rows;
* ``search_words`` skips the unspaced-script scan of an ASCII text and ``cjk_bigrams`` the run
  scan of a text without a CJK character: the same ``search_*`` columns.

The replaced functions are kept below, verbatim (as functions of a brain where they were
methods), as the references."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPORA, make_brain, tree_pages
from corpus_sample import sample_pages, shapes
from gbrain.core import brain as brain_module
from gbrain.core.brain import Brain, raw_sources, sha256
from gbrain.page import markdown
from gbrain.page.slugs import identity_key, loose_key, page_slug_for_sidecar, tag_identity
from gbrain.search import keyword
from gbrain.storage import blobs
from gbrain.page.links import COLUMNS, MemoryIndex, title_path_key
from gbrain.storage import derive
from gbrain.storage.derive import _forms_json, derived_rows
from gbrain.core.brain import now_iso


# ---- the references: the code the speed-ups replaced ------------------------------------------


def ref_load_raw_rows(b: Brain, path: str, fdata: bytes | None = None) -> list[str]:
    slug = page_slug_for_sidecar(path)
    page = b.conn.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone() if slug else None
    if fdata is None:
        fdata = blobs.file_bytes(b.conn, path)
    b.conn.execute("UPDATE files SET page_id = ? WHERE path = ?", (page["id"] if page else None, path))
    if not page or fdata is None:
        return [f"{path}: sidecar without a page {slug}.md"] if not page else []
    b.conn.execute("DELETE FROM raw_data WHERE page_id = ?", (page["id"],))
    try:
        obj = json.loads(fdata.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return [f"{path}: not valid JSON ({e}); kept as bytes"]
    sources = raw_sources(obj)
    b.conn.executemany(
        "INSERT INTO raw_data(page_id, source, data) VALUES (?, ?, ?)",
        [(page["id"], k, json.dumps(v, ensure_ascii=False)) for k, v in sources.items()],
    )
    return []


def ref_store_file(b: Brain, path: str, data: bytes, kind: str, h: str) -> list[str] | None:
    row = b.conn.execute("SELECT content_hash, kind FROM files WHERE path = ?", (path,)).fetchone()
    if row and row["content_hash"] == h and row["kind"] == kind:
        return None
    warnings: list[str] = []
    with b.transaction():
        b.conn.execute(
            "INSERT INTO files(path, kind, data, content_hash, size, pieces, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?) "
            "ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, data = excluded.data, content_hash = excluded.content_hash, "
            "size = excluded.size, pieces = 0, updated_at = excluded.updated_at",
            (path, kind, data, h, len(data), now_iso()),
        )
        if kind == "raw":
            warnings = ref_load_raw_rows(b, path, data if isinstance(data, bytes) else None)
        elif kind == "special":
            b._load_special(path, data)
    return warnings


def ref_derived_rows(page) -> dict[str, list[tuple]]:
    fm = {tag_identity(t) for t in page.tags}
    return {
        "tags": [(t, k, int(k not in fm)) for t, k in ((t, tag_identity(t)) for t in page.all_tags)],
        "aliases": [(a, identity_key(a), loose_key(a)) for a in page.aliases],
        "timeline": [(e.date, e.source, e.summary, e.detail) for e in page.timeline_entries],
        "links": [(ln.kind, ln.target, loose_key(ln.target), ln.context, ln.count, _forms_json(tuple(ln.forms)), "\n".join(ln.labels)) for ln in page.links],
    }


def ref_memory_index(conn) -> tuple[dict, dict]:
    """``MemoryIndex(conn)``'s ``(maps, slashed)`` as its old constructor built them."""
    from collections import defaultdict

    maps = {c: defaultdict(list) for c in COLUMNS}
    conn = conn.cursor()
    conn.row_factory = None
    slashed = defaultdict(list)
    for row in conn.execute("SELECT id, slug, slug_key, name_key, loose_key, title_key, title FROM pages"):
        for c, v in zip(COLUMNS, row[1:6]):
            maps[c][v].append((row[0], row[1]))
        if "/" in row[6]:
            slashed[title_path_key(row[6])].append((row[0], row[1]))
    for c in ("alias_key", "alias_loose"):
        maps[c] = defaultdict(list)
    q = "SELECT DISTINCT p.id, p.slug, a.alias_key, a.loose_key FROM aliases a JOIN pages p ON p.id = a.page_id"
    for pid, slug, akey, aloose in conn.execute(q):
        maps["alias_key"][akey].append((pid, slug))
        maps["alias_loose"][aloose].append((pid, slug))
    return maps, slashed


def ref_cjk_bigrams(*texts: str) -> str:
    out: list[str] = []
    for text in texts:
        if not text or text.isascii():
            continue
        if not keyword._compat_free(text):
            text = keyword.search_form(text)
        for run in keyword._CJK_RUN.findall(text):
            out += keyword._cjk_tokens(run)
        for run in keyword._THAI_RUN.findall(text):  # (since v77: Thai runs, their characters as private-use letters)
            out += keyword._cjk_tokens(run.translate(keyword._THAI_PUA))
    return " ".join(out)


def ref_compat_words(text: str, marks: bool = True) -> list[str]:
    """:func:`keyword.compat_words` without its one search for both kinds of letter: the NFKC
    words unless ``_no_compat_words``, then the other spellings of a text holding ``_SPELT``."""
    if text.isascii():
        return []
    out: list[str] = []
    if not keyword._no_compat_words(text):
        have = set(keyword._PLAIN_WORD.findall(text))
        for tok in keyword._PLAIN_WORD.findall(keyword.search_form(text)):
            if tok in have:
                continue
            if keyword._UNSPACED.search(tok):
                out += [w for w in keyword._UNSPACED.split(tok) if w and w not in have]
            else:
                out.append(tok)
    if keyword._SPELT.search(text):
        out += keyword._other_spellings(text, marks)
    return out


def ref_search_words(compiled_truth: str, timeline: str, frontmatter: dict, names: tuple[str, ...] = ()) -> str:
    words: list[str] = []
    compat: list[str] = []
    for text in (compiled_truth, timeline):
        if keyword._UNSPACED.search(text):
            for tok in keyword._WORD.findall(text):
                if keyword._UNSPACED.search(tok) and not keyword._UNSPACED.fullmatch(tok):
                    words += [w for w in keyword._UNSPACED.split(tok) if w]
        compat += keyword.compat_words(text, marks=False)  # (since v79: its marked words are bare in search_text)
    for text in names:
        compat += keyword.compat_words(text or "")
    values: list[str] = []

    def walk(v, named: bool = False) -> None:
        if isinstance(v, str):
            if not v.isascii():
                compat.extend(keyword.compat_words(v))
            if named:
                return
            v = " ".join(v.split())
            if v and not keyword._ISO_DATE.fullmatch(v) and not keyword._URL.match(v):
                values.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x, named)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x, named)

    if isinstance(frontmatter, dict):
        for k, v in frontmatter.items():
            walk(v, isinstance(k, str) and k.casefold() in keyword.FRONTMATTER_NAMED)
    return " ".join(dict.fromkeys(words + values + compat))


# ---- pages: derived rows and search fields ------------------------------------------------------


def assert_page_same(text: str, path: str = "notes/x.md") -> None:
    page = markdown.parse_page(text, path)
    assert derived_rows(page) == ref_derived_rows(page)
    for t in (page.compiled_truth, page.timeline, page.title, text):
        assert keyword.cjk_bigrams(t) == ref_cjk_bigrams(t)
        assert keyword.compat_words(t) == ref_compat_words(t)
    assert keyword.cjk_bigrams(page.title, page.compiled_truth, page.timeline) == ref_cjk_bigrams(page.title, page.compiled_truth, page.timeline)
    got = keyword.search_words(page.compiled_truth, page.timeline, page.frontmatter, (page.title, page.path))
    assert got == ref_search_words(page.compiled_truth, page.timeline, page.frontmatter, (page.title, page.path))
    assert brain_module._json_text(page.frontmatter) == json.dumps(page.frontmatter, ensure_ascii=False)
    for ln in page.links:
        assert derive._JSON_TEXT(tuple(ln.forms)) == json.dumps(tuple(ln.forms), ensure_ascii=False)


CORPUS_NAMES = sorted(p.name for p in CORPORA.iterdir() if p.is_dir()) if CORPORA.exists() else []

#: what the speed-ups read (tags of both kinds, aliases, CJK and other unspaced scripts, text
#: NFKC changes, frontmatter values search_words walks, links' forms): each keeps KEEP_PER_SHAPE
#: pages of a corpus in the sample (corpus_sample.sample_pages; "(?#non-ASCII)": ASCII pages skipped)
SHAPES = shapes({
    "frontmatter tags": r"^tags?:",
    "frontmatter aliases": r"^alias(?:es)?:",
    "frontmatter title": r"^title:",
    "inline tag": r"#(?<!\S#)[^\s#]",
    "inline tag with a capital": r"#(?<!\S#)[^\s#]*[A-Z]",
    "non-ASCII inline tag": r"(?#non-ASCII)#(?<!\S#)[^\s#]*[^\x00-\x7f]",
    "CJK": "(?#non-ASCII)[" + keyword._CJK_CHARS + "]",
    "unspaced script glued to Latin letters": r"(?#non-ASCII)[A-Za-z][\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
                                              r"|[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff][A-Za-z]",
    "Thai": r"(?#non-ASCII)[\u0e00-\u0e7f]",
    "compatibility characters (NFKC changes them)": r"(?#non-ASCII)[\u00a0\u00aa\u00b2\u00b3\u00b5\u00b9\u00ba\u00bc-\u00be\u0132\u0133\u017f"
                                                    r"\u2000-\u200a\u2024-\u2026\u2070-\u209f\u2100-\u2183\u2460-\u24ff\u3000"
                                                    r"\u3200-\u33ff\ufb00-\ufb06\uff01-\uffef]",
    "combining mark": r"(?#non-ASCII)[\u0300-\u036f]",
    "non-ASCII frontmatter value": r"(?#non-ASCII)\A(?:\ufeff)?---\r?\n(?:(?!---).*\n)*?[\w-]+:.*[^\x00-\x7f]",
    "frontmatter date or URL": r"^[\w-]+:[ \t]+['\"]?(?:\d{4}-\d{2}-\d{2}|[a-z]+://)",
    "timeline entry": r"^[-*+][ \t]+\*\*\d{4}-\d{2}-\d{2}\*\*[ \t]*\|",
    "wiki link": r"\[\[",
    "markdown link": r"\]\(",
})


@pytest.mark.engine_free
@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_corpus_pages_agree_with_the_references(corpus):
    """Every page of each corpus (a deterministic sample in CI: corpus_sample)."""
    pages = tree_pages(CORPORA / corpus)
    assert pages
    for path, text in sample_pages(pages, SHAPES):
        assert_page_same(text, path)


@pytest.mark.engine_free
def test_make_brain_pages_agree_with_the_references(tmp_path):
    root = make_brain(tmp_path / "b", 1500)
    for path, text in sample_pages(tree_pages(root), SHAPES):
        assert_page_same(text, path)


_PIECES = ["#tag", "#Tag", "#café", "#cafe\u0301", "#日本", " ", "\n", "データ同期処理", "重跑gen-itgc后", "ＧＰＴ４", "ﬁnancial",
           "[[Ana Lima]]", "[x](y.md)", "- 2024-01-02 — src — did\n", "---\n", "é", "—", "“q”", "\u00a0", "ไทย", "เรียนรู้", "한국어", "𠀀𠀁",
           "الطَّالِبُ", "المهندسُ", "Đorđe", "Łukasz",
           "word", "tags: [a, B, b]\n", "aliases: [A, a]\n", "title: T\n"]


@st.composite
def page_texts(draw) -> str:
    fm = draw(st.booleans())
    head = ("---\n" + "".join(draw(st.lists(st.sampled_from(["tags: [a, B, b, café, cafe\u0301]\n", "aliases: [Ｘ, x]\n", "title: 日本 T\n",
                                                              "status: ﬁne\n", "tag: '#A'\n", "k: [データ, 2024-01-01]\n"]), max_size=4)))
            + "---\n") if fm else ""
    body = "".join(draw(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=8)), max_size=30)))
    return head + body


@pytest.mark.engine_free
@settings(max_examples=500, deadline=None)
@given(page_texts())
def test_generated_pages_agree_with_the_references(text):
    assert_page_same(text)


@pytest.mark.engine_free
def test_the_page_references_see_what_they_check():
    # a page where each skipped scan would matter: inline and frontmatter tags that share a key,
    # CJK text glued to Latin letters, a non-ASCII text with no CJK at all
    text = "---\ntags: [Alpha, café]\n---\n# T\n#alpha #beta #cafe\u0301 重跑gen后 データ同期 — “done”\n"
    page = markdown.parse_page(text, "n.md")
    rows = derived_rows(page)
    assert rows["tags"] == [("Alpha", "alpha", 0), ("café", "café", 0), ("beta", "beta", 1)]
    assert keyword.cjk_bigrams(page.compiled_truth) == "重跑 跑 后 デー ータ タ同 同期 期"
    assert "gen" in keyword.search_words(page.compiled_truth, page.timeline, page.frontmatter).split()
    assert keyword.cjk_bigrams("déjà vu — “x”") == ""


# ---- sidecars ------------------------------------------------------------------------------------


def _rows(b: Brain) -> dict[str, list[tuple]]:
    q = {
        "files": "SELECT id, path, kind, data, content_hash, size, pieces, page_id FROM files ORDER BY id",
        "raw_data": "SELECT id, page_id, source, data FROM raw_data ORDER BY id",
        "history": "SELECT id, kind, name, version, path, op, body_id, size, surface, operation, client, detail, writer FROM history ORDER BY id",
        "history_bodies": "SELECT id, hash, size, base_id, depth, data FROM history_bodies ORDER BY id",
    }
    out = {k: [tuple(r) for r in b.conn.execute(s)] for k, s in q.items()}
    # a source's JSON text is a slice of the sidecar's bytes since v40 (rawspans): the same value
    out["raw_data"] = [(i, p, k, json.loads(d)) for i, p, k, d in out["raw_data"]]
    return out


def _two_brains(tmp_path, pages: list[tuple[str, str]]):
    out = []
    for name in ("new", "ref"):
        b = Brain.open(tmp_path / f"{name}.db")
        for path, text in pages:
            b.save_page(path, text)
        out.append(b)
    return out


_TEMPLATES: dict[tuple, Path] = {}


def _two_brains_from_template(tmp_factory, pages: list[tuple[str, str]]):
    """What :func:`_two_brains` gives, as two copies of one brain made once per process and
    ``pages`` (a new brain's schema takes ~0.2 CPU-s: most of a generated example's time)."""
    key = tuple(pages)
    tpl = _TEMPLATES.get(key)
    if tpl is None or not tpl.exists():
        tpl = tmp_factory.mktemp("sidecar-template") / "t.db"
        with Brain.open(tpl) as b:
            for path, text in pages:
                b.save_page(path, text)
        assert not Path(f"{tpl}-wal").exists() or not Path(f"{tpl}-wal").stat().st_size  # all in the file
        _TEMPLATES[key] = tpl
    tmp = tmp_factory.mktemp("sc")
    out = []
    for name in ("new", "ref"):
        shutil.copyfile(tpl, tmp / f"{name}.db")
        out.append(Brain.open(tmp / f"{name}.db"))
    return out


def _store_both(new: Brain, ref: Brain, path: str, data: bytes) -> None:
    h = sha256(data)
    assert new._store_file(path, data, "raw", h) == ref_store_file(ref, path, data, "raw", h), path


@pytest.mark.engine_free
def test_make_brain_sidecars_are_stored_as_before(tmp_path):
    root = make_brain(tmp_path / "b", 300)
    sidecars = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) if d.endswith("/.raw") for f in fs)
    assert len(sidecars) > 20
    pages = [(p, t) for p, t in tree_pages(root)]
    # every other sidecar's page is left out: those sidecars have no page
    kept = {page_slug_for_sidecar(s) for s in sidecars[::2]}
    new, ref = _two_brains(tmp_path, [(p, t) for p, t in pages if p[:-3] not in {page_slug_for_sidecar(s) for s in sidecars} or p[:-3] in kept])
    try:
        for s in sidecars:
            _store_both(new, ref, s, (root / s).read_bytes())
        for s in sidecars[:10]:  # replaced: the update branch, raw rows replaced
            _store_both(new, ref, s, json.dumps({"sources": {"again": [1, "é"]}}, ensure_ascii=False).encode())
        for s in sidecars[:3]:  # stored again as they are: nothing written
            _store_both(new, ref, s, json.dumps({"sources": {"again": [1, "é"]}}, ensure_ascii=False).encode())
        got, want = _rows(new), _rows(ref)
        assert sum(1 for r in got["files"] if r[7] is not None) > 5 and len(got["raw_data"]) > 10
        assert got == want
    finally:
        new.close()
        ref.close()


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=8)


@st.composite
def sidecar_bytes(draw) -> bytes:
    how = draw(st.sampled_from(["sources", "plain", "other", "bad json", "not utf-8", "nan"]))
    if how == "sources":
        return json.dumps({"sources": draw(st.dictionaries(st.text(max_size=5), _JSON, max_size=3))}, ensure_ascii=draw(st.booleans())).encode()
    if how == "plain":
        return json.dumps(draw(st.dictionaries(st.text(max_size=5), _JSON, max_size=3)), indent=draw(st.sampled_from([None, 2]))).encode()
    if how == "other":
        return json.dumps(draw(_JSON)).encode()
    if how == "nan":
        return b'{"a": NaN, "b": [Infinity, -0.0, 1e400]}'
    if how == "bad json":
        return draw(st.binary(max_size=20)).replace(b"\xff", b"")
    return b'{"a": "\xff"}'


@pytest.mark.engine_free
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["people/.raw/ana.json", "people/.raw/nobody.json", "a/b/.raw/c.json"]), sidecar_bytes()),
                min_size=1, max_size=6))
def test_generated_sidecars_are_stored_as_before(tmp_path_factory, writes):
    new, ref = _two_brains_from_template(tmp_path_factory, [("people/ana.md", "# Ana\n"), ("a/b/c.md", "---\ntitle: C\n---\nc\n")])
    try:
        for path, data in writes:
            _store_both(new, ref, path, data)
        assert _rows(new) == _rows(ref)
    finally:
        new.close()
        ref.close()


def test_a_sidecar_keeps_its_page_id_as_load_raw_rows_sets_it(db_path):
    # the reference's UPDATE after the INSERT is the new INSERT's page_id: a sidecar stored before
    # its page has none, one stored after has it, and storing it again after the page is gone
    # clears it (as the UPDATE did); on both engines (the INSERT … ON CONFLICT is translated)
    b = Brain.open(db_path)
    try:
        assert b.save_file("p/.raw/x.json", b'{"s": 1}') == ["p/.raw/x.json: sidecar without a page p/x.md"]
        assert b.conn.execute("SELECT page_id FROM files").fetchone()[0] is None
        pid = b.save_page("p/x.md", "# X\n").page_id
        assert b.save_file("p/.raw/x.json", b'{"s": 2}') == []
        assert b.conn.execute("SELECT page_id FROM files").fetchone()[0] == pid
        assert [tuple(r) for r in b.conn.execute("SELECT source, data FROM raw_data")] == [("s", "2")]
        b.conn.execute("DELETE FROM pages")
        b.save_file("p/.raw/x.json", b'{"s": 3}')
        assert b.conn.execute("SELECT page_id FROM files").fetchone()[0] is None
    finally:
        b.close()



@pytest.mark.engine_free
@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_the_prebuilt_encoders_write_what_json_dumps_writes(v):
    want = json.dumps(v, ensure_ascii=False)
    assert brain_module._json_text(v) == want and derive._JSON_TEXT(v) == want


@pytest.mark.engine_free
def test_memory_index_is_built_as_before(tmp_path):
    root = make_brain(tmp_path / "b", 300)
    extra = [("net/TCP.md", "---\ntitle: TCP/IP\naliases: [Stack, stack, ＳＴＡＣＫ]\n---\nx\n"), ("net/tcp-2.md", "# TCP/IP\n"),
             ("a/Ana Lima.md", "---\naliases: [Ana]\n---\n"), ("b/ana lima.md", "---\ntitle: Project/Data Platform\n---\n")]
    b = Brain.open(tmp_path / "m.db")
    try:
        for path, text in tree_pages(root) + extra:
            b.save_page(path, text)
        idx = MemoryIndex(b.conn)
        maps, slashed = ref_memory_index(b.conn)
        assert {c: dict(m) for c, m in idx.maps.items()} == {c: dict(m) for c, m in maps.items()}
        assert dict(idx.slashed) == dict(slashed) and len(slashed) == 2
        assert len(idx.maps["slug"]) > 300 and idx.maps["alias_loose"]["stack"]
    finally:
        b.close()
