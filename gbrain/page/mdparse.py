"""mistune's parsers as gbrain uses them, split from :mod:`gbrain.page.markdown` so that module
imports without mistune (a command that only reads stored pages never parses markdown);
:func:`gbrain.page.markdown._markdown` builds the one parser from these on first use."""
from __future__ import annotations

import re

import mistune
from mistune.block_parser import BlockParser
from mistune.inline_parser import InlineParser
from mistune.plugins import footnotes as _footnotes
from mistune.plugins import math as _math


_COMMENT_PATTERN = r"^ {0,3}%%(?P<comment_rest>[^\n]*)"


def comment_block_eol(src: str, m) -> int | None:
    """Where the line closing an Obsidian ``%%`` comment block opened by match ``m`` (of
    :data:`_COMMENT_PATTERN`) ends in ``src`` (the index of its newline, or ``len(src)``), or None
    when it is no comment block (unclosed, or closed with text after it on the line)."""
    close = m.group("comment_rest").find("%%")
    if close >= 0:
        end = m.start("comment_rest") + close + 2
    else:
        i = src.find("%%", m.end())
        if i < 0:
            return None
        end = i + 2
    eol = src.find("\n", end)
    eol = len(src) if eol < 0 else eol
    return None if src[end:eol].strip() else eol


def _parse_obsidian_comment(block, m, state):
    """An Obsidian comment block: a line opening with ``%%`` up to the line that closes it with
    ``%%`` (Obsidian does not render it, so a ``---`` inside is no separator and a link inside
    is no link). Unclosed, or closed with text after it on the line: not a comment block."""
    src = state.src
    eol = comment_block_eol(src, m)
    if eol is None:
        return None
    state.append_token({"type": "obsidian_comment", "raw": src[m.start() : eol]})
    return eol + 1 if eol < len(src) else eol


def _parse_footnote_def(block, m, state):
    """A footnote definition (``[^1]: text``, mistune's footnotes plugin pattern: continuation
    lines indented under it) as a ``footnote_def`` token whose children are the blocks of its
    text, read as the plugin reads a footnote's text, so links and tags inside it count; never a
    link reference definition (Obsidian, GFM and Pandoc read ``[^x]`` as a footnote, never as a
    link, so ``[^1]`` in the text stays plain text)."""
    text = m.group("footnote_text")
    lines = text.splitlines()
    second = next((ln for ln in lines[1:] if ln), None)
    if second:
        spaces = len(second) - len(second.lstrip())
        text = re.sub(r"^ {" + str(spaces) + r",}", "", text, flags=re.M).strip()
        child = state.child_state(text + "\n")
        block.parse(child)
        children = child.tokens
    else:
        children = [{"type": "paragraph", "text": text.strip()}]
    state.append_token({"type": "footnote_def", "children": children})
    return m.end()


