"""An OpenAI-compatible embeddings server that misbehaves, through the real ``openai`` client
against a real HTTP server on 127.0.0.1 and the CLI's commands, run in-process (a trial user's reports): whose key goes
where, a server that changes its vector size, one input it refuses, a server down or hung
during `query`, answers that are not embeddings. What is stored (vectors kept, pages left to embed, the
cache) is tested on both engines (``--engine postgres``); what reaches the server and what the user is told,
with a SQLite brain of the test's own, in the SQLite run only (``engine_free``: the ``run`` fixture)."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading

import pytest

from gbrain.errors import InputRefused, ProviderError
from gbrain.search import embeddings as emb

from conftest import gbrain_in_process
from embed_server import EmbedServer, embeddings


def window_tokens(text: str) -> int:
    """A model's own count of ``text``'s tokens, as the ``window`` mode counts them: UTF-8 bytes / 3
    (real tokenizers count more than gbrain's ~4 characters a token on most text)."""
    return len(text.encode("utf-8")) // 3 + 1


def window_refusal(flavor: str, limit: int, given: int) -> tuple[int, bytes]:
    """(HTTP status, body) with which a server whose model reads ``limit`` tokens refuses an input of
    ``given``, as each server says it: llama.cpp ``--embedding`` (an input longer than its physical
    batch; before 2025 without the figures), text-embeddings-inference (its OpenAI route, and its
    own ``/embed`` shape), OpenAI, Ollama."""
    if flavor == "llama":
        msg = f"input ({given} tokens) is too large to process. increase the physical batch size (current batch size: {limit})"
        return 500, json.dumps({"error": {"code": 500, "message": msg, "type": "server_error"}}).encode()
    if flavor == "llama-old":
        msg = "input is too large to process. increase the physical batch size"
        return 500, json.dumps({"error": {"code": 500, "message": msg, "type": "server_error"}}).encode()
    tei = f"Input validation error: `inputs` must have less than {limit} tokens. Given: {given}"
    if flavor == "tei":
        return 413, json.dumps({"message": tei, "code": 413, "type": "Validation"}).encode()
    if flavor == "tei-native":
        return 413, json.dumps({"error": tei, "error_type": "Validation"}).encode()
    if flavor == "openai":
        msg = (f"This model's maximum context length is {limit} tokens, however you requested {given} tokens "
               f"({given} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.")
        return 400, json.dumps({"error": {"message": msg, "type": "invalid_request_error", "param": None, "code": None}}).encode()
    if flavor == "ollama":
        return 400, json.dumps({"error": {"message": "the input length exceeds the context length", "type": "api_error"}}).encode()
    raise ValueError(flavor)


class ModeServer(EmbedServer):
    """/v1/embeddings on 127.0.0.1 whose behaviour is ``mode``: ``ok`` (64 dims), ``dim N``,
    ``window N FLAVOR`` (a batch holding an input of more than N tokens, :func:`window_tokens`, is
    refused as the server FLAVOR refuses it: :func:`window_refusal`),
    ``garbage`` (not JSON), ``ragged`` (the first vector of a batch 3 shorter), ``poison`` (HTTP
    400 for any batch holding "POISON"), ``dupidx`` (the last item of a batch says ``index`` 0, as the
    first does), ``hang`` (never answers until closed), ``status N``
    (HTTP N with a message, ``headers`` added). ``requests`` logs each request's Authorization
    header, headers and inputs."""

    def __init__(self):
        self.mode = "ok"
        self.requests: list[dict] = []
        #: GET answers by path, as TEI (``/info``) and llama.cpp (``/props``) give them: (status, JSON)
        #: or ``"hang"`` (no answer until closed); any other path 404. ``gets`` logs each GET's path
        self.pages: dict[str, object] = {}
        self.gets: list[str] = []
        self.on_request = None  # called with each request's inputs before it is answered
        super().__init__()

    def on_get(self, h):
        self.gets.append(h.path)
        page = self.pages.get(h.path)
        if page == "hang":
            self.release.wait()
            return
        if page is None:
            return h.send(404, b'{"error": "not found"}')
        h.send(page[0], json.dumps(page[1]).encode())

    def on_post(self, h, body, inp):
        self.requests.append({"auth": h.headers.get("Authorization"), "headers": dict(h.headers), "input": inp})
        if self.on_request:
            self.on_request(inp)
        mode = self.mode.split()
        if mode[0] == "hang":
            self.release.wait()
            return
        if mode[0] == "garbage":
            return h.send(200, b"<html>oops")
        if mode[0] == "status":
            return h.send(int(mode[1]), json.dumps({"error": {"message": f"busy, status {mode[1]}"}}).encode())
        if mode[0] == "maxin" and len(inp) > int(mode[1]):
            return h.send(400, json.dumps({"error": {"message": f"too many inputs: at most {mode[1]} per request"}}).encode())
        if mode[0] == "window" and any(window_tokens(t) > int(mode[1]) for t in inp):
            given = max(window_tokens(t) for t in inp)
            return h.send(*window_refusal(mode[2], int(mode[1]), given))
        if mode[0] == "poison" and any("POISON" in t for t in inp):
            return h.send(400, b'{"error":{"message":"input length exceeds the context length"}}')
        dim = int(mode[1]) if mode[0] == "dim" else 64
        out = []
        for i, t in enumerate(inp):
            d = hashlib.sha256(t.encode()).digest()
            v = [((d[j % 32] + j * 7) % 256 - 128) / 128 for j in range(dim - (3 if mode[0] == "ragged" and i == 0 else 0))]
            out.append(base64.b64encode(struct.pack("<%df" % len(v), *v)).decode() if body.get("encoding_format") == "base64" else v)
        indexes = list(range(len(out) - 1)) + [0] if mode[0] == "dupidx" and len(out) > 1 else None
        h.send(200, embeddings(body, out, indexes))


@pytest.fixture
def run(request, tmp_path):
    """The CLI, run in this process (conftest.gbrain_in_process): these tests are about what
    embed, query, check and config do with a provider's answers, through the command line's
    parsing, exit codes and streams; a process adds only its start-up to each of their ~10
    commands (the process itself: tests/test_cli.py, tests/test_semantic.py).

    A test marked ``engine_free`` (what reaches the server and what the user is told: keys,
    timeouts, retries, refusals, settings) runs every command with ``--db`` a SQLite brain of its
    own in ``tmp_path``, and only in the SQLite run; the others (what is stored: vectors kept,
    pages left to embed, the cache) use ``$GBRAIN_DB`` and run on both engines."""
    if request.node.get_closest_marker("engine_free") is None:
        return gbrain_in_process
    own = str(tmp_path / "own.db")

    def run_own(*args, **kwargs):
        return gbrain_in_process("--db", own, *args, **kwargs)

    return run_own


@pytest.fixture
def srv():
    s = ModeServer()
    yield s
    s.close()


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (a server that is down)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"


def put(run, slug, text):
    r = run("put", slug, input=text)
    assert r.returncode == 0, r.stderr


def setup_brain(run, url):
    assert run("init").returncode == 0
    assert run("config", "set", "embedding_base_url", url).returncode == 0
    assert run("config", "set", "embedding_model", "local-embed").returncode == 0
    put(run, "notes/alpha", "# Alpha\n\nzebra notes\n")


# ---------------------------------------------------------------------------
# 1. whose key goes where
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_env_openai_key_never_goes_to_a_base_url_from_the_brain(srv, run):
    setup_brain(run, srv.url)
    r = run("embed", env={"OPENAI_API_KEY": "sk-real-secret", "OPENAI_ORG_ID": "org-mine", "OPENAI_CUSTOM_HEADERS": "X-Team-Token: tok-secret"})
    assert r.returncode == 0, r.stderr
    assert srv.requests and all(q["auth"] is None for q in srv.requests)
    sent = " ".join(f"{k}: {v}" for q in srv.requests for k, v in q["headers"].items())
    assert "sk-real-secret" not in sent and "org-mine" not in sent and "tok-secret" not in sent
    err = r.stderr.decode()
    assert "OPENAI_API_KEY not sent to http://127.0.0.1:" in err and "GBRAIN_EMBEDDING_API_KEY" in err
    # one line of warning (a slow embed under load may add its progress line, "Embedding (…): 1 / 1 (100%), 15 s")
    assert len([ln for ln in err.splitlines() if "Embedding (" not in ln]) == 1, err
    # a key named for gbrain's embeddings goes to the configured server
    srv.requests.clear()
    put(run, "notes/beta", "# Beta\n\nquasar notes\n")
    r = run("embed", env={"OPENAI_API_KEY": "sk-real-secret", "GBRAIN_EMBEDDING_API_KEY": "sk-for-embeddings"})
    assert r.returncode == 0, r.stderr
    assert srv.requests and {q["auth"] for q in srv.requests} == {"Bearer sk-for-embeddings"}
    assert "not sent" not in r.stderr.decode()
    # the question of `query` too
    srv.requests.clear()
    r = run("query", "zebra", env={"OPENAI_API_KEY": "sk-real-secret"})
    assert r.returncode == 0 and srv.requests and all(q["auth"] is None for q in srv.requests)
    assert "OPENAI_API_KEY not sent" in r.stderr.decode()


@pytest.mark.engine_free
def test_env_openai_key_goes_to_a_base_url_the_user_chose(srv, run):
    assert run("init").returncode == 0
    assert run("config", "set", "embedding_model", "local-embed").returncode == 0
    put(run, "notes/alpha", "# Alpha\n\nzebra notes\n")
    r = run("embed", env={"OPENAI_API_KEY": "sk-mine", "OPENAI_BASE_URL": srv.url})
    assert r.returncode == 0, r.stderr
    assert {q["auth"] for q in srv.requests} == {"Bearer sk-mine"} and "not sent" not in r.stderr.decode()
    # the brain naming the same URL as the user's environment is the user's choice too
    assert run("config", "set", "embedding_base_url", srv.url + "/").returncode == 0
    put(run, "notes/beta", "# Beta\n\nquasar notes\n")
    srv.requests.clear()
    r = run("embed", env={"OPENAI_API_KEY": "sk-mine", "GBRAIN_EMBEDDING_BASE_URL": srv.url})
    assert r.returncode == 0 and {q["auth"] for q in srv.requests} == {"Bearer sk-mine"}, r.stderr
    # no key at all: no Authorization header (not a placeholder)
    put(run, "notes/gamma", "# Gamma\n\nnebula notes\n")
    srv.requests.clear()
    r = run("embed")
    assert r.returncode == 0 and srv.requests and all(q["auth"] is None for q in srv.requests), r.stderr


@pytest.mark.engine_free
def test_endpoint_rule():
    env = {"OPENAI_API_KEY": "sk-env"}
    assert emb.endpoint({}, env)[:3] == (None, "sk-env", None)
    assert emb.endpoint({"embedding_base_url": "https://api.openai.com/v1"}, env)[1] == "sk-env"
    for url in ("http://api.openai.com/v1", "https://api.openai.com.evil.example/v1", "https://evil.example/v1"):
        base, key, note, foreign = emb.endpoint({"embedding_base_url": url}, env)
        assert base == url and key is None and foreign and "OPENAI_API_KEY not sent" in note
    assert emb.endpoint({"embedding_base_url": "https://evil.example/v1"}, {})[:3] == ("https://evil.example/v1", None, None)
    assert emb.endpoint({"embedding_base_url": "http://h/v1"}, {**env, "OPENAI_BASE_URL": "http://h/v1"})[1] == "sk-env"
    assert emb.endpoint({"embedding_base_url": "http://h/v1"}, {**env, emb.KEY_ENV: "sk-g"})[1] == "sk-g"


@pytest.mark.engine_free
def test_a_server_model_set_before_its_base_url_says_the_base_url_is_missing_not_a_key():
    """Team trial s60: `config set embedding_model nomic-embed-text` before `embedding_base_url`;
    meanwhile `embed` said `no OPENAI_API_KEY: using the offline minilm model`, the wrong fix (a
    key sends nomic-embed-text to api.openai.com). A name OpenAI does not serve needs a base URL:
    the note says that; an OpenAI model's note still names the key."""
    model, note = emb.resolve_model({"embedding_model": "nomic-embed-text", emb.CHOSEN_KEY: "1"}, environ={})
    assert model.model_id in (emb.MINILM_MODEL, emb.OFFLINE_MODEL), model.model_id
    assert "embedding_base_url" in note and "OPENAI_API_KEY" not in note, note
    _, note = emb.resolve_model({"embedding_model": "text-embedding-3-small", emb.CHOSEN_KEY: "1"}, environ={})
    assert note.startswith("no OPENAI_API_KEY"), note


@pytest.mark.engine_free
def test_a_401_from_a_server_denied_the_key_says_why(srv):
    srv.mode = "status 401"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, key_note="OPENAI_API_KEY not sent to x")
    with pytest.raises(ProviderError, match=r"HTTP 401: busy, status 401 \(OPENAI_API_KEY not sent to x\)"):
        m.embed_multi(["a"])


