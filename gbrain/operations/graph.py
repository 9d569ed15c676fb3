"""The link graph: ``graph`` (pages within N link hops of a page) and ``path`` (the shortest link
chain between two pages). Both read the resolved ``links`` rows (dangling links are no edges);
a link counts in both directions for reachability, and each edge says which way it points.

Breadth-first search, one SQL query per hop level over the ``idx_links_from``/``idx_links_to``
indexes, so the cost grows with the pages reached, not with the brain.
"""
from __future__ import annotations

from ..errors import BadInput
from ..page.navfile import is_nav_file
from ..storage.db import in_parts
from .registry import Nothing, Param, obj, op, read_slug

DIRECTIONS = ["both", "out", "in"]
NODE = obj("slug", "distance", slug="string", title="string?", type="string?", distance="integer",
           via={"type": "array", "items": {"type": "string"}})
EDGE = obj("from", "to", **{"from": "string", "to": "string", "kind": "string", "context": "string"})


class _Files:
    """The links of the stored canvases and nav files to pages, as ``backlinks`` lists them (a
    file is a node keyed by its path, a page by its id), read as a walk reaches them. Into a page:
    every canvas (parsed once per call) and the nav entries naming it (``nav_entries``, by index:
    :meth:`Brain.nav_listing`); out of a file: that file's links."""

    def __init__(self, b):
        self.b = b
        self.kinds: dict[str, str] = {}
        self._out: dict[str, list] = {}
        self._in: dict[int, list] = {}
        self._loaded: set[str] = set()
        self._canvases = False
        self._ids: dict[str, int | None] = {}

    def _load(self, path: str) -> None:
        if path in self._loaded:
            return
        self._loaded.add(path)
        nav = is_nav_file(path)
        self.kinds[path] = "nav" if nav else "canvas"
        seen = set()
        for x in (self.b.nav_links(path) if nav else self.b.canvas_links(path)):
            slug = x["to_slug"]
            if not slug or slug in seen:
                continue
            seen.add(slug)
            if slug not in self._ids:
                r = self.b.conn.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone()
                self._ids[slug] = r[0] if r else None
            if self._ids[slug] is not None:
                e = (path, self._ids[slug], x["kind"], x["context"])
                self._out.setdefault(path, []).append(e)
                if not nav:
                    self._in.setdefault(self._ids[slug], []).append(e)

    def out_of(self, path: str) -> list:
        self._load(path)
        return self._out.get(path, [])

    def into(self, ids: list[int]) -> list:
        if not self._canvases:
            self._canvases = True
            for c in self.b.canvases():
                self._load(c)
        out = [e for i in ids for e in self._in.get(i, [])]
        seen = set()
        for path, pid, context, _form in self.b.nav_listing(ids):
            if (path, pid) not in seen:  # a nav file and a page: one link, its first entry's context
                seen.add((path, pid))
                self.kinds[path] = "nav"
                out.append((path, pid, "nav", context))
        return out


def _key(x) -> tuple:
    """A node's sort key: pages (ids) first, then files (paths)."""
    return (isinstance(x, str), x)


def _edge_key(e) -> tuple:
    return (_key(e[0]), _key(e[1]), e[2], e[3] or "")


def _neighbours(conn, ids: list, direction: str, files: "_Files | None" = None) -> list[tuple]:
    """Links touching the nodes ``ids`` (page ids; a stored canvas's or nav file's path):
    ``(from, to, kind, context)``; a resolved page link, or a file's link to a page (``files``)."""
    out: list[tuple] = []
    pages = [i for i in ids if not isinstance(i, str)]
    for part, marks in in_parts(pages):
        if direction in ("out", "both"):
            out += conn.execute(f"SELECT from_page_id, to_page_id, kind, context FROM links WHERE to_page_id IS NOT NULL AND from_page_id IN ({marks})", part).fetchall()
        if direction in ("in", "both"):
            out += conn.execute(f"SELECT from_page_id, to_page_id, kind, context FROM links WHERE to_page_id IS NOT NULL AND to_page_id IN ({marks})", part).fetchall()
    out = [tuple(r) for r in out]
    if files is not None:
        if direction in ("out", "both"):
            out += [e for i in ids if isinstance(i, str) for e in files.out_of(i)]
        if direction in ("in", "both") and pages:
            out += files.into(pages)
    return out


def _pages(conn, ids, files: "_Files | None" = None) -> dict:
    ids = list(ids)
    out: dict = {}
    for x in ids:
        if isinstance(x, str):  # a canvas or nav file: its path, its name, its kind
            out[x] = {"slug": x, "title": x.rsplit("/", 1)[-1], "type": files.kinds.get(x) if files is not None else None}
    ids = [x for x in ids if not isinstance(x, str)]
    for part, marks in in_parts(ids):
        for r in conn.execute(f"SELECT id, slug, title, type FROM pages WHERE id IN ({marks})", part):
            out[r["id"]] = {"slug": r["slug"], "title": r["title"], "type": r["type"]}
    return out


