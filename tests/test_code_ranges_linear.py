"""``keyword._code_ranges`` and ``keyword.tag_spans`` scan a text in linear work (nextrun): each run of
backticks searched the next ``~~~`` (and the next blank line) to the end of the text, so a 3 MB text
with ~40,000 code spans and no ``~~~`` took ~29 CPU-s per call (docs/performance.md). Work is counted
as the characters the scans read (``str.find``/``rfind``/``in`` on the text, the module's patterns'
``search``/``match``), not timed; and the answers are the old implementation's (kept here as the oracle)."""
from __future__ import annotations

import bisect
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain.search import keyword

pytestmark = pytest.mark.engine_free


# ---- the oracle: the implementation before nextrun, verbatim (but for v83's line ends: CRLF and a
# lone CR end a line as LF does, in the fence's lines here and ``keyword._BLANK_LINE``) -----------

def _old_next_run(s, i, end):
    while True:
        b = s.find("`", i, end)
        t = s.find("~~~", i, end)
        if b < 0 and t < 0:
            return None
        if t < 0 or 0 <= b < t:
            return keyword._TICK_RUN.match(s, b)
        m = keyword._TILDE_RUN.match(s, t)
        if m.start() == 0 or s[t - 1] != "~":
            return m
        i = m.end()


def old_code_ranges(s):
    out = []
    i, n = 0, len(s)
    while True:
        m = _old_next_run(s, i, n)
        if m is None:
            return out
        a, run = m.start(), m.group()
        line = max(s.rfind("\n", 0, a), s.rfind("\r", 0, a)) + 1  # (since v83 CRLF and a lone CR end a line too)
        eol = min((x for x in (s.find("\n", m.end()), s.find("\r", m.end())) if x >= 0), default=-1)
        if len(run) >= 3 and a - line <= 3 and not s[line:a].strip(" \t") and not (run[0] == "`" and "`" in s[m.end():eol if eol >= 0 else n]):
            if eol < 0:
                out.append((a, n))
                return out
            c = re.compile(rf"(?:(?<=[\n\r])|\A)[ \t]{{0,3}}{re.escape(run[0])}{{{len(run)},}}[ \t]*(?=[\r\n]|\Z)").search(s, eol + 1)
            z = c.end() if c else n
            out.append((a, z))
            i = z
            continue
        if run[0] == "~":
            i = m.end()
            continue
        stop = keyword._BLANK_LINE.search(s, m.end())
        end = stop.start() if stop else n
        j, z = m.end(), -1
        while True:
            b = s.find("`", j, end)
            if b < 0:
                break
            k = keyword._TICK_RUN.match(s, b)
            if k.group() == run:
                z = k.end()
                break
            j = k.end()
        if z < 0:
            i = m.end()
            continue
        out.append((a, z))
        i = z


def old_tag_spans(s):
    if "<" not in s:
        return []
    out = []
    code = parsed = None
    for m in keyword._HTML_TAG.finditer(s):
        name = (m.group("close") or m.group("name")).replace(keyword.HIT_ON, "").replace(keyword.HIT_OFF, "").lower()
        if name not in keyword._HTML_NAMES and "=" not in (m.group("attrs") or ""):
            continue
        if code is None:
            code = old_code_ranges(s) if "`" in s or "~~~" in s else []
        a = m.start()
        if keyword._inside(code, a):
            continue
        if a and s[a - 1] == "\\" and keyword._backslashed(s, a):
            continue
        if parsed is None:
            ls = max(s.rfind("\n", 0, a), s.rfind("\r", 0, a)) + 1
            if "$" in s or "    " in s[ls:a] or "\t" in s[ls:a]:
                parsed = keyword._parsed_ranges(s)[0]  # (fastparse.literal_spans, merged)
        if parsed and keyword._inside(parsed, a):
            continue
        out.append((a, m.end(), name in keyword._INLINE_NAMES))
    return out