# ---------------------------------------------------------------------------
# 2. a server whose vectors change size under the same model name
# ---------------------------------------------------------------------------


def test_a_size_change_is_refused_then_embed_force_replaces_the_vectors(srv, run, db_path):
    setup_brain(run, srv.url)
    assert run("embed").returncode == 0
    srv.mode = "dim 128"
    put(run, "notes/beta", "# Beta\n\nquasar notes\n")
    r = run("embed")
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "local-embed now answers 128-dimensional vectors" in err and "have 64" in err and "gbrain embed --force" in err
    assert "Traceback" not in err
    r = run("embed", "--all")  # the cache holds the old size: still refused, nothing mixed
    assert r.returncode == 1 and "gbrain embed --force" in r.stderr.decode()
    r = run("query", "zebra", "--json")  # keyword results, with the reason
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mode"] == "keyword" and out["hits"][0]["slug"] == "notes/alpha"
    assert any("now answers 128-dimensional" in n for n in out["notes"])
    r = run("check")
    assert r.returncode == 0 and "sizes" not in r.stderr.decode()  # nothing was mixed
    r = run("embed", "--force", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 2 and out["embedded"] == 2 and out["dropped"] == 1
    from gbrain.core.brain import Brain

    with Brain.open(db_path) as b:
        assert {d for (d,) in b.conn.execute("SELECT DISTINCT dims FROM page_embeddings")} == {128}
        assert {d for (d,) in b.conn.execute("SELECT DISTINCT dims FROM embedding_cache")} <= {128}
    r = run("query", "zebra", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["mode"] == "hybrid", r.stderr
    # --force with the same size re-sends every chunk (no cache) and keeps the size
    n = len(srv.requests)
    r = run("embed", "--force", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["embedded"] == 2 and json.loads(r.stdout)["dropped"] == 0
    assert len(srv.requests) > n


def test_check_and_lint_report_a_model_with_mixed_sizes_and_embed_drop_removes_it(srv, run, db_path):
    setup_brain(run, srv.url)
    put(run, "notes/beta", "# Beta\n\nquasar notes\n")
    assert run("embed").returncode == 0
    from gbrain.core.brain import Brain

    with Brain.open(db_path) as b:  # a brain embedded before sizes were checked: one row of another size
        with b.transaction():
            b.conn.execute("UPDATE page_embeddings SET dims = 128, embedding = ? WHERE id = (SELECT MAX(id) FROM page_embeddings)", (b"\0" * 512,))
    r = run("check")
    assert r.returncode == 0
    assert "the vectors of local-embed have 2 sizes" in r.stderr.decode() and "gbrain embed --force" in r.stderr.decode()
    r = run("lint", "--check", "embeddings", "--json")
    found = [f for f in json.loads(r.stdout)["items"] if f.get("reason") == "mixed-sizes"]
    assert found and found[0]["model"] == "local-embed" and found[0]["sizes"] == {"64": 1, "128": 1}
    r = run("embed-drop", "local-embed", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["chunks"] == 2 and json.loads(r.stdout)["pages"] == 2
    with Brain.open(db_path) as b:
        for t in ("page_embeddings", "embed_state", "embedding_cache"):
            assert b.conn.execute(f"SELECT COUNT(*) FROM {t} WHERE model = 'local-embed'").fetchone()[0] == 0, t
    assert "sizes" not in run("check").stderr.decode()
    r = run("embed-drop", "local-embed")
    assert r.returncode == 1 and "no vectors of 'local-embed'" in r.stderr.decode()
    r = run("embed", "--json")  # everything is stale again
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 2


# ---------------------------------------------------------------------------
# 3. one input the server refuses
# ---------------------------------------------------------------------------


def test_a_refused_chunk_skips_its_page_only_and_is_named(srv, run):
    setup_brain(run, srv.url)
    for i in range(6):
        put(run, f"notes/p{i}", f"# P{i}\n\nplain text {i}\n")
    put(run, "notes/bad", "# Bad\n\nPOISON long text\n")
    srv.mode = "poison"
    r = run("embed", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["pages"] == 7 and [k["slug"] for k in out["skipped"]] == ["notes/bad"]
    assert "input length exceeds the context length" in out["skipped"][0]["error"]
    assert "not embedded: notes/bad" in r.stderr.decode()
    r = run("embed")  # only the refused page is left, and it is named in the text too
    assert r.returncode == 1 and "notes/bad" in r.stdout.decode() + r.stderr.decode()
    srv.mode = "ok"
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 1 and not json.loads(r.stdout)["skipped"]


@pytest.mark.engine_free
def test_bisection_finds_each_refused_input(srv):
    from gbrain.search.vectors import _embed_splitting

    srv.mode = "poison"
    texts = [f"t{i}" for i in range(16)]
    texts[3] = texts[12] = "POISON"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url)
    vecs, refused = _embed_splitting(m, texts, None)
    assert sorted(refused) == [3, 12] and all((v is None) == (i in (3, 12)) for i, v in enumerate(vecs))
    with pytest.raises(InputRefused):
        m.embed_multi(texts)


# ---------------------------------------------------------------------------
# 4. query with a server down or hung
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("how", [pytest.param("down", marks=pytest.mark.engine_free), "hung"])
def test_query_falls_back_to_keywords_when_the_server_is_down_or_hung(srv, run, how):
    setup_brain(run, srv.url)
    assert run("embed").returncode == 0
    assert run("config", "set", "query_embed_timeout", "1").returncode == 0
    if how == "down":
        assert run("config", "set", "embedding_base_url", closed_port_url()).returncode == 0
    else:
        srv.mode = "hang"
    r = run("query", "zebra", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mode"] == "keyword" and out["hits"][0]["slug"] == "notes/alpha"
    assert any("within 1 s" in n and "showing keyword results" in n and ("cannot connect" if how == "down" else "no answer in time") in n for n in out["notes"])
    if how == "down":  # embed keeps retrying, then fails
        assert run("config", "set", "embedding_max_retries", "1").returncode == 0
        put(run, "notes/beta", "# Beta\n\nquasar notes\n")
        r = run("embed")
        assert r.returncode == 1 and "failed after 2 attempts" in r.stderr.decode()


@pytest.mark.engine_free
def test_a_hung_server_fails_after_two_short_first_attempts_not_seven_full_ones(srv):
    """`embed` against a server that accepts and never answers waited 60 s × 7 attempts (7 minutes)
    before failing. Until the server has answered once, the first request is one input alone with
    the short first-answer timeout (``first_timeout``, default 15 s), tried twice; the other
    inputs wait for it. A busy server (HTTP 503) keeps its retries: only no answer at all is cut."""
    srv.mode = "hang"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, max_retries=6, backoff=0.001, timeout=60, first_timeout=0.2)
    assert m.request_timeout() == 0.2
    try:
        with pytest.raises(ProviderError, match=r"no answer in time") as e:
            m.embed_multi(["a", "b", "c"])
        assert "failed after 2 attempts" in str(e.value) and "never answered" in str(e.value), e.value
        assert [r["input"] for r in srv.requests] == [["a"], ["a"]]  # the first input alone, twice; b and c never sent
        assert m.request_timeout() == 0.2  # still never answered
    finally:
        srv.release.set()
    srv.requests.clear()
    srv.mode = "status 503"  # an answer, however busy: the normal timeout and every retry
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, max_retries=3, backoff=0.001, timeout=60, first_timeout=0.2)
    with pytest.raises(ProviderError, match=r"failed after 4 attempts \(last: HTTP 503\)"):
        m.embed_multi(["a", "b"])
    assert len(srv.requests) == 4 and m.request_timeout() == 60


@pytest.mark.engine_free
def test_the_first_answer_timeout_is_a_setting_the_hung_error_names(srv, run):
    """A server that loads a big model on its first request (Ollama, llama.cpp from a slow disk)
    may need longer than the 15 s first-answer timeout: `config set embedding_first_timeout`
    gives it, and the error of a server that never answered says so."""
    setup_brain(run, srv.url)
    assert run("config", "set", "embedding_first_timeout", "0").returncode == 2  # above 0
    assert run("config", "set", "embedding_first_timeout", "0.3").returncode == 0
    srv.mode = "hang"
    try:
        r = run("embed")
        err = r.stderr.decode()
        assert r.returncode == 1 and "never answered (0.3 s a request" in err and "embedding_first_timeout" in err, err
    finally:
        srv.release.set()
    assert len(srv.requests) == 2


@pytest.mark.engine_free
def test_once_the_server_answered_its_batches_have_the_normal_timeout_and_retries(srv):
    """After the first answer the batches go whole, with ``timeout`` (a big batch on a CPU server
    may take a minute), and a request that hangs then is retried ``max_retries`` times."""
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, max_retries=2, backoff=0.001, timeout=0.3, first_timeout=0.1)
    v = m.embed_multi(["a", "b", "c"])
    assert v.shape == (3, 64)
    assert [r["input"] for r in srv.requests] == [["a"], ["b", "c"]] and m.request_timeout() == 0.3
    assert m.embed_multi(["d", "e"]).shape == (2, 64) and [r["input"] for r in srv.requests][2:] == [["d", "e"]]
    srv.requests.clear()
    srv.mode = "hang"
    try:
        with pytest.raises(ProviderError, match=r"failed after 3 attempts \(last: no answer in time\)"):
            m.embed_multi(["f", "g"])
        assert [r["input"] for r in srv.requests] == [["f", "g"]] * 3
    finally:
        srv.release.set()
    # the same vectors whichever way the inputs went: one request of three
    m2 = emb.OpenAIEmbedding("local-embed", base_url=srv.url, timeout=5)
    srv.mode = "ok"
    m2.embed_multi(["x"])
    assert (m2.embed_multi(["a", "b", "c"]) == v).all()


@pytest.mark.engine_free
def test_query_embed_timeout_must_be_a_positive_number(srv, run):
    setup_brain(run, srv.url)
    assert run("embed").returncode == 0
    for bad in ("soon", "0", "0.0"):
        r = run("config", "set", "query_embed_timeout", bad)
        assert r.returncode == 2 and "query_embed_timeout" in r.stderr.decode()
    from gbrain.search.hybrid import EMBED_WAIT_S, embed_wait
    from gbrain.errors import BadInput

    assert embed_wait({}) == EMBED_WAIT_S and embed_wait({"query_embed_timeout": "2.5"}) == 2.5
    with pytest.raises(BadInput):
        embed_wait({"query_embed_timeout": "soon"})


# ---------------------------------------------------------------------------
# 5. answers that are not embeddings, on every surface
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("mode,words", [("garbage", "not an embeddings response"), ("ragged", "sizes in one batch")])
def test_nonsense_answers_are_a_provider_error_on_every_surface(srv, run, mode, words):
    setup_brain(run, srv.url)
    put(run, "notes/beta", "# Beta\n\nquasar notes\n")
    put(run, "notes/gamma", "# Gamma\n\npulsar notes\n")  # (the first input goes alone: two more make a ragged batch)
    srv.mode = mode
    r = run("embed", "--json")
    assert r.returncode == 1 and "Traceback" not in r.stderr.decode()
    out = json.loads(r.stdout)
    # the kind a program branches on is the provider's (trial8: embed's "finished pages are
    # saved" wrapper made it the generic "error")
    assert words in out["error"] and out["exit_code"] == 1 and out["kind"] == "provider_error"
    r = run("call", "embed", "{}")
    assert r.returncode == 1 and words in json.loads(r.stdout)["error"] and "internal error" not in r.stdout.decode()
    assert json.loads(r.stdout)["kind"] == "provider_error"
    r = run("pipe", input='{"id": 1, "tool": "embed", "params": {}}\nnot json\n')
    assert r.returncode == 2  # a line of bad input outranks the failure
    a, b = (json.loads(x) for x in r.stdout.decode().splitlines())
    assert a["exit_code"] == 1 and words in a["error"] and "bad JSON line" not in a["error"]
    assert b["exit_code"] == 2 and "bad JSON line" in b["error"]
    if mode == "garbage":  # a question: keyword results and why
        srv.mode = "ok"
        assert run("embed").returncode == 0
        srv.mode = mode
        r = run("query", "zebra", "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["mode"] == "keyword"
        assert any(words in n for n in json.loads(r.stdout)["notes"])


@pytest.mark.engine_free
def test_a_password_in_the_base_url_is_never_printed(srv, run):
    """A base URL may carry credentials (``http://bob:PASSWORD@host/v1``: a proxy's basic auth).
    The errors and notes of embed and query quoted the URL whole, password included, on stderr,
    in --json's error and to an agent (trial8); they show ``***`` for it, as a Postgres URL."""
    url = srv.url.replace("http://", "http://bob:s3cr3tPW@")
    setup_brain(run, url)
    env = {"OPENAI_API_KEY": "sk-env"}
    assert run("config", "set", "embedding_max_retries", "0").returncode == 0
    for mode in ("status 500", "status 401", "garbage"):
        srv.mode = mode
        for argv in (["embed", "--json"], ["query", "zebra", "--json"], ["call", "brain_embed", "{}"]):
            r = run(*argv, env=env)
            out = r.stdout.decode() + r.stderr.decode()
            assert "s3cr3tPW" not in out and "bob:***@127.0.0.1" in out, (mode, argv, out)


@pytest.mark.engine_free
def test_an_answer_whose_indexes_are_not_each_input_once_is_refused_not_stored_out_of_order(srv):
    """Each vector goes with its text by the answer's ``index``; an answer whose indexes are not
    0..n-1 once each (two items ``index`` 0, one missing) cannot say which vector is whose: it
    is a provider error, not vectors stored against the wrong chunks (trial8: sorting by
    index put the last text's vector second and shifted the rest, stored without a word)."""
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, backoff=0.001)
    texts = ["alpha", "beta", "gamma"]
    want = m.embed_multi(texts)
    srv.mode = "dupidx"
    with pytest.raises(ProviderError, match=r"indexes 0, 0, 1 for 3 inputs"):
        m.embed_multi(texts)
    srv.mode = "ok"
    assert (m.embed_multi(texts) == want).all()


# ---------------------------------------------------------------------------
# 6. the server's own words; Retry-After
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_a_500_storm_shows_the_server_text_and_a_long_retry_after_stops_at_once(srv):
    srv.mode = "status 500"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, max_retries=2, backoff=0.001)
    with pytest.raises(ProviderError, match=r"failed after 3 attempts \(last: HTTP 500\); the server said: busy, status 500"):
        m.embed_multi(["a"])
    srv.requests.clear()
    srv.mode = "status 429"
    srv.headers = {"Retry-After": "3600"}
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, max_retries=5, backoff=0.001)
    with pytest.raises(ProviderError, match=r"HTTP 429: busy, status 429; the server asks to wait 3600 s"):
        m.embed_multi(["a"])
    assert len(srv.requests) == 1


