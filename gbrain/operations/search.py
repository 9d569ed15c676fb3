"""Operations ``embed`` and ``query`` (CLI commands, MCP tools ``brain_embed`` / ``brain_query``)."""
from __future__ import annotations

import sys

from ..errors import BadInput, GBrainError
from .registry import PREFIX, RANK_DEPTH, SINCE, TAG, TYPE, Cancelled, _since, Context, Nothing, Param, copy_mark, limit_param, obj, op, read_slug

#: default for config ``embed_confirm_usd``: an agent's embed run estimated above this many US
#: dollars on a paid endpoint needs ``confirm: true``
CONFIRM_USD = 0.10


def _number(config: dict, key: str, default: float, unit: str) -> float:
    """Config ``key`` as a number (``default`` when unset or empty). Raises BadInput naming the
    key and ``unit`` when it is not a number."""
    v = config.get(key)
    try:
        return float(str(v).strip()) if v not in (None, "") else default  # (float keeps U+001C-U+001F)
    except ValueError as e:
        raise BadInput(f"config {key} must be {unit}, got {v!r}") from e


def _confirm_usd(config: dict) -> float:
    return _number(config, "embed_confirm_usd", CONFIRM_USD, "a number of US dollars")


#: default for config ``embed_agent_seconds``: an agent's embed call with a local model and no
#: ``limit`` stops after the group that ends past this many seconds, answering ``left`` and
#: "call again" (the MCP clients' request timeouts are about a minute; a big brain with minilm
#: takes many). A paid endpoint has no such bound: its cost is confirmed for the whole selection
#: (``embed_confirm_usd``), which a run cut in calls would each estimate apart. 0: no bound
AGENT_SECONDS = 30.0


def _agent_seconds(config: dict) -> float:
    return _number(config, "embed_agent_seconds", AGENT_SECONDS, "a number of seconds (0: no bound)")


#: above this many chunks to embed, a paid provider's run is announced with tokens and cost
ANNOUNCE_CHUNKS = 1000


#: the embedding model notes this process has said (:func:`_embed`)
_NOTED: set[str] = set()


#: what a paid model's cost is when its price is not known
UNKNOWN_PRICE = "price unknown (give it: gbrain config set embedding_price_per_mtok USD)"


def usd(x: float) -> str:
    """US dollars with enough digits to show a small amount (``$0.0005``, not ``$0.00``): two
    decimals from a cent up (thousands grouped), else two significant digits."""
    if x == 0 or abs(x) >= 0.01:
        return f"${x:,.2f}"
    import math

    s = f"{x:.{max(2, 1 - math.floor(math.log10(abs(x))))}f}".rstrip("0")
    return "$" + (s + "0" if s.endswith(".") else s)


