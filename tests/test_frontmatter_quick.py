"""The quick frontmatter loader (``markdown._quick_load``: ruamel's C parser and composer with a
plain constructor) gives what the full loader (``markdown._SafeYAML``) gives, or declines.

On every frontmatter of every corpus in ../shared/corpora, of ../shared/cases, of a make_brain
brain (a deterministic sample of them in CI, ``corpus_sample.sample_pages``; every one with
GBRAIN_FULL_CORPUS=1) and of generated YAML (every scalar that YAML 1.1 and 1.2 read differently, dates,
timestamps, explicit tags, anchors and aliases, duplicate and merge keys, flow and block
collections): ``load_frontmatter`` with ``QUICK_YAML`` on and off returns the same data and the
same error text, and where the quick loader returns a value it is the full loader's value, type
for type (a date stays a date, ``0o17`` is 15, ``yes`` a string)."""
from __future__ import annotations

import contextlib
import copy
import functools
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPORA, SHARED, make_brain, tree_pages
from corpus_sample import sample_pages, shapes
from gbrain.page import markdown
from gbrain.page.markdown import frontmatter_yaml, load_frontmatter, split_frontmatter

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def typed(value):
    """``value`` with every type spelled out (``1 == 1.0 == True`` must not hide a change)."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def full_load(frontmatter_raw: str) -> tuple:
    markdown.QUICK_YAML = False
    try:
        return load_frontmatter(frontmatter_raw)
    finally:
        markdown.QUICK_YAML = True


@contextlib.contextmanager
def full_loader_once():
    """``markdown._SafeYAML.load`` runs once per text inside: a second call with the same text is
    answered with a deep copy of the first one's value (or its exception again, and its impossible
    dates). :func:`compare` calls the full loader twice per text (``load_frontmatter`` with the quick
    loader off, and directly; or with it on, where it declines, and off), the same call each time: ~2/3
    of the generated test's CPU was the pure-Python loader. That a load does not depend on the loads
    before it is its own test (``test_a_frontmatter_loads_the_same_whatever_was_loaded_before``)."""
    real = markdown._SafeYAML.__dict__["load"]
    memo: dict[str, tuple] = {}

    def load(cls, text, not_dates=None):
        if text not in memo:
            found: list[str] = []
            try:
                memo[text] = (copy.deepcopy(real.__func__(cls, text, found)), None, found)
            except Exception as e:  # noqa: BLE001 — kept to raise again, as the loader raised it
                memo[text] = (None, e, found)
        data, error, found = memo[text]
        if not_dates is not None:
            not_dates.extend(found)
        if error is not None:
            raise error
        return copy.deepcopy(data)

    markdown._SafeYAML.load = classmethod(load)
    try:
        yield
    finally:
        markdown._SafeYAML.load = real


def compare(frontmatter_raw: str) -> bool:
    """Asserts both ways agree on one frontmatter block; True when the quick loader took it."""
    assert markdown.QUICK_YAML
    with full_loader_once():
        quick = load_frontmatter(frontmatter_raw)
        full = full_load(frontmatter_raw)
        assert typed(quick) == typed(full), frontmatter_raw
        src = frontmatter_yaml(frontmatter_raw)
        try:
            value = markdown._quick_load(src)
        except markdown._Unsure:
            return False
        assert typed(value) == typed(markdown._SafeYAML.load(src)), frontmatter_raw
    return True


def frontmatters(root: Path) -> list[tuple[str, str]]:
    out = []
    for rel, text in tree_pages(root):
        fm = split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)[0]
        if fm:
            out.append((str(root / rel), fm))
    return out


#: YAML a loader may read apart (cf. AMBIGUOUS, TAGS, KEYS below): each keeps KEEP_PER_SHAPE
#: frontmatter blocks of the corpora in the sample (corpus_sample.sample_pages)
SHAPES = shapes({
    "anchor or alias": r"(?:^|[\s\[{,])[&*][\w-]",
    "explicit tag": r"(?:^|[\s\[{,:-])!",
    "merge key": r"<<",
    "directive": r"^%",
    "document marker inside": r"\A---\r?\n(?:.*\n)+?(?:---|\.\.\.)\r?\n(?:.*\n)+?---",
    "block scalar": r":[ \t]*[|>][-+0-9]*[ \t]*\r?$",
    "flow mapping": r":[ \t]*\{",
    "flow sequence": r":[ \t]*\[",
    "URL in a flow sequence (libyaml refuses web:https)": r"\[[^\]\n]*:/",
    "block sequence": r"^[ \t]*- ",
    "nested mapping": r"^[ \t]+[^\s#-][^:\n]*:(?:[ \t]|\r?$)",
    "date": r":[ \t]+['\"]?\d{4}-\d{1,2}-\d{1,2}[ \t]*['\"]?\r?$",
    "timestamp": r"\d{4}-\d{1,2}-\d{1,2}[Tt ]\d{1,2}:\d{2}",
    "YAML 1.1 boolean": r":[ \t]+(?i:yes|no|on|off|y|n)[ \t]*\r?$",
    "boolean": r":[ \t]+(?i:true|false)[ \t]*\r?$",
    "null or empty value": r":[ \t]*(?:~|(?i:null))?[ \t]*\r?$",
    "number": r":[ \t]+[-+]?(?:\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|0[xob][0-9a-fA-F_]+|\.(?i:inf|nan))[ \t]*\r?$",
    "sexagesimal or time": r":[ \t]+\d+:\d{2}",
    "leading zero": r":[ \t]+0\d",
    "single-quoted": r"[:\-\[,][ \t]*'",
    "double-quoted": r"[:\-\[,][ \t]*\"",
    "escape in double quotes": r"\"[^\"\n]*\\",
    "plain scalar over lines": r"^[ \t]*[\w-]+:[ \t]+[^\s|>\[{'\"&*!].*\n[ \t]+[^\s#-]",
    "comment": r"(?:^|\s)#(?:\s|$)",
    "non-string key": r"^[ \t]*(?:-?\d[\d.]*|(?i:true|false|yes|no|null)|~)[ \t]*:",
    "quoted key": r"^[ \t]*['\"][^'\"\n]*['\"][ \t]*:",
    "complex key": r"^[ \t]*\?(?:[ \t]|$)",
    "key with a space or colon": r"^[ \t]*[\w-]+[ :][\w-][^:\n]*:(?:[ \t]|\r?$)",
    "wiki link in a value": r"\[\[",
    "hash value (a tag written '#x')": r"[:\-\[,][ \t]*['\"]?#\w",
    "tab": r"\t",
    "CRLF": r"\r\n",
    "non-ASCII": r"(?#non-ASCII)[^\x00-\x7f]",
})


def assert_all_agree(blocks: list[tuple[str, str]], min_quick: float) -> None:
    """Both loaders agree on each of ``blocks`` (``[(path, frontmatter)]``; a deterministic sample
    of them in CI, corpus_sample.sample_pages; every one with GBRAIN_FULL_CORPUS=1), and the quick
    loader takes at least ``min_quick`` of them all (the ones left out of the sample: its own
    load, in C, ~1/20 of a comparison)."""
    sample = sample_pages(blocks, SHAPES)
    quick = 0
    for path, fm in sample:
        try:
            quick += compare(fm)
        except AssertionError:
            raise AssertionError(f"{path}: the quick frontmatter loader differs from the full one") from None
    compared = {path for path, _ in sample}
    for path, fm in blocks:
        if path not in compared:
            quick += quick_takes(fm)
    # a guard against a silently disabled quick path
    assert quick >= min_quick * len(blocks), (quick, len(blocks))


def quick_takes(frontmatter_raw: str) -> bool:
    """Whether the quick loader takes a frontmatter block (as :func:`compare` counts it)."""
    try:
        markdown._quick_load(frontmatter_yaml(frontmatter_raw))
    except markdown._Unsure:
        return False
    return True


def test_every_corpus_frontmatter_loads_the_same_both_ways():
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora not available")
    blocks = frontmatters(CORPORA) + frontmatters(SHARED / "cases")
    assert len(blocks) > 5000
    assert_all_agree(blocks, min_quick=0.97)


def test_make_brain_frontmatter_loads_the_same_both_ways(tmp_path):
    tree = make_brain(tmp_path / "brain", int(os.environ.get("GBRAIN_FASTPARSE_PAGES", "2500")))
    blocks = frontmatters(tree)
    assert len(blocks) > 1000
    assert_all_agree(blocks, min_quick=0.97)


# ---- generated YAML: the scalars and shapes where a loader could part from the full one -------

AMBIGUOUS = [
    # booleans of YAML 1.1 only, and of 1.2
    "yes", "Yes", "YES", "no", "No", "on", "On", "off", "OFF", "y", "Y", "n", "N",
    "true", "True", "TRUE", "false", "False", "FALSE", "tRue",
    # null
    "~", "null", "Null", "NULL", "nULL", "",
    # integers: octal 1.1/1.2, hex, binary, underscores, sexagesimal, signs, leading zeros
    "0", "-0", "+0", "12", "+12", "-12", "012", "0o17", "0O17", "0o8", "0x1F", "0X1F", "0x", "0b101", "0b2",
    "1_000", "_1", "1__0", "-_", "0_", "1:20", "-1:20", "190:20:30", "99999999999999999999",
    # floats
    "1.0", "1.", ".5", "-.5", "+.5", "1e3", "1E3", "1.5e-3", "1e+3", "6.8523015e+5", "685.230_15e+03",
    "1:20.5", ".inf", "-.inf", "+.Inf", ".INF", ".nan", ".NaN", ".NAN", "nan", "inf", "1_0.5", "._5",
    # dates and timestamps, valid and not
    "2024-01-01", "2024-1-1", "2024-02-30", "0000-01-01", "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10", "2001-12-14T21:59:43Z", "2001-12-14 21:59:43 +5", "2001-12-14T25:00:00",
    "2002-12-14", "12:30:00", "2024-01-01T10:00", "2024-01-01 10:00:00.123456789",
    # merge, value and other special plain scalars
    "<<", "=", "-", "--", "...x", "@at", "`tick", "%pct", "a: b", "a #c", "a#b",
    # ordinary text
    "Ana Lima", "web:https://example.com", "[[Ana]]", "#tag", "é知", "x y", "O'Brien", "1st",
]
SCALAR = st.one_of(
    st.sampled_from(AMBIGUOUS).map(lambda s: (s, "plain")),
    st.sampled_from(AMBIGUOUS).map(lambda s: (s, "single")),
    st.sampled_from(AMBIGUOUS).map(lambda s: (s, "double")),
    st.text(alphabet=st.sampled_from(list("ab01-:.# _eE+xo~é")), max_size=8).map(lambda s: (s, "plain")),
)
TAGS = ["", "", "", "", "", "! ", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!!binary ", "!custom ", "!<tag:yaml.org,2002:str> "]
KEYS = ["title", "type", "tags", "aliases", "a", "b", "1", "01", "true", "yes", "~", "null", "2024-01-01", "1.0", "<<", "=", "'a'", '"1"', "? x"]


def scalar_text(pair: tuple[str, str], in_flow: bool) -> str:
    s, style = pair
    if style == "single":
        return "'" + s.replace("'", "''") + "'"
    if style == "double":
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if in_flow and any(c in s for c in ",[]{}"):
        return "x"
    return s


# the strategies are made once (module constants, ``value_at`` per depth), not per draw: a strategy
# object made inside a draw pays hypothesis' validation and labelling again each time (~3/4 of the
# generated test's CPU went there); the examples drawn are the same
KIND = {depth: st.sampled_from(["scalar"] * 4 + ["flow_seq", "flow_map", "alias"] + (["block_seq", "block_map"] if depth < 3 else [])) for depth in range(4)}
ANCHOR = st.sampled_from(["", "", "", "&a ", "&b "])
TAG = st.sampled_from(TAGS)
ALIAS = st.sampled_from(["*a", "*b"])
FLOW_SEQ = st.lists(SCALAR, max_size=4)
FLOW_SEQ_TAG = st.sampled_from(["", "", "!!set ", "!!seq "])
FLOW_MAP = st.lists(st.tuples(st.sampled_from(KEYS[:12]), SCALAR), max_size=3)
MAP_TAG = st.sampled_from(["", "", "!!omap ", "!!map "])
KEY = st.sampled_from(KEYS)
HEAD = st.sampled_from(["", "", "", "%YAML 1.1\n---\n", "%YAML 1.2\n---\n", "# comment\n"])


@functools.cache
def value_at(depth: int, indent: int) -> dict[str, st.SearchStrategy]:
    """The strategies of one depth: ``value`` itself, the items of a block sequence and of a block
    mapping below it (each made once)."""
    below = value_at(depth + 1, indent + 2)["value"] if depth < 3 else None
    return {
        "value": value(depth, indent),
        "block_seq": st.lists(below, min_size=1, max_size=3) if below else None,
        "block_map": st.lists(st.tuples(KEY, below), min_size=1, max_size=3) if below else None,
    }


@st.composite
def value(draw, depth: int, indent: int) -> str:
    """YAML text of one value placed after ``key:`` (starts with a space or a newline)."""
    kind = draw(KIND[depth])
    anchor = draw(ANCHOR)
    tag = draw(TAG)
    if kind == "scalar":
        return " " + anchor + tag + scalar_text(draw(SCALAR), False)
    if kind == "alias":
        return " " + draw(ALIAS)
    if kind == "flow_seq":
        items = draw(FLOW_SEQ)
        return " " + anchor + draw(FLOW_SEQ_TAG) + "[" + ", ".join(scalar_text(i, True) for i in items) + "]"
    if kind == "flow_map":
        items = draw(FLOW_MAP)
        return " " + anchor + "{" + ", ".join(f"{k}: {scalar_text(v, True)}" for k, v in items) + "}"
    pad = " " * (indent + 2)
    if kind == "block_seq":
        items = draw(value_at(depth, indent)["block_seq"])
        head = (" " + anchor.strip()) if anchor else ""
        return head + "".join(f"\n{pad}-{v}" for v in items)
    items = draw(value_at(depth, indent)["block_map"])
    head = (" " + anchor + draw(MAP_TAG)).rstrip()
    return head + "".join(f"\n{pad}{k}:{v}" for k, v in items)


PAIRS = st.lists(st.tuples(KEY, value_at(0, 0)["value"]), min_size=1, max_size=6)


@st.composite
def frontmatter(draw) -> str:
    pairs = draw(PAIRS)
    head = draw(HEAD)
    return "---\n" + head + "".join(f"{k}:{v}\n" for k, v in pairs) + "---\n"


@settings(max_examples=int(os.environ.get("GBRAIN_YAML_EXAMPLES", "600")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter())
def test_generated_frontmatter_loads_the_same_both_ways(fm):
    compare(fm)


@pytest.mark.parametrize(
    "yaml",
    [
        "a: yes\nb: no\nc: on\nd: 0o17\ne: 017\nf: 1:20\ng: 0x1F\nh: 1_000\ni: .5\nj: -.inf\nk: .nan\n",
        "created: 2024-01-01\nupdated: 2001-12-14t21:59:43.10-05:00\nwhen: 2001-12-14 21:59:43.10\n",
        "a: ~\nb:\nc: null\nd: True\ne: FALSE\n1: x\n2024-01-01: y\n1.5: z\n~: w\n",
        "a: &x 1\nb: *x\nc: &s text\nd: [*s, *s]\n",
        "title: Ana\ntags: [a, b]\nnested:\n  - {x: 1}\n  - [y, 2]\n",
        "- a\n- b\n",  # not a mapping: the same error text
    ],
)
def test_known_shapes_take_the_quick_path_and_agree(yaml):
    assert compare("---\n" + yaml + "---\n")


@pytest.mark.parametrize(
    "yaml",
    [
        "a: 1\na: 2\n",  # duplicate key: the full loader's error text
        "1: a\nTrue: b\n",  # keys equal in Python
        "a: &x [1]\nb: *x\n",  # an aliased collection
        "a: &x [*x]\n",  # recursive
        "base: &b {x: 1}\nc:\n  <<: *b\n",  # merge key
        "a: !!str 5\n",  # explicit tag
        "%YAML 1.1\n---\na: yes\n",  # directive
        "sources: [web:https://example.com]\n",  # libyaml refuses, the pure loader reads it
        "a: 2024-02-30\n",  # a date that does not exist: the full loader keeps it as text
        "? [a]\n: b\n",  # a non-scalar key
    ],
)
def test_unsure_shapes_take_the_full_loader(yaml):
    assert not compare("---\n" + yaml + "---\n")


def test_a_frontmatter_loads_the_same_whatever_was_loaded_before():
    # found by the property above: ruamel's loaders kept state between loads, so a `%YAML 1.1`
    # page read by the pure-Python loader turned a later page's `yes` into true, and a page
    # whose load failed gave another error text on its next load
    later = "---\nsources: [web:https://example.com]\nflag: yes\n---\n"
    assert load_frontmatter(later) == ({"sources": ["web:https://example.com"], "flag": "yes"}, None)
    assert load_frontmatter("---\n%YAML 1.1\n---\nsources: [web:x]\nflag: yes\n---\n")[0] == {"sources": ["web:x"], "flag": True}
    assert load_frontmatter(later) == ({"sources": ["web:https://example.com"], "flag": "yes"}, None)
    failing = "---\ntitle: yes\ntitle:\n  - !!timestamp yes\n---\n"
    first = load_frontmatter(failing)
    assert first[1] and all(load_frontmatter(failing) == first for _ in range(3))