@pytest.mark.engine_free
def test_embedding_dimensions_not_taken_is_said_and_config_unset_drops_it(srv, run):
    setup_brain(run, srv.url)
    r = run("config", "set", "embedding_dimensions", "256")
    assert r.returncode == 0 and "embedding_dimensions 256 is not used for local-embed" in r.stderr.decode()
    r = run("embed")
    assert r.returncode == 0 and "embedding_dimensions 256 is not used" in r.stderr.decode()
    assert all("dimensions" not in q for q in srv.requests)
    r = run("config", "unset", "embedding_dimensions")
    assert r.returncode == 0 and "unset" in r.stdout.decode()
    r = run("config", "get", "embedding_dimensions")
    assert r.returncode == 1
    assert run("config", "unset", "embedding_dimensions").stdout.decode().strip() == "embedding_dimensions was not set"
    assert run("config", "unset", "version").returncode == 2 and run("config", "unset", "no_such_key").returncode == 2
    # the user's own base URL back: unset the brain's
    assert run("config", "unset", "embedding_base_url").returncode == 0
    assert "embedding_base_url" not in run("config", "get", "--json").stdout.decode()
    assert emb.dims_unused_note("text-embedding-3-small", "512") is None
    assert emb.dims_unused_note("text-embedding-ada-002", "1536") is None
    assert "not used" in emb.dims_unused_note("minilm", "128")


