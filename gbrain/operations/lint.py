"""Operations for brain maintenance: ``lint`` (the maintain skill's checks) and ``threads``
(open-thread items across the brain, for the briefing skill). Logic lives in
:mod:`gbrain.core.lint`; these only map parameters and render text."""
from __future__ import annotations

from ..core import lint as lintmod
from ..errors import BadInput
from ..page.slugs import is_page_copy
from .registry import Nothing, Param, _since, cut_note, limit_param, obj, op


def _checks_arg(v: str | None) -> list[str] | None:
    if not v:
        return None
    names = [c.strip() for c in v.split(",") if c.strip()]
    if not names:
        raise BadInput("check is empty; give names separated by commas, e.g. dead_links,orphans")
    return names


#: what the checks find, for the command line's help (docs/lint.md documents each); a tool's
#: description names none: the `check` parameter lists them and each finding says what is wrong
_LINT_DETAILS = (
    "Checks: dead_links, dead_anchors (a [[Page#Heading]] / #^block the page lacks) and dead_attachments (![[image.png]], [pdf](x.pdf) "
    "naming no file in the brain; these two only when named in `check` or when slug names a few pages: brain-wide they read every page with a link), "
    "dead_nav_entries (a TOC.yml / _toc.yml / mkdocs.yml entry naming no page, with its line), orphans (a page a canvas or nav file lists is none), stale_compiled_truth (timeline newer than "
    "the frontmatter updated: date), open_threads (older than thread_days, or ticked done), tag_duplicates "
    "(yc-alum / yc_alum / YC Alum), embeddings (missing or stale), frontmatter_errors, duplicate_titles, conflicts (a sync's conflict copy still to merge and delete; "
    "copies are no orphans or duplicate titles; nor are pages of type briefing or report), conflict_markers (git's <<<<<<< / ======= / >>>>>>> "
    "left in a page by a merge, pull, rebase or stash pop that conflicted), portable_names (names one name on macOS/Windows: "
    "Note.md beside note.md, or a name Windows cannot hold). "
    "A dead link to a renamed page has moved_to and rewrites (old and new link). Exit 1 when anything is found; "
    "`findings` holds the same list as items for one release, then goes."
)


def _finding_id(f: dict) -> str:
    """A finding's identity for an agent's next page (:attr:`Operation.page_anchor`)."""
    return "\0".join(str(f.get(k)) for k in ("check", "slug", "target", "message"))


def _scope_params(fix: bool = False) -> list[Param]:
    """brain_lint's scope parameters; for brain_lint_fix (``fix``) each tool description says "as
    brain_lint's" (the same texts twice cost the tool list ~600 bytes), the CLI's help the whole text."""
    ps = [
        Param("check", description="comma-separated: " + ",".join(c + "*" * (c in lintmod.OPT_IN) for c in lintmod.CHECKS) + "; *: only when named", joins=",",
              details=f"(or when slug selects at most {lintmod.OPT_IN_NAMED} pages)"),
        Param("slug", "array", "only findings that touch these pages: slugs (a list or one comma-separated string); a folder "
              "ending in / means every page under it", details="applied before the limit"),
        Param("since", description="only findings that touch pages updated since: an ISO date/time or a span like 24h, 7d",
              details="an import or sync updates every page it stored: name your pages with `slug` then; applied before the limit"),
        Param("as_of", description="judge ages as of this date, YYYY-MM-DD (default: today, UTC)"),
        Param("thread_days", "integer", "an open thread is old after this many days", default=lintmod.DEFAULT_THREAD_DAYS, minimum=0),
        limit_param(100, "maximum findings listed per check, and fixes (0: all; counts are always complete)"),
    ]
    if fix:
        for q in ps:
            q.details = q.description + ("" if not q.details else f" {q.details}" if q.details.startswith("(") else f"; {q.details}")
            q.description = "as brain_lint's"
    return ps


_LINT_OUTPUT = obj("ok", "counts", ok="boolean", as_of="string", pages="integer", selected="integer?", checks="array", counts="object", truncated="object",
                   fixed="array", skipped="array", notes="object", dry_run="boolean", note="string")
_LINT_ITEM = obj("check", "message", check="string", slug="string?", message="string", action="string")
#: what brain_lint and brain_lint_fix answer alike: the report, its text, its items paged
_LINT_REPORT = dict(
    text=lambda r, a: lintmod.render_text(r),
    output=_LINT_OUTPUT,
    item=_LINT_ITEM,
    page="slice",
    page_key="items",  # as every other list tool (it was `findings`: page_alias keeps it for one release, not for MCP)
    page_alias="findings",
    page_anchor=_finding_id,  # an agent fixes findings between two pages: the next starts after the last still listed
)


@op(
    "lint",
    "Check the brain for problems to fix (changes nothing; `check` picks the checks). Findings are `items`: check, slug, "
    "message, a suggested action; ok is false when any. `slug` / `since` narrow it to the pages you touched. "
    "brain_lint_fix applies the lossless fixes.",
    _scope_params() + [
        Param("fix_safe", "boolean", "apply the lossless fixes first and report them (the same as `gbrain lint-fix`)", default=False, in_schema=False),
        Param("dry_run", "boolean", "with --fix-safe: list the fixes (page, old link, new link) without writing anything", default=False, in_schema=False),
    ],
    title="Check the brain for problems",
    details=_LINT_DETAILS,
    routes={"fix_safe": "lint-fix"},
    **_LINT_REPORT,
)
def _lint(b, a, ctx):
    if a.get("fix_safe"):  # the command line's `lint --fix-safe`: lint-fix, the operation that writes
        from .registry import run

        return run("lint-fix", {k: v for k, v in a.items() if k != "fix_safe" and v is not None}, ctx, brain=b)
    if a.get("dry_run"):
        raise BadInput("--dry-run: only with --fix-safe (`gbrain lint --fix-safe --dry-run`)")
    return _run_lint(b, a, ctx, fix_safe=False)