def _say(ctx: Context, msg: str) -> None:
    """A message for the person now (stderr), not at the end like warnings."""
    fn = getattr(ctx, "on_message", None)
    if fn:
        fn(msg)
    else:
        try:  # a stderr that cannot take it (2>/dev/full, a closed log) loses the message, not the work
            sys.stderr.write(msg.rstrip("\n") + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _embed_text(r: dict, a: dict) -> str:
    if r.get("dry_run"):
        p = r["plan"]
        s = f"would embed {p['pages']:,} page(s): {p['chunks']:,} chunks, {p['to_embed']:,} to send to {r['model']} (~{p['tokens']:,} tokens"
        s += (f", {UNKNOWN_PRICE})" if p["estimated_cost_usd"] is None else f", ~{usd(p['estimated_cost_usd'])})") if p["paid"] else ")"
        s += _split_said(p.get("split"))
        return s + (f"; {r['left']:,} more page(s) after these" if r.get("left") else "")
    s = (
        f"embedded {r['pages']:,} page(s) with {r['model']}: {r['chunks']:,} chunks "
        f"({r['embedded']:,} new, " + (f"{r['repeated']:,} repeated, " if r.get("repeated") else "") + f"{r['cached']:,} from cache)"
    )
    s += _split_said(r.get("split"))
    if r.get("dropped"):
        s += f"; replaced {r['dropped']:,} chunks of another vector size"
    if r.get("skipped"):
        lower = next((k["chunk_tokens"] for k in r["skipped"] if k.get("chunk_tokens")), None)
        s += f"\nskipped {len(r['skipped']):,} page(s) the server refused (they stay stale" + (
            f"; too long for its model: `gbrain config set embedding_chunk_tokens {lower}`" if lower else "") + "):" + "".join(
            f"\n  {k['slug']}  chunk {k['chunk']}" + (f" ({k['heading']})" if k.get("heading") else "")
            + ("" if k.get("chunk_tokens") else f": {k['error']}") for k in r["skipped"])
    if r.get("changed"):
        names = r.get("changed_slugs") or []
        more = r["changed"] - len(names)
        s += (f"\n{r['changed']:,} page(s) changed (or were deleted) while being embedded: not stored, they stay to embed; run `gbrain embed` again"
              + ":" * bool(names) + "".join(f"\n  {n}" for n in names) + (f"\n  … {more:,} more" if names and more > 0 else ""))
    if r.get("left"):
        s += f"\n{r['left']:,} more page(s) to embed: run it again"
    return s


def _split_said(n) -> str:
    """``; N chunk(s) split for the model's window`` (its own tokenizer counted more than it reads), or ''."""
    return f"; {n:,} chunk(s) split for the model's window (its tokenizer counted more than it reads)" if n else ""


LONG_ESTIMATE_SECONDS = 600  # a local run estimated this long names the ways to start sooner (trial 24: 111 min announced, no way out)


def _sooner(model_id: str) -> str:
    """The tail of a long local estimate: how a person starts searching by meaning sooner (a first
    batch with ``--limit``; minilm's faster, weaker sibling wordllama): a string starting with ``"; "``,
    appended to the estimate line."""
    other = " or `gbrain config set embedding_model wordllama` (many times faster, ranks less well)" if model_id == "minilm" else ""
    return f"; to start sooner: `gbrain embed --limit 200` embeds 200 pages now (run it again for more){other}"


def _ask_window(b, model, ctx) -> bool:
    """Ask the server of ``model`` once for its window (``Brain.learn_server_window``, shared with
    ``watch --embed``) and say the budget it gives: True when it gives one (the model is to be
    made again)."""
    said = b.learn_server_window(model)
    if said:
        _say(ctx, said)
    return bool(said)


def _note_retries(model, ctx) -> None:
    """Have ``model`` say each wait to retry as a note on ``ctx``'s stderr, or (``ctx`` None) no
    more: a model kept by a long process (serve) holds no finished call's context."""
    if hasattr(model, "on_retry"):
        model.on_retry = (lambda m: _say(ctx, "note: " + m)) if ctx is not None else None


@op(
    "embed",
    "Embed pages for semantic search (brain_query) with the active model: with no argument the pages changed since their last "
    "embedding (`stale`). Unchanged chunks are never embedded again. A page whose chunk the server refuses is named in `skipped`. "
    "With a local model and no `limit` a call stops after ~30 s: `left` pages remain, call again.",
    [
        Param("slug", description="embed this page only", positional=True),
        Param("all", "boolean", "every page (re-chunked; cached vectors are reused)", default=False),
        Param("force", "boolean", "every page, sending every chunk to the provider again (no cached vector reused)",
              details="when the server's vectors changed size, the model's old vectors are replaced", default=False),
        Param("stale", "boolean", "pages never embedded with the active model or changed since (the default)", default=False),
        Param("dry_run", "boolean", "only report pages, chunks, tokens and estimated cost", default=False),
        limit_param(None, "at most this many pages of the selection (0: all, the default); `left` says how many remain",
                    details="a big brain with a local model takes minutes: embed it in parts, each call within the client's request timeout"),
        Param("confirm", "boolean", "go ahead when a paid endpoint's estimated cost is above config embed_confirm_usd", default=False, cli=False),
    ],
    db="existing",
    text=_embed_text,
    mutating=True,
    own_connection=True,
    title="Embed pages for semantic search",
    details="That bound is an agent's (MCP, `call`, `pipe`): the command line runs to the end, with a progress line. "
    "Pages are cut in chunks (## sections, timeline entries), one vector each, with the model of config embedding_model "
    "(without OPENAI_API_KEY an offline model: minilm, or wordllama). A chunk the server refuses (too long for its context) "
    "skips its page (exit 1); the rest is stored.",
    idempotent=True,
    open_world=True,  # with an OpenAI-compatible model it sends page text to that endpoint
    output=obj("model", model="string", note="string?", plan="object", dry_run="boolean", needs_confirm="boolean", message="string",
               pages="integer", chunks="integer", embedded="integer", cached="integer", repeated="integer", cancelled="boolean",
               skipped="array", dropped="integer", changed="integer", changed_slugs="array", exit_code="integer", left="integer"),
)
def _embed(b, a, ctx):
    picked = [k for k in ("slug", "all", "stale", "force") if a.get(k)]
    if len(picked) > 1 and set(picked) != {"all", "force"}:
        raise BadInput(f"give one of {'slug' if ctx.agent else 'SLUG'}, {ctx.flag('all')}, {ctx.flag('stale')} or {ctx.flag('force')}")
    from ..search import vectors
    from ..search.embeddings import chunking_of
    from ..search.vectors import DimsChanged, active_model, embed_pages, plan_embed, sample_rate, select_pages  # numpy and providers load only when used

    started = vectors._clock()
    # each group of vectors is committed once its provider answered, cancelled or not (embed stops
    # at check_stop between batches and groups instead): what was paid for is kept
    kept = lambda: b.transaction(stop=False)  # noqa: E731
    model, note = active_model(b.conn, b.config())
    if _ask_window(b, model, ctx):
        model, note = active_model(b.conn, b.config())  # cut at the budget the server's window gives
    if note and note not in _NOTED:  # said once per process (a pipe's or serve's every call said it again; trial 32): the result's `note` holds it each time
        _NOTED.add(note)
        # a key left unsent is a warning, as `query` says it (trial 64: `note:` here, `warning:` there)
        _say(ctx, ("warning: " if getattr(model, "key_note", None) and model.key_note in note else "note: ") + note)
    if a.get("slug"):
        row = b.resolve_slug(read_slug(b, a["slug"], ctx)[0])  # a renamed page's old name: the page, with a warning (as writes follow it)
        rows = select_pages(b.conn, model.model_id, "ids", [row["id"]])
    else:
        rows = select_pages(b.conn, model.model_id, "all" if (a.get("all") or a.get("force")) else "stale", chunking=chunking_of(model))
    force = bool(a.get("force"))
    left = max(0, len(rows) - a["limit"]) if a.get("limit") else 0
    if left:
        rows = rows[: a["limit"]]
    # (the plan's progress only where a surface can label it as its own phase, the CLI: an MCP
    # client's one progress stream per request stays the chunks embedded, one total, each
    # notification's progress growing, as the spec wants)
    if ctx.progress_label:
        ctx.progress_label(f"Planning ({model.model_id}, pages)")
    plan, work = plan_embed(b.conn, model, rows, force=force, on_progress=ctx.on_progress if ctx.progress_label else None)
    out = {"model": model.model_id, "note": note, "plan": plan.as_dict(), "left": left}
    if a.get("dry_run"):
        return {**out, "dry_run": True}
    limit_usd = _confirm_usd(b.config())
    if ctx.agent and plan.paid and plan.to_embed and (plan.cost is None or plan.cost > limit_usd) and not a.get("confirm"):
        # an agent learns the cost before anything is sent; a person at the CLI sees it announced
        # (a price not known is never read as free: trial 64)
        cost = (f"{UNKNOWN_PRICE}, so it may be above config embed_confirm_usd {usd(limit_usd)}" if plan.cost is None
                else f"estimated {usd(plan.cost)}, above config embed_confirm_usd {usd(limit_usd)}")
        return {**out, "needs_confirm": True, "message": (
            f"this would send {plan.to_embed:,} chunks (~{plan.tokens:,} tokens) to {model.model_id}, "
            f"{cost}; call brain_embed again with confirm: true to go ahead")}
    sampled: set[str] = set()  # the time sample's texts: sent by this run, counted as new
    if plan.paid and plan.to_embed > ANNOUNCE_CHUNKS:
        _say(ctx, f"embedding {plan.chunks:,} chunks (" + (f"{plan.to_embed:,} to embed, " if plan.to_embed != plan.chunks else "")
             + f"~{plan.tokens:,} tokens) with {model.model_id}: " + (UNKNOWN_PRICE if plan.cost is None else f"estimated cost {usd(plan.cost)}"))
    elif plan.to_embed > ANNOUNCE_CHUNKS and not plan.paid and not force:
        # a local model: time a sample on this machine, now (its load included), not a constant;
        # a provider waiting to retry says so from its first request (trial 39: the sample's retries
        # were silent, 35 s of a 500 storm, 7 minutes of a hung server)
        _note_retries(model, ctx)
        try:
            rate, n = sample_rate(b.conn, model, work, transaction=kept, sent=sampled)
        finally:
            _note_retries(model, None)
        if rate > 0:
            secs = plan.tokens / rate
            took = f"{secs / 60:.0f} min" if secs >= 90 else f"{secs:.0f} s"
            per_chunk = plan.tokens / max(plan.to_embed, 1)
            _say(
                ctx,
                f"embedding {plan.chunks:,} chunks ("
                + (f"{plan.to_embed:,} to embed, " if plan.to_embed != plan.chunks else "")
                + f"~{plan.tokens:,} tokens) with {model.model_id}: roughly {took} "
                f"at {rate / per_chunk:,.1f} chunks/s, timed on {n} chunks here just now; an interrupted run continues with `gbrain embed --stale`"
                + (_sooner(model.model_id) if secs >= LONG_ESTIMATE_SECONDS and not ctx.agent else ""),
            )
    if ctx.progress_label:
        ctx.progress_label(f"Embedding ({model.model_id})")
    secs = 0.0  # an agent's time bound (config embed_agent_seconds), or none
    if ctx.agent and a.get("limit") is None and not a.get("slug") and not plan.paid:
        secs = _agent_seconds(b.config())
    until = started + secs if secs > 0 else None

    def run(work):
        _note_retries(model, ctx)  # a provider waiting to retry says so (trial 28: 24 s silent, up to minutes)
        try:
            return embed_pages(b.conn, model, work, on_progress=ctx.on_progress, transaction=kept, check_stop=ctx.check_cancel, force=force,
                               until=until, sampled=sampled)
        except (Cancelled, DimsChanged):
            raise
        except GBrainError as e:
            again = "call brain_embed again (no arguments)" if ctx.agent else "run `gbrain embed --stale`"
            err = GBrainError(f"{e} (finished pages are saved; {again} to continue)")
            err.kind, err.exit_code = e.kind, e.exit_code  # a provider's failure stays provider_error for a program
            raise err from e
        except KeyboardInterrupt as e:
            _say(ctx, "interrupted: finished pages are saved; run `gbrain embed --stale` to continue")
            e.said = True  # (the command line's own "interrupted" would say it twice: entry.py)
            raise
        finally:
            _note_retries(model, None)

    stats = run(work)
    if a.get("slug") and stats["changed"]:
        # the one page asked for was written while it was embedded (a watch of a person's save, trial 56:
        # `embedded: 0`, read as a failure): cut its text as it is now and embed that, once (the vectors
        # of its unchanged chunks wait in the cache: only the new texts are sent)
        again = select_pages(b.conn, model.model_id, "ids", [row["id"]])
        if again:
            stats = _added(stats, run(plan_embed(b.conn, model, again, force=force)[1]))
    ids = stats.pop("changed_ids", [])[:CHANGED_NAMED]
    if ids:  # named: the page a watch (a person's save) or another writer wrote meanwhile; a page moved since by its new name
        names = {r["id"]: r["slug"] for r in rows}
        now = dict(b.conn.execute(f"SELECT id, slug FROM pages WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall())
        stats["changed_slugs"] = [now.get(i, names.get(i)) for i in ids]
    stats.pop("stored", None)  # (ids: the watch names its pages by them)
    advice = None
    if stats["skipped"]:
        from ..search.embeddings import length_refusal

        too_long = [k for k in stats["skipped"] if length_refusal(k["error"])]
        msgs = [f"not embedded: {k['slug']} (chunk {k['chunk']}" + (f", {k['heading']}" if k.get("heading") else "") + f"): {k['error']}"
                for k in stats["skipped"] if k not in too_long]
        if too_long:  # said once, with the setting to lower, not once per page in the server's words
            from ..search.embeddings import too_long_advice

            advice = too_long_advice(model, too_long, "call brain_embed again" if ctx.agent else "run `gbrain embed`")
            msgs.append(advice)
        for msg in msgs:
            if ctx.on_warning:
                ctx.on_warning(msg)
            else:
                _say(ctx, "warning: " + msg)
        stats["exit_code"] = 1
    unreached = stats.pop("unreached", 0)
    if unreached:  # the agent's time bound (until): more to do, in the next call
        out["left"] += unreached
        out["message"] = (f"more to do: {out['left']:,} page(s) still to embed; call brain_embed again to go on (each call stops after "
                          f"about {secs:g} s with a local model: config embed_agent_seconds, 0 for no bound)")
    if advice:
        out["message"] = advice + (f"; {out['message']}" if out.get("message") else "")
    if stats["changed"]:  # said where an agent reads: `embedded: 0` alone read as a failure (trial 56)
        said = _changed_said(stats)
        said += "; call brain_embed again" if ctx.agent else "; run `gbrain embed` again"
        out["message"] = said + (f"; {out['message']}" if out.get("message") else "")
    return {**out, **stats}


#: at most this many pages written while being embedded are named (``changed_slugs``); ``changed`` counts them all
CHANGED_NAMED = 20


def _changed_said(r: dict) -> str:
    """``N page(s) changed (or were deleted) while being embedded: SLUG, …`` from an embed answer's
    ``changed`` and ``changed_slugs`` (``, … N more`` past those named)."""
    names = r.get("changed_slugs") or []
    more = r["changed"] - len(names)
    return (f"{r['changed']:,} page(s) changed (or were deleted) while being embedded: " + ", ".join(names)
            + (f", … {more:,} more" if more > 0 else "") + "; not stored, they stay to embed")


def _added(first: dict, then: dict) -> dict:
    """Two :func:`~gbrain.search.vectors.embed_pages` answers as one: the counts added, the pages
    still changed those of ``then`` (the second plan of the pages ``first`` found changed)."""
    out = dict(first)
    for k in ("pages", "chunks", "embedded", "cached", "repeated", "dropped", "split"):
        out[k] = first.get(k, 0) + then.get(k, 0)
    out["skipped"] = first["skipped"] + then["skipped"]
    out["stored"] = first["stored"] + then["stored"]
    out["changed"], out["changed_ids"] = then["changed"], then["changed_ids"]
    if "unreached" in then or "unreached" in first:
        out["unreached"] = first.get("unreached", 0) + then.get("unreached", 0)
    return out


@op(
    "embed-drop",
    "Delete every stored vector of one embedding model, e.g. one no longer used (each model switch keeps a full set). "
    "brain_stats lists the models stored.",
    [Param("model", required=True, positional=True, description="the model name as stored (e.g. text-embedding-3-small, minilm)")],
    db="existing",
    text=lambda r, a: f"dropped {r['chunks']:,} chunks of {r['model']} ({r['pages']:,} pages; {r['cached']:,} cached vectors)",
    mutating=True,
    destructive=True,
    idempotent=True,
    title="Drop an embedding model's vectors",
    details="Its chunks, its record of embedded pages and its cached vectors go.",
    output=obj("model", model="string", chunks="integer", pages="integer", cached="integer"),
)
def _embed_drop(b, a, ctx):
    from ..search.vectors import drop_vectors

    name = a["model"].strip()
    have = b.conn.execute("SELECT 1 FROM embed_state WHERE model = ? UNION ALL SELECT 1 FROM page_embeddings WHERE model = ? "
                          "UNION ALL SELECT 1 FROM embedding_cache WHERE model = ? LIMIT 1", (name, name, name)).fetchone()
    if not have:
        from ..errors import NotFound

        models = [m for (m,) in b.conn.execute("SELECT DISTINCT model FROM embed_state ORDER BY model")]
        raise NotFound(f"no vectors of {name!r} in this brain" + (f" (models stored: {', '.join(models)})" if models else ""), suggestions=models)
    with b.transaction():
        got = drop_vectors(b.conn, name)
    return {"model": name, **got}


def _query_text(r: dict, a: dict) -> str:
    if not r["items"]:
        return Nothing("no matches")
    return "\n".join(f"{h['slug']}  ({h['score']:.3f}" + (f"; {', '.join(h['signals'])}" if h.get("signals") else "")
                     + f")  {h['title']}{copy_mark(h['slug'])}\n    {_shorten(h['passage'], 240)}" for h in r["items"])


def _shorten(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` characters at a word boundary, with ``…`` when cut."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if " " in cut[width // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


@op(
    "query",
    "Hybrid search: pages ranked by meaning and keywords (vectors and keywords fused; keywords alone without "
    "embeddings), as `items`: slug, title, score, best passage. Filters apply before the ranking.",
    [
        Param("question", description="a question or description in plain words, e.g. 'who knows Jensen Huang?'", required=True, positional=True),
        limit_param(10, "maximum number of results (1 or more: a ranking has no 'all')", minimum=1),
        TYPE,
        TAG,
        PREFIX,
        SINCE,
        Param("mode", description="hybrid (default), vector (vectors only) or keyword", default="hybrid", enum=["hybrid", "vector", "keyword"]),
    ],
    title="Hybrid search",
    open_world=True,  # with an OpenAI-compatible model the question goes to that endpoint
    output=obj("items", mode="string", model="string?", notes="array"),
    item=obj("slug", **{"slug": "string", "title": "string?", "type": "string?", "score": "number", "passage": "string"}),
    page="limit",
    page_key="items",  # as every other list tool (it was `hits`: page_alias keeps it for one release, not for MCP)
    page_alias="hits",
    rank_depth=RANK_DEPTH,
    text=_query_text,
)
def _query(b, a, ctx):
    from ..search.hybrid import query as hybrid_query  # numpy loads only when used

    from ..search.spell import inside, suggest

    since = _since(a.get("since"), ctx.flag("since"))

    def ask(question: str, keywords: str | None = None) -> dict:
        return hybrid_query(b, question, limit=10 if a.get("limit") is None else a["limit"], type=a.get("type"), tag=a.get("tag"),
                            prefix=a.get("prefix"), mode=a.get("mode") or "hybrid", keywords=keywords, since=since)

    words = (a.get("mode") or "hybrid") != "vector"
    held: dict = {}  # (each word looked up once)
    fix = suggest(b.conn, a["question"], held) if words else None  # typo tolerance (search/spell.py)
    # a compound's part no page holds as a word: the keyword side searches the words holding it (spell.inside, as search)
    ins = inside(b.conn, a["question"], skip={w for w, _ in fix.words} if fix else set(), memo=held) if words else None
    kfix = suggest(b.conn, ins.query, held) if ins and fix else None
    r = ask(a["question"], ins.query if ins else None)
    if fix and not any(set(h.get("signals") or ()) - {"vector"} for h in r["hits"]):
        # no hit holds a word of the question as typed: the corrected question's, said so
        again = ask(fix.query, kfix.query if kfix else None)
        if again["hits"]:
            r = again
            r["notes"].insert(0, fix.note(searched=True))
            fix = None
    if fix:
        r["notes"].insert(0, fix.note(searched=False))
    if ins:
        r["notes"].insert(0, ins.note())
    hits = r.pop("hits")
    r = {"items": hits, **r}  # `hits`, the old name of `items`: Operation.page_alias (registry.with_alias)
    if not hits:
        b.check_filters(a.get("type"), a.get("tag"), a.get("prefix"), ctx.on_warning)
    # (the notes are said once: in the answer's `notes`; the CLI's text puts them on stderr,
    # entry.run_and_print, never also as warnings: MCP and `pipe` answered them twice)
    return r