# ---- counting the characters scanned ---------------------------------------------------------------

class Meter:
    def __init__(self):
        self.chars = 0


class Counted(str):
    """A text whose scans count the characters they read into ``meter``."""
    meter: Meter

    def find(self, sub, start=0, end=None):
        end = len(self) if end is None else min(end, len(self))
        r = str.find(self, sub, start, end)
        self.meter.chars += max(0, (r + len(sub) if r >= 0 else end) - start)
        return r

    def rfind(self, sub, start=0, end=None):
        end = len(self) if end is None else min(end, len(self))
        r = str.rfind(self, sub, start, end)
        self.meter.chars += max(0, end - (r if r >= 0 else start))
        return r

    def __contains__(self, sub):
        self.meter.chars += len(self)
        return str.__contains__(self, sub)


class CountedPattern:
    def __init__(self, pat, meter):
        self.pat, self.meter = pat, meter

    def search(self, s, pos=0, endpos=None):
        end = len(s) if endpos is None else endpos
        m = self.pat.search(s, pos, end)
        self.meter.chars += max(0, (m.end() if m else end) - pos)
        return m

    def match(self, s, pos=0, endpos=None):
        m = self.pat.match(s, pos, len(s) if endpos is None else endpos)
        self.meter.chars += (m.end() - pos) if m else 1
        return m

    def __getattr__(self, name):
        return getattr(self.pat, name)


@pytest.fixture
def meter(monkeypatch):
    meter = Meter()
    for name in ("_BLANK_LINE", "_BLANK_LF", "_TICK_RUN", "_TILDE_RUN"):
        monkeypatch.setattr(keyword, name, CountedPattern(getattr(keyword, name), meter))
    if hasattr(keyword, "_fence_closer"):
        real = keyword._fence_closer
        monkeypatch.setattr(keyword, "_fence_closer", lambda *run: CountedPattern(real(*run), meter))
    return meter


def counted(text, meter):
    s = Counted(text)
    s.meter = meter
    return s


#: texts of many code spans and tags and no ``~~~`` (each shape one the scans were quadratic on)
SHAPES = {
    "paragraphs": "Some text with `code` and a <b>tag</b> here `x` more.\n\n" * 600,
    "no blank line": "Some text with `code` and a <b>tag</b> here `x` more.\n" * 600,
    "one line": "Some text with `code` and a <b>tag</b> here `x` more. " * 600,
    "unclosed runs": "".join(f"a {'`' * (k % 40 + 1)} b <i>c</i>\n" for k in range(600)),
    "fences": "```\ncode <b>x</b>\n```\n`s` <b>t</b> `u`\n" * 600,
}


@pytest.mark.parametrize("shape", SHAPES)
def test_code_ranges_reads_each_character_a_few_times(shape, meter):
    text = SHAPES[shape]
    want = old_code_ranges(text)
    meter.chars = 0
    assert keyword._code_ranges(counted(text, meter)) == want
    assert meter.chars <= 6 * len(text), (shape, meter.chars, len(text))


@pytest.mark.parametrize("shape", SHAPES)
def test_tag_spans_reads_each_character_a_few_times(shape, meter):
    text = SHAPES[shape]
    want = old_tag_spans(text)
    assert want  # (each shape has tags outside code)
    meter.chars = 0
    assert keyword.tag_spans(counted(text, meter)) == want
    assert meter.chars <= 10 * len(text), (shape, meter.chars, len(text))


_PIECES = st.sampled_from(["`", "``", "```", "````", "~", "~~~", "~~~~", "\n", "\n\n", "\n \n", " ", "   ", "    ", "\t",
                           "a", "bc", "<b>", "</b>", "<i>x</i>", "\\", "$", "\r", "\x02", "\x03", "-"])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_code_ranges_and_tag_spans_answer_as_before(text):
    assert keyword._code_ranges(text) == old_code_ranges(text)
    assert keyword.tag_spans(text) == old_tag_spans(text)