def _run_lint(b, a, ctx, fix_safe: bool) -> dict:
    r = lintmod.lint(
        b,
        checks=_checks_arg(a.get("check")),
        as_of=a.get("as_of"),
        thread_days=a.get("thread_days") if a.get("thread_days") is not None else lintmod.DEFAULT_THREAD_DAYS,
        limit=a.get("limit"),
        fix_safe=fix_safe,
        dry_run=bool(a.get("dry_run")),
        slugs=a.get("slug"),
        since=_since(a.get("since"), ctx.flag("since")),
    )
    cut = {k: n for k, n in r["truncated"].items() if n}
    if cut and ctx.agent:  # `limit` cuts each check before the pages: no cursor reaches the rest (trial 70)
        more = ", ".join(f"{n:,} more {k}" for k, n in cut.items())
        say = f"{more} than listed: --limit 0 lists them all, paged by next_cursor"
        r["note"] = f"{r['note']}; {say}" if r.get("note") else say
    return r  # `findings`, the old name of `items`: Operation.page_alias (registry.with_alias)


@op(
    "lint-fix",
    "Apply brain_lint's lossless fixes (tag spellings to the canonical one; links to a renamed or moved page to its new name), "
    "then lint: brain_lint's report with each fix under fixed. Each page saved is a new version; one changed since it was read is "
    "skipped. `dry_run` only lists the fixes; `check`, `slug` and `since` limit them as they limit brain_lint.",
    _scope_params(fix=True) + [
        Param("dry_run", "boolean", "list the fixes (page, old link, new link) without writing anything", default=False),
    ],
    mutating=True,  # losslessly: every version is kept
    title="Apply the lint's lossless fixes",
    details="A link is rewritten in the style it was written in, only when the old name leads to exactly one page. " + _LINT_DETAILS,
    idempotent=True,
    **_LINT_REPORT,
)
def _lint_fix(b, a, ctx):
    return _run_lint(b, a, ctx, fix_safe=True)


def _threads_text(r: list, a: dict) -> str:
    if not r:
        return Nothing("(no open threads)")
    out = []
    for t in r:
        when = f"{t['date']} ({t['age_days']}d)" if t["date"] else "undated"
        out.append(f"{t['slug']}:{t['line']}  {when}{'  [done]' if t['done'] else ''}  {t['text']}")
    return "\n".join(out)


@op(
    "threads",
    "Open threads: items under an 'Open Threads' heading and open tasks (`- [ ]`) anywhere, oldest first, with "
    "page, line, newest date written in it, age in days; undated ones last (`dated` drops them), ticked ones done.",
    [
        Param("type", description="only pages of this type (person, company, deal, …)"),
        Param("tag", description="only pages with this tag"),
        Param("older_than", "integer", "only items at least this many days old (plus ticked-done ones)", minimum=0),
        Param("dated", "boolean", "only items with a date written in them (plus ticked-done ones)",
              details="the time-sensitive ones, without the undated items a big brain has many of", default=False),
        Param("as_of", description="count ages as of this date, YYYY-MM-DD (default: today, UTC)"),
        limit_param(100, "maximum number of items (0: all)"),
    ],
    title="Open threads",
    item=obj("slug", "text", slug="string", title="string?", type="string?", text="string", done="boolean", line="integer", date="string?", age_days="integer?"),
    page="limit",
    text=_threads_text,
    note=cut_note,
    # keyset pages: a thread written between two pages moves no item of a page left unchanged
    page_seek=lambda a, it: _thread_position(it),
)
def _threads(b, a, ctx):
    items = lintmod.open_threads(b.conn, as_of=a.get("as_of"), type=a.get("type"), tag=a.get("tag"), older_than=a.get("older_than"),
                                 dated=bool(a.get("dated")))
    # a conflict copy repeats its page's threads (trial 70): left out, said
    kept = [it for it in items if not is_page_copy(it["slug"])]
    if len(kept) < len(items) and ctx.on_warning:
        left, copies = len(items) - len(kept), len({it["slug"] for it in items} - {it["slug"] for it in kept})
        ctx.on_warning(f"{left:,} item{'s' * (left != 1)} of {copies:,} conflict cop{'y' if copies == 1 else 'ies'} left out (a copy repeats "
                       "its page's): `gbrain conflicts` names the copies, `gbrain get COPY` reads one")
    items = kept
    if ctx.after is not None:  # (the items' order: open_threads sorts them by this position)
        at = ctx.after
        if len(at) != 4 or type(at[0]) is not int or not isinstance(at[1], str) or not isinstance(at[2], str) or type(at[3]) is not int:
            raise BadInput("threads: a position is [undated, date, slug, line]")
        items = [it for it in items if _thread_position(it) > at]
    return items[: a["limit"]] if a.get("limit") else items


def _thread_position(it: dict) -> list:
    """An open thread's position in :func:`~gbrain.core.lint.open_threads`' order: ``[undated (0/1),
    date ('' when none), slug, line]``."""
    return [int(it["date"] is None), it["date"] or "", it["slug"], it["line"]]
