"""raw_put writes one source into a sidecar's text, every other byte kept (gbrain/page/jsonsplice.py)."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gbrain.core.brain import Brain
from gbrain.page.jsonsplice import members, set_member
from gbrain.storage import blobs
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

SIDECAR = (
    '{\n'
    '  "sources": {\n'
    '    "crustdata": {"score": 1.10, "city": "S\\u00e3o Paulo", "n": 1, "n": 2},\n'
    '    "pdl": {\n'
    '      "title": "CEO"\n'
    '    }\n'
    '  }\n'
    '}\n'
)


def test_raw_put_keeps_the_other_sources_bytes(tmp_path, brain_tree):
    """A trial: ``raw_put`` of one source re-dumped the whole sidecar: the untouched source's
    ``1.10`` came back ``1.1``, ``\\u00e3`` as a literal ``ã``, its repeated key lost a value,
    and the layout was the dumper's. Now only the named source's value changes."""
    (brain_tree / "people" / ".raw").mkdir(exist_ok=True)
    (brain_tree / "people" / ".raw" / "ana-lima.json").write_text(SIDECAR)
    from gbrain.sync.importer import import_tree

    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, brain_tree)
        b.raw_put("people/ana-lima", "exa", {"url": "https://x.example", "tags": ["a", "ü"]})
        got = blobs.file_bytes(b.conn, "people/.raw/ana-lima.json").decode()
        assert got.startswith(SIDECAR[: SIDECAR.index('    }\n  }\n}')]), got
        assert '"score": 1.10' in got and "S\\u00e3o" in got and '"n": 1, "n": 2' in got
        assert json.loads(got)["sources"]["exa"] == {"url": "https://x.example", "tags": ["a", "ü"]}
        # setting a source that is there replaces its value only
        b.raw_put("people/ana-lima", "pdl", {"title": "CTO"})
        got2 = blobs.file_bytes(b.conn, "people/.raw/ana-lima.json").decode()
        assert got2 == got.replace('"title": "CEO"', '"title": "CTO"'), got2
        assert b.raw_get("people/ana-lima", "pdl")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=8,
)
layouts = st.sampled_from([None, 2, 4, "\t", 0])


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(st.text(max_size=5), json_values, max_size=5), key=st.text(max_size=5), value=json_values,
       indent=layouts, nested=st.booleans(), crlf=st.booleans(), ascii_=st.booleans())
def test_set_member_sets_the_key_and_keeps_every_other_member_s_text(doc, key, value, indent, nested, crlf, ascii_):
    top = {"sources": doc, "meta": 1} if nested else doc
    text = json.dumps(top, indent=indent, ensure_ascii=ascii_)
    if crlf:
        text = text.replace("\n", "\r\n")
    path = ["sources"] if nested else []
    out = set_member(text, path, key, value)
    want = json.loads(text)
    (want["sources"] if nested else want)[key] = value
    assert json.loads(out) == want
    # every other member of the object keeps its exact text
    def spans(t):
        start = 0
        for name in path:
            ms, _ = members(t, start)
            start = [m for m in ms if m[0] == name][-1][2]
        return {k: t[a:b] for k, _, a, b in members(t, start)[0]}
    before, after = spans(text), spans(out)
    assert {k: v for k, v in before.items() if k != key} == {k: v for k, v in after.items() if k != key}
    if "\r\n" in text:
        assert "\n" not in out.replace("\r\n", "")


def test_set_member_refuses_what_is_not_an_object():
    import pytest

    for bad, path in (("[1]", []), ('{"sources": [1]}', ["sources"]), ('{"a": 1}', ["sources"]), ('{"a" 1}', [])):
        with pytest.raises(ValueError):
            set_member(bad, path, "k", 1)