@pytest.mark.parametrize("text", [
    "", "`", "``", "`a`", "``a`b``", "a ``b` c", "```\nx\n```", "  ```js\nx\n  ```\nafter `y`",
    "~~~\n`a`\n~~~\n`b`", "~~~~\nx\n~~~\ny\n~~~~~\n`z`", "```a```", "``` a ` b\nc```", "`a\n\nb`", "`a\n \nb` `c`",
    "~~~~~~", "x ~~~ y `a` ~~~~ `b`", "````\n```\n````", "\t```\nx", "    ```\nx\n```", "`a``b`", "`` ` ``",
])
def test_code_ranges_table(text):
    assert keyword._code_ranges(text) == old_code_ranges(text)
    assert keyword._code_ranges(text + "\n<b>x</b> `q`") == old_code_ranges(text + "\n<b>x</b> `q`")


#: whole lines of the shapes the pieces above do not make (fences indented 0–4 blanks or a tab, a
#: fence's info string holding a backtick, runs of 5, ``~~~~`` against ``~~~``, an HTML block, code
#: spans left open across lines, NUL and an astral character), ended by ``\n``, ``\r\n`` or a lone ``\r``
_LINES = ["```", "````", "~~~", "~~~~", " ```", "  ~~~", "   ````", "    ```", "\t```", "```js `x`", "``` a ` b", "~~~ `x`", "",
          " ", "\t", "   \t", "text `code` <b>x</b>", "a `` b ` c `` d", "<div>\\<b>x</b></div>", "- <div>", "  \\<i>y</i>",
          "> <span class=a>q</span>", "$x<b>y</b>$", "    <b>ind</b>", "\t<i>tab</i>", "`open <b>z</b>", "close` <u>w</u>",
          "~~~~~~", "`````", "x\x00y <b>\U0001F600</b>", "1. <p>p</p>"]


def test_code_ranges_and_tag_spans_answer_as_before_line_by_line():
    # (a seeded differential over whole lines and every line end: 60,000 such texts and every
    # corpus page, ×8 spellings (CRLF, lone CR, tabs, longer fences, ~~~ fences, blank lines of
    # blanks, NUL and astral letters), answered as before at review, rnext)
    import random

    rnd = random.Random(20261206)
    for _ in range(1500):
        text = "".join(rnd.choice(_LINES) + (rnd.choice(["\n", "\r\n", "\r"]) if rnd.random() < 0.3 else "\n")
                       for _ in range(rnd.choice([3, 10, 30, 80])))
        assert keyword._code_ranges(text) == old_code_ranges(text), text
        assert keyword.tag_spans(text) == old_tag_spans(text), text


def test_a_text_without_cr_is_read_with_the_lf_patterns(monkeypatch):
    # (v83's patterns reading CR as a line end have no literal prefix: a blank line searched over
    # 3 MB without one took ~24 ms beside the LF pattern's ~1.6 ms, an unclosed fence's closer ~130
    # ms beside ~33 ms, load 17; a text without CR, nearly every page, is read with the LF ones,
    # the same answers: test_code_ranges_and_tag_spans_answer_as_before*)
    class Refused:
        def search(self, *a):
            raise AssertionError("the CR-aware blank line pattern read a text without CR")

    text = "a `b\n\nc` d `e`\n\n```js\ncode\n```\n~~~~\nx\n~~~~\n`e` `f\n \ng` ````\nopen"
    want = old_code_ranges(text)
    real = keyword._fence_closer
    asked = []

    def closer(*args):
        pat = real(*args)
        asked.append(pat.pattern)
        return pat

    monkeypatch.setattr(keyword, "_BLANK_LINE", Refused())
    monkeypatch.setattr(keyword, "_fence_closer", closer)
    assert keyword._code_ranges(text) == want
    assert asked and not [p for p in asked if "\\r" in p or "\r" in p], asked