class _SpanBlockParser(BlockParser):
    """mistune's block parser, recording the source span of each top-level block whose lines are
    not markdown: fenced code, HTML blocks and comments (CommonMark's HTML block rules),
    ``$$ … $$`` math (mistune's math plugin pattern) and Obsidian ``%% … %%`` comments.
    A ``---`` line inside one of them is not the compiled-truth/timeline separator."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.register("block_math", _math.BLOCK_MATH_PATTERN, self._opaque(_math.parse_block_math), before="fenced_code")
        self.register("obsidian_comment", _COMMENT_PATTERN, self._opaque(_parse_obsidian_comment), before="fenced_code")
        # footnote definitions wherever a link reference definition may stand (lists, quotes too)
        self.register("footnote_def", _footnotes.REF_FOOTNOTE, _parse_footnote_def, before="ref_link")
        for rules in (self.list_rules, self.block_quote_rules):
            rules.insert(rules.index("ref_link"), "footnote_def")

    @staticmethod
    def _opaque(func):
        def parse(block, m, state):
            end = func(block, m, state)
            if end is not None and state.parent is None:
                state.env.setdefault("opaque", []).append((m.start(), end))
            return end

        return parse

    def parse_block_quote(self, m, state):  # type: ignore[override]
        """mistune's block quote, kept before the blocks parsed after it. A quote that a list,
        a rule, a fence or an HTML block ends (no blank line between) is made after that block
        was parsed, and mistune 3.4 then inserts it before the *last* token only
        (``BlockState.prepend_token``): when that block's parse took more blocks (a list ended
        by the next quote), the quote landed after them (``> a`` / ``- b`` / ``> c``: list,
        quote, quote). Here it goes before every token added since it began."""
        n = len(state.tokens)
        own = vars(state)
        had, before = "prepend_token" in own, own.get("prepend_token")
        state.prepend_token = lambda token: state.tokens.insert(n, token)
        try:
            return super().parse_block_quote(m, state)
        finally:
            if had:
                state.prepend_token = before
            else:
                del state.prepend_token

    def parse_fenced_code(self, m, state):  # type: ignore[override]
        end = super().parse_fenced_code(m, state)
        if end is not None and state.parent is None:
            state.env.setdefault("opaque", []).append((m.start(), end))
        return end

    def parse_raw_html(self, m, state):  # type: ignore[override]
        n = len(state.tokens)
        end = super().parse_raw_html(m, state)
        # an HTML block (not a line of HTML continuing a paragraph)
        if end is not None and state.parent is None and len(state.tokens) > n and state.tokens[-1]["type"] == "block_html":
            state.env.setdefault("opaque", []).append((m.start(), end))
        return end


_WIKI_PATTERN = r"(?P<wiki_bang>!?)\[\[(?P<wiki_body>[^\[\]\n]+?)\]\]"


def wikilink_token(m) -> dict:
    """The ``wikilink`` token of a match of :data:`_WIKI_PATTERN`: ``raw`` (the match) and
    ``attrs`` ``target`` (before ``|``, a table's escaping backslash dropped), ``alias`` (after
    ``|``, or ``''``), ``embed`` (written ``![[…]]``)."""
    target, _, alias = m.group("wiki_body").partition("|")
    target = target.rstrip("\\")  # `[[a\|b]]` inside tables
    return {
        "type": "wikilink",
        "raw": m.group(0),
        "attrs": {"target": target.strip(), "alias": alias.strip(), "embed": bool(m.group("wiki_bang"))},
    }


def _parse_wikilink(inline, m, state):
    state.append_token(wikilink_token(m))
    return m.end()


def _wikilink_plugin(md, inline=None):
    (inline or md.inline).register("wikilink", _WIKI_PATTERN, _parse_wikilink, before="link")


class _EscapeMarkingInline(InlineParser):
    """mistune's inline parser whose escaped ``\\#`` is a text token of its own marked
    ``escaped``: Obsidian reads no tag at an escaped ``#`` (``From \\#Tag``), and mistune's own
    token is a bare ``#`` its finalize step may merge with its neighbours. The mark rides through
    that step as a token of another type, made text again after it."""

    def parse_escape(self, m, state):  # type: ignore[override]
        if m.group(0) == "\\#":
            state.append_token({"type": "escaped_hash", "raw": "#"})
            return m.end()
        return super().parse_escape(m, state)

    def parse(self, state):  # type: ignore[override]
        tokens = super().parse(state)  # (finalized: text tokens coalesced, unknown keys dropped)
        if "\\#" in state.src:  # (a text without one has no mark to undo: no walk)
            _unmark(tokens)
        return tokens


def _unmark(tokens: list) -> None:
    """Make each ``escaped_hash`` token of ``tokens`` (any depth) a text token marked ``escaped``."""
    for i, tok in enumerate(tokens):
        if tok["type"] == "escaped_hash":
            tokens[i] = {"type": "text", "raw": "#", "escaped": True}
        elif "children" in tok:
            _unmark(tok["children"])


#: inline rules that matter for links: code spans and raw HTML hide links, escapes hide brackets
_LINK_RULES = ["escape", "codespan", "wikilink", "link", "link_close", "inline_html", "softbreak"]


class _LinkMarkdown(mistune.Markdown):
    """mistune's Markdown, running inline parsing only where it can find something we use.

    Headings get the full inline parser (titles are their plain text). Other blocks whose text
    holds a ``[`` (every markdown and wiki link does) get a second inline parser with only the
    rules links depend on (no emphasis: it cannot hide or create a link, and it dominates the
    cost). Blocks with a ``#`` (a possible inline tag) or a ``%%`` (an inline comment, which a code span may hide) are parsed the same way. Blocks without ``[`` or ``#`` keep their text as one plain text token."""

    def __init__(self, *a, **kw):
        kw.setdefault("inline", _EscapeMarkingInline())
        super().__init__(*a, **kw)
        self.link_inline = _EscapeMarkingInline()
        _wikilink_plugin(self, self.link_inline)
        self.link_inline.rules = [r for r in _LINK_RULES if r in self.link_inline._methods]

    def _iter_render(self, tokens, state):
        for tok in tokens:
            if "children" in tok:
                tok["children"] = list(self._iter_render(tok["children"], state))
            elif "text" in tok:
                text = tok.pop("text")
                if tok["type"] == "heading":
                    tok["children"] = self.inline(text.strip(" \r\n\t\f"), state.env)
                elif "[" in text or "#" in text or "%%" in text:  # links, a #tag or a %% comment a code span may hide
                    tok["children"] = self.link_inline(text.strip(" \r\n\t\f"), state.env)
                else:
                    tok["children"] = [{"type": "text", "raw": text}]
            yield tok
