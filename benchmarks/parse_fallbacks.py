#!/usr/bin/env python3
"""What the parse's fast path leaves to mistune, per reason, with mistune's CPU for it (issue 14).

For each tree: the pages ``fastparse.parse_blocks`` sends to mistune whole (by the reason its
``_Unsupported`` names, or ``refdef/footnote def``), and, on the other pages, the link-bearing
block texts ``fastparse._link_tokens`` declines (by a rough reason: what the scan met first that
it does not read), each with the CPU mistune's parser then spends on it (``process_time``).

    python benchmarks/parse_fallbacks.py [TREE ...]   (default: the corpora in ../shared/corpora)
"""
from __future__ import annotations

import collections
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.page import fastparse, markdown  # noqa: E402

CORPORA = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared") / "corpora"


def bodies(root: Path) -> list[tuple[str, str]]:
    """(path, LF body ending in a newline) of every UTF-8 ``.md`` file under ``root``."""
    out = []
    for dp, dn, fn in os.walk(root):
        dn[:] = sorted(d for d in dn if d != ".git")
        for name in sorted(fn):
            if not name.endswith(".md"):
                continue
            p = Path(dp) / name
            try:
                text = p.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue
            body = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)[1]
            body = body.replace("\r\n", "\n").replace("\r", "\n")
            out.append((p.relative_to(root).as_posix(), body if body.endswith("\n") else body + "\n"))
    return out


def block_reason(body: str) -> str | None:
    if "]:" in body and fastparse._REFDEF_RE.search(body):
        return "refdef/footnote def"
    try:
        if ("%%" in body or "$$" in body) and fastparse._OPAQUE_START_RE.search(body):
            fastparse._with_opaque_blocks(body)
        else:
            fastparse._Builder(body).run()
    except fastparse._Unsupported as e:
        return str(e)
    return None


def inline_reason(text: str) -> str:
    """What ``_link_tokens`` met first that it does not read (a rough replay of its scan)."""
    if "\\" in text:
        return "backslash escape"
    for m in re.finditer(r"!?\[", text):
        a = m.start()
        if fastparse._WIKI_RE.match(text, a) or fastparse._MD_LINK_RE.match(text, a) or fastparse._BRACKET_TEXT_RE.match(text, a):
            continue
        j = text.find("]", m.end())
        if j < 0:
            continue
        label = text[m.end() : j]
        if "[" in label:
            return "nested [ in a label"
        if "`" in label:
            return "code span in a label"
        if "\n" in label:
            return "line break in a label"
        if "<a" in label.lower():
            return "<a> in a label"
        if text.startswith("(<", j + 1):
            return "destination in <…>"
        if text.startswith("(", j + 1):
            return "other destination"
    if re.search(r"</?a[ >]", text, re.I):
        return "<a> tag"
    return "other"


def measure(root: Path) -> None:
    md = markdown._markdown()
    pages = bodies(root)
    bcnt: collections.Counter = collections.Counter()
    bcpu: collections.Counter = collections.Counter()
    icnt: collections.Counter = collections.Counter()
    icpu: collections.Counter = collections.Counter()
    taken = 0
    for _path, body in pages:
        why = block_reason(body)
        if why is not None:
            t = time.process_time()
            md.parse(body, md.block.state_cls())
            bcpu[why] += time.process_time() - t
            bcnt[why] += 1
            continue
        stack = list(fastparse.parse_blocks(body)[0])
        while stack:
            tok = stack.pop()
            if "children" in tok:
                stack.extend(tok["children"])
                continue
            text = tok.get("text")
            if text is None or tok["type"] == "heading" or not ("[" in text or "#" in text or "%%" in text):
                continue
            text = text.strip(" \r\n\t\f")
            if fastparse._link_tokens(text, md.link_inline) is not None:
                taken += 1
                continue
            why = inline_reason(text)
            t = time.process_time()
            md.link_inline(text, {})
            icpu[why] += time.process_time() - t
            icnt[why] += 1
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n== {root.name}: {len(pages):,} pages; load average {load}")
    print(f"  pages to mistune: {sum(bcnt.values()):,} ({sum(bcpu.values()):.2f} CPU-s)")
    for k, n in bcnt.most_common():
        print(f"    {n:6,}  {bcpu[k]:6.2f} s  {k}")
    print(f"  link texts: {taken:,} taken by the scanner, {sum(icnt.values()):,} to mistune ({sum(icpu.values()):.2f} CPU-s)")
    for k, n in icnt.most_common():
        print(f"    {n:6,}  {icpu[k]:6.2f} s  {k}")


def main() -> None:
    trees = [Path(a) for a in sys.argv[1:]] or sorted(d for d in CORPORA.iterdir() if d.is_dir() and any(d.rglob("*.md")))
    for t in trees:
        measure(t)


if __name__ == "__main__":
    main()