def test_the_time_sample_of_a_long_local_run_survives_a_refused_chunk(srv, run, db_path):
    """`embed` times a sample before a long run on a free server; a refused chunk in it gives
    no estimate instead of stopping the run (the run bisects and skips it)."""
    from gbrain.core.brain import Brain
    from gbrain.search.vectors import plan_embed, sample_rate, select_pages

    setup_brain(run, srv.url)
    for i in range(4):
        put(run, f"notes/p{i}", f"# P{i}\n\nPOISON text {i}\n" if i == 2 else f"# P{i}\n\nplain text {i}\n")
    srv.mode = "poison"
    with Brain.open(db_path) as b:
        model = emb.OpenAIEmbedding("local-embed", base_url=srv.url)
        _, work = plan_embed(b.conn, model, select_pages(b.conn, "local-embed", "all"))
        assert sample_rate(b.conn, model, work, n=8, transaction=b.transaction) == (0.0, 0)


# ---------------------------------------------------------------------------
# 7. trial 28: what a person waiting on `embed` is told
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_embed_says_when_it_waits_to_retry_a_busy_server(srv, run):
    """Trial 28: a 429 storm or a server gone away held `embed` silent for its whole retry budget
    (24 s, up to 6 × 120 s with Retry-After), no line between the estimate and the error."""
    setup_brain(run, srv.url)
    assert run("config", "set", "embedding_max_retries", "1").returncode == 0
    srv.mode = "status 429"
    srv.headers = {"Retry-After": "1"}
    r = run("embed")
    assert r.returncode == 1, r.stderr
    err = r.stderr.decode()
    assert len(srv.requests) == 2
    assert "note: http://127.0.0.1:" in err and "answered HTTP 429 (busy, status 429); retrying in 1 s (attempt 2 of 2)" in err, err
    assert "failed after 2 attempts" in err


@pytest.mark.engine_free
@pytest.mark.parametrize("sent", ["OPENAI_API_KEY", "GBRAIN_EMBEDDING_API_KEY", None])
def test_a_401_names_the_key_that_was_sent_and_where_it_came_from(srv, run, monkeypatch, sent):
    """Trial 28: a wrong key's 401 told to `run gbrain embed --stale` (no fix for a key) and not
    which key gbrain had sent."""
    for k in ("OPENAI_API_KEY", "GBRAIN_EMBEDDING_API_KEY", "OPENAI_BASE_URL", "GBRAIN_EMBEDDING_BASE_URL"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url)  # the user's own URL: OPENAI_API_KEY may go there
    if sent:
        monkeypatch.setenv(sent, "sk-wrong")
    assert run("init").returncode == 0
    assert run("config", "set", "embedding_model", "local-embed").returncode == 0
    put(run, "notes/alpha", "# Alpha\n\nzebra notes\n")
    srv.mode = "status 401"
    r = run("embed")
    assert r.returncode == 1, r.stderr
    err = r.stderr.decode()
    if sent:
        assert f"the key sent is ${sent} from your environment: check it" in err, err
    else:
        assert "no key was sent: set $OPENAI_API_KEY (or $GBRAIN_EMBEDDING_API_KEY" in err, err