def _start(b, slug: str, ctx, files: _Files):
    """The node a walk starts from: the page ``slug`` names (a renamed page's old name: its page,
    with a warning), else a stored canvas or nav file by its path."""
    from ..errors import NotFound

    try:
        row = b.resolve_slug(read_slug(b, slug, ctx)[0], suggest=not (is_nav_file(slug) or slug.lower().endswith(".canvas")))
        return row["id"], row["slug"]
    except NotFound:
        path = b.stored_file_path(slug)
        if path is None or not (is_nav_file(path) or path.lower().endswith(".canvas")):
            raise
        files.kinds[path] = "nav" if is_nav_file(path) else "canvas"
        return path, path


def _graph_text(r: dict, a: dict) -> str:
    if not r["nodes"]:
        return Nothing("(no page)")
    lines = [f"{r['root']}  (depth {r['depth']}, {len(r['nodes']) - 1} page(s) linked)"]
    for n in r["nodes"][1:]:
        via = f", via {' → '.join(n['via'])}" if n.get("via") else ""
        lines.append(f"  {n['slug']}  ({n['type'] or 'no type'}, {n['distance']} hop{'s' if n['distance'] != 1 else ''}{via})")
    if r["edges"]:
        lines.append("links:")
    for e in r["edges"]:
        ctx = f"  — {e['context']}" if e["context"] else ""
        lines.append(f"  {e['from']} → {e['to']}{ctx}")
    if r.get("more"):
        lines.append(f"  … {r['more']} more page(s) beyond --limit")
    return "\n".join(lines)


def _graph_cut(r: dict, offset: int, budget: int) -> tuple[dict, int | None]:
    """An agent's page of a graph answer (``Operation.cut``): its nodes, nearest first, each
    followed by the links it brings (to a node listed before it, or on the chain to it: ``via``),
    cut after the item that fills ``budget`` characters of JSON (at least one item), from item
    ``offset`` of that sequence. Every link is on one page (trial 26: the links did not count
    against the page size, 42.6 KB at depth 3)."""
    from .registry import dumps

    index = {n["slug"]: i for i, n in enumerate(r["nodes"])}
    needs: dict[frozenset, int] = {}  # a chain's step (two slugs) → the first node whose chain takes it
    for i, n in enumerate(r["nodes"]):
        chain = [r["root"], *n.get("via", []), n["slug"]] if i else []
        for x, y in zip(chain, chain[1:]):
            needs.setdefault(frozenset((x, y)), i)
    owned: dict[int, list[dict]] = {}
    for e in r["edges"]:
        f, t = index.get(e["from"]), index.get(e["to"])
        at = [max(f, t)] if f is not None and t is not None else []
        at += [needs[k]] if (k := frozenset((e["from"], e["to"]))) in needs else []
        owned.setdefault(min(at, default=0), []).append(e)
    seq = [x for i, n in enumerate(r["nodes"]) for x in [("n", n), *(("e", e) for e in owned.get(i, []))]]
    if offset > len(seq):
        offset = len(seq)
    used, end = 0, offset
    for k in range(offset, len(seq)):
        used += len(dumps(seq[k][1])) + 2
        if used > budget and k > offset:
            break
        end = k + 1
    part = seq[offset:end]
    out = {**r, "nodes": [x for kind, x in part if kind == "n"], "edges": [x for kind, x in part if kind == "e"]}
    if end < len(seq):
        nodes = sum(1 for kind, _ in seq[:end] if kind == "n")
        out["note"] = (f"{nodes:,} of the {len(r['nodes']):,} pages and {sum(1 for kind, _ in seq[:end] if kind == 'e'):,} of the "
                       f"{len(r['edges']):,} links so far (a page holds ~{budget:,} characters); pass next_cursor as cursor for the next")
        return out, end
    return out, None


