"""Two ``.raw`` sidecars of one page (``ana.json`` beside ``ana.JSON``, an NFC and an NFD name),
their page, and the order sync meets them in: after every sync round of any sequence of adding,
changing and deleting the page and each sidecar (and renaming the one read), the brain equals a
fresh import of its tree (``fresh_import_differences``), and ``raw`` reads the sidecar
``slugs.chosen_sidecar`` names. A hypothesis property over small sequences; both engines
(``--engine postgres``: fewer examples)."""
from __future__ import annotations

import json
import os
import shutil
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gbrain.core.brain import Brain
from gbrain.page.slugs import chosen_sidecar, page_slug_for_sidecar
from gbrain.sync.engine import SyncEngine
from gbrain.sync.verify import fresh_import_differences

NFC, NFD = unicodedata.normalize("NFC", "josé"), unicodedata.normalize("NFD", "josé")


def _nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


# (the page's two names (a page renamed in the folder goes from one to the other), sidecar A's
# name for a page name, sidecar B's (A's twin), A's other spelling for a rename)
SETS = [(("ana", "bob"), lambda p: p + ".json", lambda p: p + ".JSON", lambda p: p + ".Json"),
        ((NFC, "zoé"), lambda p: p + ".json", lambda p: _nfd(p) + ".json", lambda p: p + ".JSON")]
ACTIONS = ["page+", "page~", "page-", "page>", "A+", "A~", "A-", "B+", "B~", "B-", "A>"]
EXAMPLES = int(os.environ.get("GBRAIN_STATEFUL_EXAMPLES", "12"))


def _examples(engine: str) -> int:
    return int(os.environ.get("GBRAIN_STATEFUL_PG_EXAMPLES", "3")) if engine == "postgres" else EXAMPLES


@pytest.mark.parametrize("which", [0, 1], ids=["case", "nfc-nfd"])
def test_any_order_of_page_and_twin_sidecar_rounds_equals_a_fresh_import(db_path, tmp_path, engine, which, request):
    stems, name_a, name_b, name_a2 = SETS[which]
    # SQLite: each example's brain and each round's fresh import are copies of a new brain (a
    # first open's schema versions cost more than a round's sync and import)
    from conftest import new_sqlite_brain

    template = request.getfixturevalue("sqlite_brain_template") if engine != "postgres" else None
    n = [0]

    @settings(max_examples=_examples(engine), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(st.sampled_from(["page+", "A+", "B+"]), unique=True), st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=6))
    @example(["page+", "B+"], ["page>"]).via("a page renamed in the folder took ana.JSON's rows, the file left behind")
    @example(["page+", "A+", "B+"], ["page>", "page>"])
    def run(first, rest):
        actions = [*first, *rest]
        n[0] += 1
        root = tmp_path / f"t{n[0]}"
        raw = root / "people" / ".raw"
        raw.mkdir(parents=True)
        where = db_path if engine == "postgres" else new_sqlite_brain(template, tmp_path / f"b{n[0]}.db")
        page = stems[0]
        names = {"A": name_a(page), "B": name_b(page)}
        with Brain.open(where, create=True) as br:
            if engine == "postgres":  # one database for every example: start empty
                br.conn.execute("BEGIN")
                for t in ("raw_spans", "files", "pages", "sync_state", "sync_root"):
                    br.conn.execute(f"DELETE FROM {t}")
                br.conn.execute("COMMIT")
            eng = SyncEngine(br, root)
            try:
                eng.bind()
                for i, act in enumerate(actions):
                    who, op = act[:-1], act[-1]
                    if who == "page":
                        f = root / "people" / f"{page}.md"
                        if op == "-":
                            f.unlink(missing_ok=True)
                        elif op == ">":  # renamed in the folder: its sidecars follow it
                            if f.exists():
                                page = stems[1] if page == stems[0] else stems[0]
                                os.rename(f, root / "people" / f"{page}.md")
                        else:
                            f.write_text(f"# {page}\n\nstep {i}\n")
                    elif op == ">":  # the one named A renamed (the one read: another spelling)
                        src = raw / names["A"]
                        if src.exists():
                            names["A"] = name_a2(page) if names["A"] == name_a(page) else name_a(page)
                            os.rename(src, raw / names["A"])
                    else:
                        f = raw / names[who]
                        if op == "-":
                            f.unlink(missing_ok=True)
                        else:
                            f.write_bytes(b'{"sources": {"%s": %d}}\n' % (who.encode(), i))
                    if i < len(first) - 1:  # the first tree: written whole before the first round
                        continue
                    rep = eng.sync()
                    assert rep["ok"], (actions[: i + 1], rep["problems"])
                    if template is None:
                        assert fresh_import_differences(br) == {}, actions[: i + 1]
                    else:
                        fresh = new_sqlite_brain(template, tmp_path / f"f{n[0]}-{i}.db")
                        assert fresh_import_differences(br, fresh_db=fresh) == {}, actions[: i + 1]
                        for suffix in ("", "-wal", "-shm", "-gbrain.lock"):
                            Path(fresh + suffix).unlink(missing_ok=True)
                    # each sidecar's name now (sync renames them with their page): by its content
                    for x in raw.iterdir():
                        for k in json.loads(x.read_bytes())["sources"]:
                            names[k] = x.name
                    names = {k: v if (raw / v).exists() else (name_a if k == "A" else name_b)(page) for k, v in names.items()}
                    slug = "people/" + unicodedata.normalize("NFC", page)
                    there = sorted(p.name for p in raw.iterdir() if page_slug_for_sidecar(f"people/.raw/{p.name}") == slug)
                    if (root / "people" / f"{page}.md").exists() and there:
                        read = chosen_sidecar([f"people/.raw/{x}" for x in there], f"people/{page}.md")
                        want = json.loads((root / read).read_bytes())["sources"]
                        assert br.raw_get(slug) == want, (actions[: i + 1], read)
            finally:
                eng.close()
        shutil.rmtree(root)

    run()