def test_a_refused_chunks_page_keeps_its_other_vectors_and_the_counts_add_up(srv, run):
    """Trial 28: a server with a short context refused one section of 58 pages; `embed` said
    `1,553 chunks (1,861 new, 58 from cache)` (the skipped pages' chunks counted as new and
    cached, not as stored) and threw away the vectors of their other sections, sent and paid
    for again on every run."""
    setup_brain(run, srv.url)
    assert run("embed").returncode == 0  # notes/alpha, 1 chunk
    put(run, "notes/bad", "# Bad\n\nintro words\n\n## One\n\nfine section one\n\n## Two\n\nPOISON long text\n\n## Three\n\nfine section three\n")
    put(run, "notes/good", "# Good\n\nplain text\n")
    srv.mode = "poison"
    r = run("embed", "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 1 and out["chunks"] == 1 and out["embedded"] + out["cached"] + out.get("repeated", 0) == out["chunks"], out
    srv.requests.clear()
    r = run("embed", "--json")  # only the refused text goes to the server again
    assert r.returncode == 1
    assert [t for q in srv.requests for t in q["input"]] and all("POISON" in t for q in srv.requests for t in q["input"]), srv.requests
    srv.mode = "ok"
    srv.requests.clear()
    r = run("embed", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["pages"] == 1 and out["chunks"] == 4 and out["embedded"] == 1 and out["cached"] == 3, out
    assert [t for q in srv.requests for t in q["input"]] == [t for q in srv.requests for t in q["input"] if "POISON" in t]


def test_a_page_changed_while_it_was_embedded_is_not_counted_as_embedded(srv, run, db_path):
    """Trial 28: `watch` edited 19 pages while `embed` ran; `embed` said `embedded 2,000 page(s)`
    though it stored none of the 19 (changed since their chunks were cut: they stay stale), and
    did not say to run it again."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    put(run, "notes/beta", "# Beta\n\nyak notes\n")

    def edit(inputs):
        if srv.on_request is edit:
            srv.on_request = None
            with Brain.open(db_path) as b:
                b.put("notes/beta", "# Beta\n\nyak notes, edited meanwhile\n")

    srv.on_request = edit
    r = run("embed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 1 and out["changed"] == 1 and out["chunks"] == 1, out
    put(run, "notes/beta", "# Beta\n\nyak notes, edited again\n")
    srv.on_request = edit
    r = run("embed")  # the text says so; the page stays to embed
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().startswith("embedded 0 page(s)") and "1 page(s) changed (or were deleted) while being embedded" in r.stdout.decode(), r.stdout
    r = run("embed")
    assert r.stdout.decode().startswith("embedded 1 page(s)"), r.stdout


def _stale(db_path) -> list[str]:
    """The slugs ``embed --stale`` would take now (the active model's)."""
    from gbrain.core.brain import Brain
    from gbrain.search.vectors import active_model, select_pages

    with Brain.open(db_path) as b:
        model, _ = active_model(b.conn, b.config())
        ids = [r["id"] for r in select_pages(b.conn, model.model_id, "stale")]
        return sorted(b.conn.execute("SELECT slug FROM pages WHERE id = ?", (i,)).fetchone()[0] for i in ids)


def test_one_page_written_while_it_is_embedded_is_planned_again_and_its_current_text_embedded(srv, run, db_path):
    """Persona trial 56: `brain_embed {"slug": X}` answered `plan.to_embed: 4` but `pages: 0,
    embedded: 0` while watch wrote the page (a person's save): its chunks, cut from the text
    before, were not stored, and an agent took `embedded: 0` for a failure. The text the page
    settled on is planned again once in the same call and embedded; the answer says nothing
    changed meanwhile that is still to embed."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    put(run, "notes/beta", "# Beta\n\nyak notes\n\n## More\n\nsecond part\n")

    def edit(inputs):  # a real write between the plan and the store: another Brain, as watch is
        if srv.on_request is edit:
            srv.on_request = None
            with Brain.open(db_path) as b:
                b.put("notes/beta", "# Beta\n\nyak notes, edited meanwhile\n\n## More\n\nsecond part\n")

    srv.on_request = edit
    r = run("call", "brain_embed", '{"slug": "notes/beta"}')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 1 and out["chunks"] == 2 and not out.get("changed") and not out.get("changed_slugs"), out
    sent = [t for q in srv.requests[-1:] for t in q["input"]]
    assert len(sent) == 1 and "edited meanwhile" in sent[0], srv.requests  # only the new text again
    assert out["embedded"] == 1 and out["cached"] == 1, out
    assert "notes/beta" not in _stale(db_path)


def test_a_page_that_keeps_changing_while_it_is_embedded_is_named_with_what_to_do(srv, run, db_path):
    """The same, with a page written again on each request (it has not settled): one more plan,
    then the answer names it (`changed_slugs`) beside the count, with a `message` to call again,
    and the command line's summary names it too (one operation, both surfaces)."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    put(run, "notes/beta", "# Beta\n\nyak notes\n")
    n = [0]

    def edit(inputs):
        n[0] += 1
        with Brain.open(db_path) as b:
            b.put("notes/beta", f"# Beta\n\nyak notes, edit {n[0]}\n")

    srv.on_request = edit
    r = run("call", "brain_embed", '{"slug": "beta"}')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert n[0] == 2, n  # planned once more, no further
    assert out["pages"] == 0 and out["changed"] == 1 and out["changed_slugs"] == ["notes/beta"], out
    assert "notes/beta" in out["message"] and "brain_embed" in out["message"], out
    r = run("embed", "notes/beta")
    assert r.returncode == 0, r.stderr
    said = r.stdout.decode()
    assert said.startswith("embedded 0 page(s)") and "1 page(s) changed (or were deleted) while being embedded" in said and "\n  notes/beta" in said, said
    srv.on_request = None
    assert run("embed", "notes/beta").stdout.decode().startswith("embedded 1 page(s)")


def _page_vectors(db, slug) -> list[tuple]:
    """``(chunk_index, chunk_text, text_hash, embedding bytes)`` of ``slug``'s stored chunks, and
    whether its ``embed_state`` holds the page's content hash (as the last tuple)."""
    from gbrain.core.brain import Brain

    with Brain.open(db) as b:
        pid, h = b.conn.execute("SELECT id, content_hash FROM pages WHERE slug = ?", (slug,)).fetchone()
        rows = [(r[0], r[1], r[2], bytes(r[3])) for r in b.conn.execute(
            "SELECT chunk_index, chunk_text, text_hash, embedding FROM page_embeddings WHERE page_id = ? ORDER BY chunk_index", (pid,))]
        return rows + [(b.conn.execute("SELECT content_hash FROM embed_state WHERE page_id = ?", (pid,)).fetchone()[0] == h,)]


def test_a_page_planned_again_has_the_vectors_of_a_fresh_embed_and_one_deleted_meanwhile_is_named(srv, run, db_path, tmp_path, request):
    """Review of the re-plan (embed SLUG of a page written meanwhile): its stored chunks are those
    a fresh brain's `embed` of the text it settled on stores (its unchanged chunks from the cache),
    and a page deleted meanwhile is not planned again but named by its slug."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    t0 = "# Beta\n\nyak notes\n\n## More\n\nsecond part\n\n## Third\n\nthird part\n"
    t1 = t0.replace("yak notes", "yak notes, edited")
    put(run, "notes/beta", t0)
    put(run, "notes/gone", "# Gone\n\nsoon deleted\n")

    def edit(inputs):
        if srv.on_request is edit:
            srv.on_request = None
            with Brain.open(db_path) as b:
                b.put("notes/beta", t1) if any("yak" in t for t in inputs) else b.delete_page("notes/gone")

    srv.on_request = edit
    out = json.loads(run("embed", "notes/beta", "--json").stdout)
    assert out["pages"] == 1 and out["embedded"] == 1 and out["cached"] == 2 and not out.get("changed"), out
    fresh = str(tmp_path / "fresh.db") if "://" not in str(db_path) else request.getfixturevalue("pg_url")
    env = {"GBRAIN_DB": fresh}
    assert run("init", env=env).returncode == 0
    assert run("config", "set", "embedding_base_url", srv.url, env=env).returncode == 0
    assert run("config", "set", "embedding_model", "local-embed", env=env).returncode == 0
    assert run("put", "notes/beta", input=t1, env=env).returncode == 0
    assert run("embed", "notes/beta", env=env).returncode == 0
    assert _page_vectors(db_path, "notes/beta") == _page_vectors(fresh, "notes/beta")
    assert _page_vectors(db_path, "notes/beta")[-1] == (True,)
    srv.on_request = edit
    r = run("call", "brain_embed", '{"slug": "notes/gone"}')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 0 and out["changed"] == 1 and out["changed_slugs"] == ["notes/gone"] and "notes/gone" in out["message"], out


def test_a_run_over_many_pages_names_those_written_meanwhile_and_plans_none_again(srv, run, db_path):
    """Without a slug the pages written meanwhile are named (at most ``CHANGED_NAMED``) and left
    to the next call: the run is not repeated (a watch writing all the time would hold it)."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    for i in range(3):
        put(run, f"notes/p{i}", f"# P{i}\n\nplain text {i}\n")
    calls = [0]

    def edit(inputs):
        calls[0] += 1
        if calls[0] == 1:
            with Brain.open(db_path) as b:
                b.put("notes/p1", "# P1\n\nplain text 1, edited\n")
                b.delete_page("notes/p2")

    srv.on_request = edit
    r = run("embed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert not [t for q in srv.requests for t in q["input"] if "edited" in t], srv.requests  # not planned again
    assert out["pages"] == 2 and out["changed"] == 2 and out["changed_slugs"] == ["notes/p1", "notes/p2"], out
    assert "call" not in out.get("message", "") and "gbrain embed" in out["message"], out
    assert _stale(db_path) == ["notes/p1"]


@pytest.mark.engine_free
def test_a_batch_refused_for_its_size_is_halved_for_the_run_and_said_once(srv, run):
    """trial 28: a gateway taking at most K inputs per request made embed bisect every group, silently."""
    setup_brain(run, srv.url)
    for i in range(40):
        put(run, f"notes/p{i}", f"# P{i}\n\nplain text {i}\n")
    srv.mode = "maxin 8"
    r = run("embed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["pages"] == 41 and not out["skipped"]
    err = r.stderr.decode()
    assert err.count("embedding_batch_size") == 1 and "config set embedding_batch_size" in err
    sizes = [len(q["input"]) for q in srv.requests][1:]  # (the first request: the first input alone, the server's first answer)
    first_ok = next(i for i, n in enumerate(sizes) if n <= 8)
    # learned: never refused again (bisection refused each group): the batches over 8 are the
    # first and the two halves of it (counted, not ordered: a half in flight when the other was
    # refused is abandoned, and may reach the server after the first batches of 8)
    assert len([n for n in sizes if n > 8]) <= 3, sizes
    assert first_ok <= 3, sizes  # 32 → 16 → 8


# ---------------------------------------------------------------------------
# 6. a model with a short window: the chunk budget (config embedding_chunk_tokens)
# ---------------------------------------------------------------------------

#: one paragraph of ~2,000 characters: one chunk of ~490 of gbrain's tokens, 644 of window_tokens'
LONG = " ".join(f"Sentence {j} speaks of alpha beta gamma delta epsilon zeta eta theta." for j in range(28))


def long_pages(run, n=3):
    for i in range(n):
        put(run, f"notes/long{i}", f"# Long {i}\n\n{LONG} Sentence {i} ends it.\n\n## Other\n\nshort other section {i}\n")


@pytest.mark.parametrize("flavor", ["llama", *(pytest.param(f, marks=pytest.mark.engine_free) for f in ("llama-old", "tei", "tei-native", "openai", "ollama"))])
def test_a_server_refusing_long_inputs_is_said_once_naming_the_setting_and_the_setting_fixes_it(srv, run, flavor):
    """A local server with a 512-token window (llama.cpp's physical batch, TEI's bge-small, ...)
    refused gbrain's ~500-token chunks: llama.cpp's HTTP 500 was retried as a busy server and then
    ended the whole run; TEI's 413 was taken for a batch-size limit (advice to set
    embedding_batch_size, one input per request for the rest of the run); every refusal was said
    once per page, twice (warning and listing), and nothing said what to change."""
    setup_brain(run, srv.url)
    long_pages(run)
    srv.mode = f"window 512 {flavor}"
    r = run("embed", "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    err = r.stderr.decode()
    assert sorted(k["slug"] for k in out["skipped"]) == ["notes/long0", "notes/long1", "notes/long2"], out
    assert out["pages"] == 1, out
    assert "retrying" not in err, err  # a refusal, not a busy server
    assert "embedding_batch_size" not in err, err  # not a limit of inputs per request
    assert err.count("embedding_chunk_tokens") == 1, err
    assert err.count("notes/long1") == 1 and "Sentence" not in err, err
    k = int(re.search(r"gbrain config set embedding_chunk_tokens (\d+)", err).group(1))
    if flavor in ("llama", "tei", "tei-native", "openai"):  # the server's figures: 512 of 644 for a 491-token chunk
        assert k == 340, err
    else:  # no figures: half the budget
        assert k == 250, err
    assert k in [int(x) for x in re.findall(r"\d+", out["message"])], out["message"]
    r = run("embed")  # the text lists the pages once, without the server's words three times
    text = r.stdout.decode()
    assert r.returncode == 1 and text.count("notes/long") == 3 and text.count("embedding_chunk_tokens") <= 1, text

    assert run("config", "set", "embedding_chunk_tokens", str(k)).returncode == 0
    srv.requests.clear()
    r = run("embed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert not out["skipped"] and out["pages"] == 4, out
    sent = [t for q in srv.requests for t in q["input"]]
    # only the long sections, cut again: the other sections' vectors were kept, the short page's reused
    assert sent and all("Sentence" in t for t in sent), sent
    assert len({t for t in sent}) == len(sent) == 6, [len(t) for t in sent]
    srv.requests.clear()
    r = run("embed", "--json")
    assert json.loads(r.stdout)["pages"] == 0 and not srv.requests


def test_the_chunk_budget_changes_which_chunks_are_embedded_and_only_the_changed_texts_are_sent(srv, run, db_path):
    from gbrain.core.brain import Brain
    from gbrain.search.chunking import approx_tokens

    setup_brain(run, srv.url)
    long_pages(run, 2)
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["chunks"] == 5, r.stdout
    assert run("config", "set", "embedding_chunk_tokens", "200").returncode == 0
    r = run("stats", "--json")
    assert json.loads(r.stdout)["pages_to_embed"] == 3, r.stdout  # every page: another cut
    r = run("lint", "--check", "embeddings")
    assert "embedding_chunk_tokens 200" in r.stdout.decode(), r.stdout
    srv.requests.clear()
    r = run("embed", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["pages"] == 3 and out["chunks"] > 5, out
    sent = [t for q in srv.requests for t in q["input"]]
    assert sent and all("Sentence" in t for t in sent) and out["embedded"] == len(sent), (sent, out)
    with Brain.open(db_path) as b:
        sizes = [approx_tokens(t) for (t,) in b.conn.execute("SELECT chunk_text FROM page_embeddings")]
    assert sizes and max(sizes) <= 200, sizes
    # back to the default: the old cut's vectors come back from the cache, nothing is sent
    assert run("config", "unset", "embedding_chunk_tokens").returncode == 0
    srv.requests.clear()
    r = run("embed", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["pages"] == 3 and out["chunks"] == 5 and out["embedded"] == 0 and not srv.requests, out


@pytest.mark.engine_free
@pytest.mark.parametrize("value", ["abc", "12.5", "-300", "63", "8193", "", "1e3"])
def test_embedding_chunk_tokens_takes_a_whole_number_in_range(run, value):
    assert run("init").returncode == 0
    r = run("config", "set", "--", "embedding_chunk_tokens", value)
    assert r.returncode == 2, r
    assert "embedding_chunk_tokens" in r.stderr.decode() and "64" in r.stderr.decode() and "8192" in r.stderr.decode(), r.stderr
    assert run("config", "set", "embedding_chunk_tokens", "64").returncode == 0
    assert run("config", "set", "embedding_chunk_tokens", "8192").returncode == 0


@pytest.mark.engine_free
@pytest.mark.parametrize("flavor, figures", [("llama", True), ("llama-old", False), ("tei", True), ("tei-native", True), ("openai", True), ("ollama", False)])
def test_each_servers_length_refusal_is_read_with_its_figures(srv, flavor, figures):
    from gbrain.search.vectors import _embed_splitting

    limit_given = (512, window_tokens(LONG)) if figures else (None, None)

    srv.mode = f"window 512 {flavor}"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, backoff=0.001)
    texts = ["short one", LONG, "short two"]
    vecs, refused = _embed_splitting(m, texts, None)
    assert list(refused) == [1] and vecs[0] is not None and vecs[2] is not None
    assert emb.length_refusal(refused[1]) and emb.length_figures(refused[1]) == limit_given, refused[1]
    assert len(srv.requests) <= 6  # a refusal is never retried (llama.cpp answers it with HTTP 500; the first input goes alone first)
    assert not emb.length_refusal("too many inputs: at most 8 per request") and not emb.length_refusal("busy, status 500")
    assert not emb.length_refusal("batch exceeds the maximum limit of 2048 inputs")
    assert emb.length_refusal("the request exceeds the available context size, try increasing it")  # llama.cpp, a causal model


def test_watch_embed_says_once_which_setting_a_short_window_needs(srv, run, db_path):
    """`watch --embed` skipped the refused pages without a word (and sent them again each round)."""
    from gbrain.sync.embedder import EmbedKeeper
    from test_watch import wait_for

    setup_brain(run, srv.url)
    long_pages(run, 2)
    srv.mode = "window 512 tei"
    lines: list[str] = []
    k = EmbedKeeper(db_path, lines.append, idle_s=0.01, retry_s=0.05)
    k.start()
    try:
        k.poke()
        wait_for(lambda: k.rounds >= 1, "a first round")
        k.poke()
        wait_for(lambda: k.rounds >= 2, "a second round")
    finally:
        k.stop()
    said = [ln for ln in lines if "embedding_chunk_tokens" in ln]
    assert len(said) == 1 and "gbrain config set embedding_chunk_tokens 340" in said[0] and "notes/long0, notes/long1" in said[0], lines
    # the round's line names the page it embedded, not the two refused (it said "…: Alpha, Long 0, Long 1")
    done = [ln for ln in lines if ln.startswith("embedded ")]
    assert done and done[0].startswith("embedded 1 page(s)") and done[0].endswith(": Alpha; 2 refused"), lines


# ---------------------------------------------------------------------------
# 7. the server's own window, asked once (TEI /info, llama.cpp /props)
# ---------------------------------------------------------------------------

#: GET /info of text-embeddings-inference serving bge-small (its Info schema, the fields gbrain reads and a few more)
TEI_INFO = {"model_id": "BAAI/bge-small-en-v1.5", "model_dtype": "float32", "model_type": {"embedding": {"pooling": "cls"}},
            "max_concurrent_requests": 512, "max_input_length": 512, "max_batch_tokens": 16384, "max_client_batch_size": 32,
            "tokenization_workers": 2, "version": "1.7.1"}
#: GET /props of llama-server --embedding (-c 2048 -ub 512: an input must fit the physical batch)
LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 2048, "model": "nomic-embed"}, "total_slots": 1, "n_ubatch": 512,
               "model_path": "nomic-embed-text-v1.5.Q8_0.gguf", "build_info": "b5000"}


@pytest.mark.parametrize("flavor, pages, said", [
    ("tei", {"/info": (200, TEI_INFO)}, "/info max_input_length"),
    ("llama", {"/props": (200, LLAMA_PROPS)}, "/props n_ubatch"),
])
def test_the_servers_window_is_asked_once_and_chunks_fit_it(srv, run, db_path, flavor, pages, said):
    """A server whose model reads 512 tokens refused gbrain's ~500-token chunks (each such page
    skipped until a person set embedding_chunk_tokens). The server says its window: `embed` asks
    once, caches it with the model and base URL, and cuts the chunks to fit."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    long_pages(run)
    srv.pages = pages
    srv.mode = f"window 512 {flavor}"
    r = run("embed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert not out["skipped"] and out["pages"] == 4, out
    err = r.stderr.decode()
    assert err.count("512 tokens") == 1 and said in err and "chunks are cut at 340" in err, err
    assert srv.gets == ["/info"] + (["/props"] if flavor == "llama" else []), srv.gets
    with Brain.open(db_path) as b:
        cached = json.loads(b.get_config("embedding_server_window"))
        assert cached == {"model": "local-embed", "url": srv.url, "tokens": 512, "from": said}, cached
        assert "340" in (b.get_config("embedding_chunk_tokens_used") or "").split(",")
    # asked once: the next runs read the brain's config
    srv.gets.clear()
    put(run, "notes/gamma", f"# Gamma\n\n{LONG}\n")
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 1 and not srv.gets, (r.stdout, srv.gets)
    assert "512 tokens" not in r.stderr.decode()
    r = run("stats", "--json")
    assert json.loads(r.stdout)["pages_to_embed"] == 0, r.stdout  # stats reads the same cut
    # the person's own budget wins, and nothing is asked
    assert run("config", "set", "embedding_chunk_tokens", "200").returncode == 0
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 5 and not srv.gets
    # another model on the same server is asked about again
    assert run("config", "unset", "embedding_chunk_tokens").returncode == 0
    assert run("config", "set", "embedding_model", "other-embed").returncode == 0
    r = run("embed", "--json")
    assert r.returncode == 0 and len(srv.gets) >= 1, srv.gets
    # set by gbrain alone
    r = run("config", "set", "embedding_server_window", "{}")
    assert r.returncode == 2 and "set by gbrain itself" in r.stderr.decode()


def test_a_server_that_says_no_window_is_not_asked_again_and_chunks_stay_as_they_were(srv, run, db_path):
    """Ollama, vLLM, LM Studio: no /info nor /props (404): the answer is cached as none and the
    chunks are gbrain's own (~500 tokens), as before."""
    from gbrain.core.brain import Brain

    setup_brain(run, srv.url)
    long_pages(run, 1)
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["chunks"] == 3, r.stdout
    assert srv.gets == ["/info", "/props"] and r.stderr.decode() == "", (srv.gets, r.stderr)
    with Brain.open(db_path) as b:
        assert json.loads(b.get_config("embedding_server_window"))["tokens"] is None
        assert not b.get_config("embedding_chunk_tokens_used")
    srv.gets.clear()
    put(run, "notes/gamma", "# Gamma\n\nshort\n")
    assert run("embed").returncode == 0 and not srv.gets


def test_a_server_that_cannot_be_asked_is_silent_and_asked_next_time(srv, run, db_path, monkeypatch):
    """No answer to GET /info within the short timeout: nothing cached, nothing said, today's chunks."""
    from gbrain.core.brain import Brain

    monkeypatch.setattr(emb, "SERVER_WINDOW_TIMEOUT", 0.3)
    setup_brain(run, srv.url)
    long_pages(run, 1)
    srv.pages = {"/info": "hang"}
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["chunks"] == 3, r.stdout
    assert srv.gets == ["/info"] and "note" not in r.stderr.decode(), r.stderr
    with Brain.open(db_path) as b:
        assert b.get_config("embedding_server_window") is None
    srv.pages = {"/info": (200, TEI_INFO)}
    srv.gets.clear()
    put(run, "notes/gamma", "# Gamma\n\nshort\n")
    r = run("embed", "--json")
    assert r.returncode == 0 and srv.gets == ["/info"] and "chunks are cut at 340" in r.stderr.decode(), r.stderr


@pytest.mark.engine_free
def test_the_window_budget_is_two_thirds_of_the_servers_tokens_below_gbrains_own_chunks():
    assert emb.window_budget(512) == 340 and emb.window_budget(256) == 170 and emb.window_budget(80) == 64
    assert emb.window_budget(8192) is None and emb.window_budget(750) is None and emb.window_budget(None) is None


def test_config_get_says_the_budget_the_servers_window_gives_and_where_it_came_from(srv, run, db_path):
    """`config get embedding_chunk_tokens` said "not set (its default applies)" (exit 1) while
    every embed cut chunks at 340, the budget TEI's /info gave; the listing did not show it
    either. Now both say the value in effect and where it came from, from the cached answer: no
    question to the server."""
    setup_brain(run, srv.url)
    long_pages(run, 1)
    r = run("config", "get", "embedding_chunk_tokens")  # never asked: gbrain's own chunks, said as in effect
    assert r.returncode == 0 and r.stdout.decode().strip() == "500" and "500 is in effect" in r.stderr.decode(), r
    assert "is not known yet" in r.stderr.decode(), r
    srv.pages = {"/info": (200, TEI_INFO)}
    assert run("embed").returncode == 0
    srv.gets.clear()
    r = run("config", "get", "embedding_chunk_tokens")
    assert r.returncode == 0 and r.stdout.decode().strip() == "340", r
    err = r.stderr.decode()
    assert "not set" in err and "340 is in effect" in err and "512" in err and "/info max_input_length" in err and emb._host(srv.url) in err, err
    r = run("config", "get", "embedding_chunk_tokens", "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == "340", r
    listing = run("config", "get").stdout.decode()
    line = next(ln for ln in listing.splitlines() if ln.startswith("embedding_chunk_tokens = "))
    assert line.startswith("embedding_chunk_tokens = 340 (in effect: ") and "512" in line and "..." not in line, listing
    assert "embedding_chunk_tokens" not in json.loads(run("config", "get", "--json").stdout)  # --json: the stored values
    assert not srv.gets, srv.gets  # read from the cache
    # a budget the person sets is the one in effect, said plainly
    assert run("config", "set", "embedding_chunk_tokens", "200").returncode == 0
    r = run("config", "get", "embedding_chunk_tokens")
    assert r.stdout.decode().strip() == "200" and r.stderr.decode() == "", r
    assert "embedding_chunk_tokens = 200\n" in run("config", "get").stdout.decode() + "\n"
    # another model on the same server: its window is not known yet
    assert run("config", "unset", "embedding_chunk_tokens").returncode == 0
    assert run("config", "set", "embedding_model", "other-embed").returncode == 0
    r = run("config", "get", "embedding_chunk_tokens")
    assert r.returncode == 0 and r.stdout.decode().strip() == "500" and "not set" in r.stderr.decode() and not srv.gets, r


@pytest.mark.engine_free
def test_config_get_says_the_models_own_chunk_size_when_nothing_sets_one(run):
    """`config get embedding_chunk_tokens` said "not set (its default applies)" (exit 1) on a brain
    with no server window (the local minilm model; OpenAI's): it prints the budget in effect, exit 0,
    and says where it comes from; the listing shows it too."""
    assert run("init").returncode == 0
    r = run("config", "get", "embedding_chunk_tokens", env={"OPENAI_API_KEY": ""})  # minilm: its own window
    assert r.returncode == 0 and r.stdout.decode().strip() == "220", r
    assert "not set" in r.stderr.decode() and "minilm" in r.stderr.decode() and "220 is in effect" in r.stderr.decode(), r
    assert "embedding_chunk_tokens = 220 (in effect: minilm" in run("config", "get", env={"OPENAI_API_KEY": ""}).stdout.decode()
    r = run("config", "get", "embedding_chunk_tokens", env={"OPENAI_API_KEY": "sk-test"})  # OpenAI's: gbrain's chunks
    assert r.returncode == 0 and r.stdout.decode().strip() == "500" and "text-embedding-3-small" in r.stderr.decode(), r
    r = run("config", "get", "embedding_chunk_tokens", "--json", env={"OPENAI_API_KEY": ""})
    assert r.returncode == 0 and json.loads(r.stdout) == "220", r
    assert run("config", "set", "embedding_chunk_tokens", "200").returncode == 0  # set: the stored value, plainly
    r = run("config", "get", "embedding_chunk_tokens", env={"OPENAI_API_KEY": ""})
    assert r.returncode == 0 and r.stdout.decode().strip() == "200" and r.stderr == b"", r


@pytest.mark.parametrize("flavor, pages", [("tei", {"/info": (200, TEI_INFO)}), ("llama", {"/props": (200, LLAMA_PROPS)})])
def test_watch_embed_asks_the_servers_window_once_and_cuts_as_embed_does(srv, run, db_path, flavor, pages):
    """`watch --embed` never asked the server for its window (only `embed` did): its chunks were
    gbrain's ~500 tokens, refused by a 512-token server, and not the cut `embed` makes (a later
    `embed` found every watched page stale). Now its first round asks once, caches it, cuts at
    the same budget; later rounds read the cache."""
    import threading

    from gbrain.sync.embedder import EmbedKeeper
    from test_watch import wait_for

    setup_brain(run, srv.url)
    long_pages(run, 2)
    srv.pages = pages
    srv.mode = f"window 512 {flavor}"
    lines: list[str] = []
    k = EmbedKeeper(db_path, lines.append, idle_s=0.01, retry_s=0.05)
    k.start()
    try:
        k.poke()
        wait_for(lambda: k.rounds >= 1, "a first round")
        assert k.pages == 3 and not k.errors, lines
        assert srv.gets == ["/info"] + (["/props"] if flavor == "llama" else []), srv.gets
        said = [ln for ln in lines if "512 tokens" in ln]
        assert len(said) == 1 and "chunks are cut at 340" in said[0], lines
        assert not any("embedding_chunk_tokens 340" in ln and "warning" in ln for ln in lines), lines  # nothing refused
        srv.gets.clear()
        put(run, "notes/gamma", f"# Gamma\n\n{LONG}\n")
        k.poke()
        wait_for(lambda: k.rounds >= 2, "a second round")
        assert k.pages == 4 and not srv.gets, (lines, srv.gets)  # the cached window: not asked again
    finally:
        k.stop()
    assert sum("512 tokens" in ln for ln in lines) == 1, lines
    # the same cut as `embed`: nothing is stale for it, nothing is sent
    srv.requests.clear()
    r = run("embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 0 and not srv.requests and not srv.gets, (r.stdout, srv.gets)


def test_watch_embed_asks_a_server_that_did_not_answer_again_only_after_a_failed_round(srv, run, db_path, monkeypatch):
    """A server whose /info does not answer in time: the watch's rounds (one per save) did not each
    wait for it again; after a round that failed (the server down) it is asked again."""
    from gbrain.sync.embedder import EmbedKeeper
    from test_watch import wait_for

    monkeypatch.setattr(emb, "SERVER_WINDOW_TIMEOUT", 0.3)
    setup_brain(run, srv.url)
    srv.pages = {"/info": "hang"}
    lines: list[str] = []
    k = EmbedKeeper(db_path, lines.append, idle_s=0.01, retry_s=0.05)
    k.start()
    try:
        k.poke()
        wait_for(lambda: k.rounds >= 1, "a first round")
        assert srv.gets == ["/info"] and k.pages == 1, (srv.gets, lines)
        put(run, "notes/beta", "# Beta\n\nshort\n")
        k.poke()
        wait_for(lambda: k.rounds >= 2, "a second round")
        assert srv.gets == ["/info"] and k.pages == 2, (srv.gets, lines)
        srv.mode = "status 401"  # refused: the round fails, and the next asks again
        srv.pages = {"/info": (200, TEI_INFO)}
        put(run, "notes/gamma", "# Gamma\n\nshort\n")
        k.poke()
        wait_for(lambda: k.errors >= 1, "a failed round")
        srv.mode = "ok"
        wait_for(lambda: k.rounds >= 3, "a round once the server is back")
        assert srv.gets[1:] == ["/info"] and any("chunks are cut at 340" in ln for ln in lines), (srv.gets, lines)
    finally:
        k.stop()


# ---------------------------------------------------------------------------
# 8. trial 39: Ctrl-C while a server hangs; the time sample's retries
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_an_interrupt_while_a_request_hangs_returns_at_once_and_sends_nothing_more(srv):
    """Trial 39: Ctrl-C during `embed` against a hung server (60 s a request, 7 attempts) kept the
    process sending requests for minutes: embed_multi's thread pool waited, on the way out, for
    every request in flight and its retries. Here one batch is answered and the person's Ctrl-C
    (KeyboardInterrupt in the main thread, raised where the progress is shown) comes while the
    other batch's request hangs: embed_multi raises it before the server lets go of that request,
    and no retry is sent after it."""
    release_later = threading.Timer(20, srv.release.set)  # a safety net only: the fixed code never waits for it
    release_later.start()
    try:
        hung = threading.Event()

        def answer(inp):
            if any("HANG" in t for t in inp):
                hung.set()
                srv.release.wait()
        srv.on_request = answer
        m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, batch_size=1, max_in_flight=2, max_retries=6, backoff=0.001, timeout=5)

        def interrupted(n):
            hung.wait(10)  # Ctrl-C while the other request hangs
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            m.embed_multi(["fine", "HANG here"], on_batch=interrupted)
        assert not srv.release.is_set(), "embed_multi returned only once the hung request was let go"
        srv.mode = "status 503"  # the hung request is now answered busy: no retry may follow it
        srv.release.set()
        for t in threading.enumerate():
            if t.name.startswith("gbrain-embed"):
                t.join(10)
        assert [r["input"] for r in srv.requests if "HANG here" in r["input"]] == [["HANG here"]]
    finally:
        release_later.cancel()
        srv.release.set()


@pytest.mark.engine_free
def test_a_failed_batch_stops_the_other_batches_retries(srv):
    """When one batch's retries are used up, the run ends: the other batches in flight do not go
    on retrying (and sending) behind the error."""
    def answer(inp):
        if any("SLOW" in t for t in inp):
            srv.release.wait()
    srv.on_request = answer
    srv.mode = "status 503"
    m = emb.OpenAIEmbedding("local-embed", base_url=srv.url, batch_size=1, max_in_flight=2, max_retries=1, backoff=0.001, timeout=30)
    try:
        # "a" fails twice (503) while "SLOW" waits; then SLOW's 503 comes and it must not retry
        with pytest.raises(ProviderError, match="failed after 2 attempts"):
            m.embed_multi(["a", "SLOW"])
        before = [r["input"] for r in srv.requests]
        srv.release.set()
        for t in threading.enumerate():
            if t.name.startswith("gbrain-embed"):
                t.join(10)
        slow = [r for r in srv.requests if r["input"] == ["SLOW"]]
        assert len(slow) == 1, (before, [r["input"] for r in srv.requests])
    finally:
        srv.release.set()


@pytest.mark.engine_free
def test_the_time_samples_retries_are_said_too(srv, run, monkeypatch):
    """Trial 39: a server answering 500 or 429 from the start held `embed` silent for its whole
    retry budget (35 s, 7 attempts; a hung one 7 minutes): the notes were switched on only after
    the time sample that a long run against a free server takes first."""
    from gbrain.operations import search as ops_search

    monkeypatch.setattr(ops_search, "ANNOUNCE_CHUNKS", 0)  # a long run: the sample comes first
    setup_brain(run, srv.url)
    assert run("config", "set", "embedding_max_retries", "1").returncode == 0
    srv.mode = "status 429"
    srv.headers = {"Retry-After": "1"}
    r = run("embed")
    assert r.returncode == 1, r.stderr
    err = r.stderr.decode()
    assert "answered HTTP 429 (busy, status 429); retrying in 1 s (attempt 2 of 2)" in err, err
    assert "failed after 2 attempts" in err


def test_stopping_watch_embed_while_a_request_hangs_says_what_it_waits_for(srv, run, db_path, monkeypatch):
    """Trial 39: Ctrl-C on `watch --embed` while the embedding server hung left the terminal silent
    for 30 s (the keeper waits for the request in flight, so a finished batch is kept): now it says
    so after a moment, and how long at most."""
    from gbrain.sync import embedder
    from gbrain.sync.embedder import EmbedKeeper
    from test_watch import wait_for

    monkeypatch.setattr(embedder, "STOP_QUIET_S", 0.05)
    setup_brain(run, srv.url)
    srv.pages["/info"] = (404, {})
    sent = threading.Event()
    srv.on_request = lambda inp: sent.set()
    srv.mode = "hang"
    lines: list[str] = []
    k = EmbedKeeper(db_path, lines.append, idle_s=0.01, retry_s=0.05)
    k.start()
    try:
        k.poke()
        wait_for(sent.is_set, "the embedding request")
        k.stop(timeout=0.5)
    finally:
        srv.release.set()
    assert any(ln.startswith("stopping: waiting up to ") and "embedding request in flight" in ln for ln in lines), lines


def test_the_time_samples_vectors_count_as_new_not_from_cache(srv, run, monkeypatch):
    """Trial 39: `embed`'s summary said `47,186 new, 526 from cache` where the run had sent every
    one of those texts (no input sent twice): the time sample's vectors, sent by this run and kept
    in `embedding_cache` for it, were counted as reused. Counted as sent: `new` is what the server
    embedded in this run; `from cache` only a vector an earlier run paid for."""
    from gbrain.operations import search as ops_search

    monkeypatch.setattr(ops_search, "ANNOUNCE_CHUNKS", 0)  # a long run: the sample comes first
    setup_brain(run, srv.url)
    for i in range(12):
        put(run, f"notes/p{i}", f"# P{i}\n\nplain text number {i} about topic {i * 7}\n")
    r = run("--json", "embed")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    sent = [t for q in srv.requests for t in q["input"]]
    assert len(sent) == len(set(sent)) and "timed on" in r.stderr.decode(), r.stderr  # a sample was taken; nothing sent twice
    assert out["embedded"] == len(sent) and out["cached"] == 0, (out, len(sent))
    # a second run after a change: the unchanged pages' vectors are stored ones, the new text is new
    put(run, "notes/p3", "# P3\n\nplain text number 3, rewritten\n")
    srv.requests.clear()
    out = json.loads(run("--json", "embed", "--all").stdout)
    sent = [t for q in srv.requests for t in q["input"]]
    assert out["embedded"] == len(sent) >= 1 and out["cached"] == out["chunks"] - len(sent), (out, sent)