@op(
    "graph",
    "Pages within `depth` link hops of a page, with each link's direction and context (its sentence). `type` keeps only "
    "pages of that type (the walk passes through others); a page two or more hops away names the pages between (`via`), and "
    "`edges` holds that chain's links too.",
    [
        Param("slug", description="the page to start from", required=True, positional=True),
        Param("depth", "integer", "link hops to follow (1-4)", default=1, minimum=1, maximum=4),
        Param("type", description="only pages of this type (person, company, deal, …)"),
        Param("direction", description="out: pages it links to; in: pages linking to it; or both", default="both", enum=DIRECTIONS),
        Param("limit", "integer", "maximum pages listed besides the start (nearest first)", default=100, minimum=1),
    ],
    text=_graph_text,
    title="Link graph around a page",
    output=obj("root", "nodes", "edges", root="string", depth="integer", direction="string", nodes={"type": "array", "items": NODE},
               edges={"type": "array", "items": EDGE}, more="integer"),
    page="cut",
    cut=_graph_cut,
)
def _graph(b, a, ctx):
    files = _Files(b)
    root_id, root_slug = _start(b, a["slug"], ctx, files)
    depth, direction, limit = a["depth"] or 1, a.get("direction") or "both", a["limit"] or 100
    dist = {root_id: 0}
    edges: set[tuple] = set()
    came: dict = {}  # node → (the node it was reached from, that link)
    frontier = [root_id]
    for d in range(1, depth + 1):
        nxt = []
        for e in sorted(_neighbours(b.conn, frontier, direction, files), key=_edge_key):
            f, t = e[0], e[1]
            edges.add(e)
            for n, other in ((f, t), (t, f)):
                if n not in dist:
                    dist[n] = d
                    came[n] = (other, e)
                    nxt.append(n)
        frontier = nxt
        if not frontier:
            break
    pages = _pages(b.conn, dist, files)
    keep = [i for i in dist if i == root_id or not a.get("type") or pages[i]["type"] == a["type"]]
    if len(keep) == 1 and len(dist) > 1:
        b.check_type(a.get("type"), ctx.on_warning)
    keep.sort(key=lambda i: (dist[i], pages[i]["slug"]))
    more = max(0, len(keep) - 1 - limit)
    keep = keep[: limit + 1]
    kept = set(keep)
    nodes, chain_edges = [], set()
    for i in keep:
        node = {**pages[i], "distance": dist[i]}
        via, n = [], i
        while n in came:
            n, e = came[n]
            chain_edges.add(e)
            if n != root_id:
                via.append(pages[n]["slug"])
        if via:
            node["via"] = via[::-1]
        nodes.append(node)
    out_edges = sorted(
        {(pages[f]["slug"], pages[t]["slug"], k, c) for f, t, k, c in edges if f != t and (f in kept and t in kept or (f, t, k, c) in chain_edges)},
        key=lambda e: (e[0], e[1], e[2], e[3] or ""),
    )
    out_edges = [{"from": f, "to": t, "kind": k, "context": c} for f, t, k, c in out_edges]
    return {"root": root_slug, "depth": depth, "direction": direction, "nodes": nodes, "edges": out_edges, "more": more}


def _path_text(r: dict, a: dict) -> str:
    if not r["found"]:
        return Nothing(f"no link chain between {r['from']} and {r['to']} within {r['max_depth']} hops")
    out = [r["path"][0]["slug"]]
    for e in r["links"]:
        out.append(f"  {'→' if e['forward'] else '←'} {e['to'] if e['forward'] else e['from']}" + (f"  — {e['context']}" if e["context"] else ""))
    return "\n".join(out)


@op(
    "path",
    "The shortest chain of links between two pages (\"how do I know Jensen?\"): the pages on the way and, for each "
    "hop, the link with its direction (forward: the earlier page links to the next) and context.",
    [
        Param("from", description="slug of the first page", required=True, positional=True),
        Param("to", description="slug of the last page", required=True, positional=True),
        Param("max_depth", "integer", "give up beyond this many hops", default=6, minimum=1, maximum=12),
    ],
    text=_path_text,
    title="Shortest link chain between two pages",
    output=obj("found", "from", "to", found="boolean", hops="integer?", max_depth="integer", **{"from": "string", "to": "string"},
               path={"type": "array", "items": obj("slug", slug="string", title="string?", type="string?")},
               links={"type": "array", "items": obj("from", "to", "forward", **{"from": "string", "to": "string", "forward": "boolean", "kind": "string", "context": "string"})}),
)
def _path(b, a, ctx):
    files = _Files(b)
    (src, src_slug), (dst, dst_slug) = (_start(b, a[k], ctx, files) for k in ("from", "to"))  # each end follows a rename, as graph's start
    max_depth = a["max_depth"] or 6
    base = {"from": src_slug, "to": dst_slug, "max_depth": max_depth}
    if src == dst:
        raise BadInput(f"{ctx.flag('from')} and {ctx.flag('to')} are the same page ({src_slug})")
    prev: dict = {}
    seen = {src}
    frontier = [src]
    for _ in range(max_depth):
        nxt = []
        here_set = set(frontier)
        for e in sorted(_neighbours(b.conn, frontier, "both", files), key=_edge_key):
            f, t = e[0], e[1]
            for here, there in ((f, t), (t, f)):
                if here in here_set and there not in seen:
                    seen.add(there)
                    prev[there] = (here, e)
                    nxt.append(there)
        if dst in seen or not nxt:
            break
        frontier = nxt
    if dst not in seen:
        return {**base, "found": False, "hops": None, "path": [], "links": []}
    chain, hops = [dst], []
    while chain[-1] != src:
        here, e = prev[chain[-1]]
        hops.append(e)
        chain.append(here)
    chain.reverse()
    hops.reverse()
    pages = _pages(b.conn, chain, files)
    links = [{"from": pages[f]["slug"], "to": pages[t]["slug"], "forward": f == chain[i], "kind": k, "context": c} for i, (f, t, k, c) in enumerate(hops)]
    return {**base, "found": True, "hops": len(hops), "path": [pages[i] for i in chain], "links": links}
