"""Property tests (hypothesis): generated pages and trees survive both round trips.

1. text: ``parse_page(t).render() == t`` for any text;
2. tree: import → export gives the same bytes for every file, and verify reports no mismatch;
3. DB: export → import into a fresh DB gives the same pages, tags, links and timeline rows.
"""
from __future__ import annotations

import sqlite3
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

EOL = st.sampled_from(["\n", "\r\n", "\r"])
WORD = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=0, max_size=12)
NAME = st.text(alphabet=st.sampled_from(list("abcxyz-_ éøßÅ知识🧠")), min_size=1, max_size=10).map(str.strip).filter(lambda s: s and s not in (".", "..") and not s.startswith("."))

FRONTMATTER = st.sampled_from(
    [
        "",
        "---{n}---{n}",
        "---{n}title: {w}{n}---{n}",
        "---{n}tags: [a, b]{n}type: person{n}---{n}",
        "---{n}tags:{n}  - x{n}  - y{n}created: 2025-01-02{n}---{n}",
        "---{n}tags: a, b{n}---{n}",
        "---{n}title: [broken{n}---{n}",
        "---{n}# just a comment{n}...{n}",
        "---{n}unclosed: yes{n}",
    ]
)

LINE = st.one_of(
    WORD,
    st.just("---"),
    st.just("```"),
    st.just("~~~"),
    st.builds(lambda w: f"# {w}", WORD),
    st.builds(lambda w, d: f"- **2025-0{d}-1{d}** | meeting — {w}", WORD, st.integers(1, 9)),
    st.builds(lambda w: f"  {w}", WORD),
    st.builds(lambda t: f"See [x](../people/{t}.md).", NAME),
    st.builds(lambda t: f"Knows [[{t}]] and [[people/{t}|alias]].", NAME),
    st.just("\t trailing  \t"),
    st.just("`[[code]]` and [a](<spaced name.md>)"),
)


@st.composite
def page_text(draw) -> str:
    n = draw(EOL)
    mixed = draw(st.booleans())
    fm = draw(FRONTMATTER).format(n=n, w=draw(WORD).replace("\n", " "))
    lines = draw(st.lists(LINE, max_size=14))
    out = ("\ufeff" if draw(st.booleans()) else "") + fm
    for ln in lines:
        out += ln + (draw(EOL) if mixed else n)
    if draw(st.booleans()) and out.endswith(("\n", "\r")):
        out = out.rstrip("\r\n")
    return out


@settings(max_examples=300, deadline=None)
@given(page_text(), st.sampled_from(["rule", "heading"]))
def test_page_text_roundtrip(text, split):
    p = parse_page(text, "people/x.md", timeline_split=split)
    assert p.render() == text
    if p.separator:
        assert p.separator.rstrip("\r\n") == "---"


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_roundtrip(text):
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    assert parse_page(text, "a.md").render() == text


@st.composite
def trees(draw) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    seen: set[str] = set()
    for _ in range(draw(st.integers(1, 6))):
        folder = draw(st.sampled_from(["people", "companies", "notes/deep", ""]))
        name = draw(NAME)
        rel = (folder + "/" if folder else "") + name + ".md"
        key = unicodedata.normalize("NFC", rel)
        if key in seen or rel in ("index.md", "log.md", "schema.md"):
            continue
        seen.add(key)
        files[rel] = draw(page_text()).encode("utf-8")
    if draw(st.booleans()):
        files["people/.raw/" + draw(NAME) + ".json"] = b'{"sources": {"crustdata": {"n": 1}}}\n'
    if draw(st.booleans()):
        files["notes/blob.bin"] = draw(st.binary(max_size=64))
    return files


def _write(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def _read(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _snapshot(db: Path) -> dict:
    c = sqlite3.connect(db)
    q = lambda sql: sorted(map(tuple, c.execute(sql).fetchall()))  # noqa: E731
    snap = {
        "pages": q("SELECT slug, path, type, title, compiled_truth, timeline, frontmatter, content_hash FROM pages"),
        "tags": q("SELECT p.slug, t.tag FROM tags t JOIN pages p ON p.id = t.page_id"),
        "links": q("SELECT f.slug, l.kind, l.target, t.slug FROM links l JOIN pages f ON f.id = l.from_page_id LEFT JOIN pages t ON t.id = l.to_page_id"),
        "timeline": q("SELECT p.slug, e.date, e.source, e.summary, e.detail FROM timeline_entries e JOIN pages p ON p.id = e.page_id"),
        "raw": q("SELECT p.slug, r.source, r.data FROM raw_data r JOIN pages p ON p.id = r.page_id"),
    }
    c.close()
    return snap


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=trees())
def test_tree_and_db_roundtrip(sqlite_brain_template, files):
    # (each example's two brains are copies of a new brain: a first open's schema versions cost
    # more than the example's own import, export and import again)
    from conftest import new_sqlite_brain

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        src, out = root / "src", root / "out"
        _write(src, files)
        with Brain.open(new_sqlite_brain(sqlite_brain_template, root / "a.db")) as b:
            rep = import_tree(b, src)
            assert rep["ok"], rep["problems"]
            exp = export_tree(b, out)
            assert exp["ok"], exp["problems"]
        assert _read(out) == _read(src)
        with Brain.open(new_sqlite_brain(sqlite_brain_template, root / "b.db")) as b2:
            assert import_tree(b2, out)["ok"]
        assert _snapshot(root / "a.db") == _snapshot(root / "b.db")
