"""Two ``.raw`` sidecars of one page (``ana.json`` beside ``ana.JSON``, an NFC and an NFD name),
their page, and the order sync meets them in: after every sync round of any sequence of adding,
changing and deleting the page and each sidecar (and renaming the one read), the brain equals a
fresh import of its tree (``fresh_import_differences``), and ``raw`` reads the sidecar
``slugs.chosen_sidecar`` names. A hypothesis property over small sequences; both engines
(``--engine postgres``: fewer examples)."""
from __future__ import annotations

import os
import shutil
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain.core.brain import Brain
from gbrain.page.slugs import chosen_sidecar
from gbrain.sync.engine import SyncEngine
from gbrain.sync.verify import fresh_import_differences

NFC, NFD = unicodedata.normalize("NFC", "josé"), unicodedata.normalize("NFD", "josé")
# (page file name, sidecar A, sidecar B, A's other spelling for a rename)
SETS = [("ana", "ana.json", "ana.JSON", "ana.Json"), (NFC, NFC + ".json", NFD + ".json", NFC + ".JSON")]
ACTIONS = ["page+", "page~", "page-", "A+", "A~", "A-", "B+", "B~", "B-", "A>"]
EXAMPLES = int(os.environ.get("GBRAIN_STATEFUL_EXAMPLES", "12"))


def _examples(engine: str) -> int:
    return int(os.environ.get("GBRAIN_STATEFUL_PG_EXAMPLES", "3")) if engine == "postgres" else EXAMPLES


@pytest.mark.parametrize("which", [0, 1], ids=["case", "nfc-nfd"])
def test_any_order_of_page_and_twin_sidecar_rounds_equals_a_fresh_import(db_path, tmp_path, engine, which):
    page, a, b, a2 = SETS[which]
    slug = "people/" + unicodedata.normalize("NFC", page)
    n = [0]

    @settings(max_examples=_examples(engine), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=7))
    def run(actions):
        n[0] += 1
        root = tmp_path / f"t{n[0]}"
        raw = root / "people" / ".raw"
        raw.mkdir(parents=True)
        where = db_path if engine == "postgres" else str(tmp_path / f"b{n[0]}.db")
        names = {"A": a, "B": b}
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
                        else:
                            f.write_text(f"# {page}\n\nstep {i}\n")
                    elif op == ">":  # the one named A renamed (the one read: another spelling)
                        src = raw / names["A"]
                        if src.exists():
                            names["A"] = a2 if names["A"] == a else a
                            os.rename(src, raw / names["A"])
                    else:
                        f = raw / names[who]
                        if op == "-":
                            f.unlink(missing_ok=True)
                        else:
                            f.write_bytes(b'{"sources": {"%s": %d}}\n' % (who.encode(), i))
                    rep = eng.sync()
                    assert rep["ok"], (actions[: i + 1], rep["problems"])
                    assert fresh_import_differences(br) == {}, actions[: i + 1]
                    there = sorted(p.name for p in raw.iterdir())
                    if (root / "people" / f"{page}.md").exists() and there:
                        read = chosen_sidecar([f"people/.raw/{x}" for x in there], f"people/{page}.md")
                        want = __import__("json").loads((root / read).read_bytes())["sources"]
                        assert br.raw_get(slug) == want, (actions[: i + 1], read)
            finally:
                eng.close()
        shutil.rmtree(root)

    run()
