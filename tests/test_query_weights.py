"""The keyword weight `query` fuses with (trial 64): a model gbrain has no measured weight for
(a local OpenAI-compatible server's) gets a default that keeps keywords ahead, and config
``query_keyword_weight`` sets it for the model in use when it is set (another model takes its own). Through the real ``openai`` client against a real
HTTP server on 127.0.0.1 and the CLI, in-process. Runs on both engines (``--engine postgres``)."""
from __future__ import annotations

import json

import pytest

from conftest import gbrain_in_process as run
from embed_server import EmbedServer, embeddings


class StripesServer(EmbedServer):
    """/v1/embeddings: a text holding "stripes" is [1, 0, 0, 0], any other [0, 1, 0, 0]."""

    def __init__(self):
        self.posts: list[list[str]] = []  # each POST's inputs
        super().__init__()

    def on_post(self, h, body, inputs):
        self.posts.append(inputs)
        h.send(200, embeddings(body, [[1.0, 0, 0, 0] if "stripes" in t else [0, 1.0, 0, 0] for t in inputs]))


@pytest.fixture
def srv():
    s = StripesServer()
    yield s
    s.close()


def brain(url):
    """Two pages: notes/a holds the question's word (the keyword side finds only it), notes/b is
    the question's nearest by meaning (cosine 1; notes/a 0). Fused by tmm at keyword weight w,
    notes/a scores w and notes/b 1 − w (boosts add the same to both)."""
    assert run("init").returncode == 0
    for k, v in (("embedding_base_url", url), ("embedding_model", "lab-embed")):
        assert run("config", "set", k, v).returncode == 0
    assert run("put", "notes/a", input="# A\n\nzebra stripes\n").returncode == 0
    assert run("put", "notes/b", input="# B\n\nkiwi fruit\n").returncode == 0
    r = run("embed")
    assert r.returncode == 0, r.stderr


def ranked() -> list[tuple[str, float]]:
    r = run("query", "zebra", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mode"] == "hybrid" and out["model"] == "lab-embed"
    return [(h["slug"], h["score"]) for h in out["items"]]


def test_a_model_without_a_measured_weight_keeps_the_keyword_match_first(srv):
    from gbrain.search.hybrid import DEFAULT_WEIGHT

    brain(srv.url)
    (s1, a), (s2, b) = ranked()
    # the old default 0.4 put the page that only means the question above the one holding its word
    assert (s1, s2) == ("notes/a", "notes/b")
    assert a - b == pytest.approx(2 * DEFAULT_WEIGHT - 1, abs=1e-6)


@pytest.mark.parametrize("w", ["0.2", "0.9", "0", "1"])
def test_config_query_keyword_weight_sets_the_weight_for_any_model(srv, w):
    brain(srv.url)
    assert run("config", "set", "query_keyword_weight", w).returncode == 0
    hits = dict(ranked())
    assert hits["notes/a"] - hits.get("notes/b", 0.0) == pytest.approx(2 * float(w) - 1, abs=1e-6)
    got = run("config", "get", "query_keyword_weight").stdout.decode()
    assert w in got
    assert run("config", "unset", "query_keyword_weight").returncode == 0


def gap(model: str) -> float:
    """notes/a's fused score less notes/b's under ``model``: 2·w − 1 at keyword weight w."""
    r = run("query", "zebra", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mode"] == "hybrid" and out["model"] == model
    hits = {h["slug"]: h["score"] for h in out["items"]}
    return hits["notes/a"] - hits.get("notes/b", 0.0)


def test_a_set_weight_belongs_to_the_model_in_use_when_it_was_set(srv):
    """A weight tuned for one model is not another's: after the model changes, the new one takes
    its own weight (the default here), the set one comes back with its model, and ``config``
    says which model it belongs to."""
    from gbrain.search.hybrid import DEFAULT_WEIGHT

    brain(srv.url)
    assert run("config", "set", "query_keyword_weight", "0.9").returncode == 0
    assert gap("lab-embed") == pytest.approx(0.8, abs=1e-6)
    r = run("config", "get", "query_keyword_weight")
    assert r.stdout.decode().strip() == "0.9" and "lab-embed" in r.stderr.decode()
    assert run("config", "set", "embedding_model", "lab-embed-2").returncode == 0
    assert run("embed").returncode == 0
    assert gap("lab-embed-2") == pytest.approx(2 * DEFAULT_WEIGHT - 1, abs=1e-6)
    r = run("config", "get", "query_keyword_weight")
    err = r.stderr.decode()
    assert r.stdout.decode().strip() == "0.9" and "lab-embed" in err and "lab-embed-2" in err and str(DEFAULT_WEIGHT) in err
    listing = run("config", "get").stdout.decode()
    assert "query_keyword_weight_model" in listing and "lab-embed" in listing
    assert run("config", "set", "embedding_model", "lab-embed").returncode == 0
    assert gap("lab-embed") == pytest.approx(0.8, abs=1e-6)
    # set again under another model: it is that model's now; unset takes the model with it
    assert run("config", "set", "embedding_model", "lab-embed-2").returncode == 0
    assert run("config", "set", "query_keyword_weight", "0.2").returncode == 0
    assert gap("lab-embed-2") == pytest.approx(-0.6, abs=1e-6)
    assert run("config", "unset", "query_keyword_weight").returncode == 0
    assert "query_keyword_weight" not in run("config", "get").stdout.decode()


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "heavy", "nan"])
def test_query_keyword_weight_must_be_between_0_and_1(bad):
    assert run("init").returncode == 0
    r = run("config", "set", "--", "query_keyword_weight", bad)
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "query_keyword_weight" in err and "0" in err and "1" in err


@pytest.mark.engine_free
def test_a_bad_stored_weight_is_a_usage_error_naming_the_key():
    from gbrain.errors import BadInput
    from gbrain.search.hybrid import keyword_weight

    assert keyword_weight({}) is None and keyword_weight({"query_keyword_weight": ""}) is None
    assert keyword_weight({"query_keyword_weight": "0.3"}) == 0.3
    with pytest.raises(BadInput, match="query_keyword_weight"):
        keyword_weight({"query_keyword_weight": "2"})


@pytest.mark.engine_free
@pytest.mark.parametrize("key", ["query_keyword_weight", "embedding_price_per_mtok"])
def test_a_number_set_with_any_space_around_it_reads_as_that_number(key):
    """``str.strip`` and the checks' ``\\s`` take U+001C–U+001F as spaces, ``float`` does not: such a
    value crashed `config set query_keyword_weight` (a traceback) and a stored price crashed
    `embed`. The check (brain.SETTABLE_CONFIG, one with search's) and the reader agree."""
    from gbrain.core.brain import SETTABLE_CONFIG
    from gbrain.search.embeddings import price_config
    from gbrain.search.hybrid import keyword_weight

    read = keyword_weight if key == "query_keyword_weight" else price_config
    for v in ("\x1f0.5", " 0.5\x1c", "\t.5\n"):
        assert SETTABLE_CONFIG[key][0](v) is True
        assert read({key: v}) == 0.5


def test_the_key_not_sent_line_has_one_word_in_embed_and_query(srv):
    """trial 64: `embed` said "note: OPENAI_API_KEY not sent …", `query` "warning: …"."""
    assert run("init").returncode == 0
    for k, v in (("embedding_base_url", srv.url), ("embedding_model", "lab-embed")):
        assert run("config", "set", k, v).returncode == 0
    assert run("put", "notes/a", input="# A\n\nzebra stripes\n").returncode == 0
    env = {"OPENAI_API_KEY": "sk-not-for-you"}
    said = []
    for cmd in (("embed",), ("query", "zebra")):
        r = run(*cmd, env=env)
        assert r.returncode == 0, r.stderr
        said += [ln.split(":", 1)[0] for ln in r.stderr.decode().splitlines() if "OPENAI_API_KEY not sent" in ln]
    assert said == ["warning", "warning"]


@pytest.mark.engine_free
def test_the_confirm_message_shows_enough_digits_to_tell_the_amounts_apart():
    from gbrain.operations.search import usd

    assert usd(0.0005) == "$0.0005" and usd(0.000001) == "$0.000001" and usd(2.5) == "$2.50"
    assert usd(0) == "$0.00" and usd(1234.5) == "$1,234.50" and usd(0.0123) == "$0.01" and usd(0.00123456) == "$0.0012"


def paid_brain(url):
    assert run("init").returncode == 0
    for k, v in (("embedding_base_url", url), ("embedding_model", "lab-embed"), ("embedding_paid", "true")):
        assert run("config", "set", k, v).returncode == 0
    assert run("put", "notes/a", input="# A\n\nzebra stripes\n").returncode == 0


def test_a_paid_model_of_unknown_price_is_not_free_and_an_agent_is_asked(srv):
    """trial 64: a paid gateway's own model name was priced ~$0.00, so `brain_embed` never asked."""
    paid_brain(srv.url)
    r = run("embed", "--dry-run")
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "$0.00" not in out and "price unknown" in out and "embedding_price_per_mtok" in out
    r = run("call", "brain_embed", "{}")
    assert r.returncode == 0, r.stderr
    ans = json.loads(r.stdout)
    assert ans["needs_confirm"] is True and "price" in ans["message"] and "embedding_price_per_mtok" in ans["message"], ans
    assert ans["plan"]["estimated_cost_usd"] is None
    assert srv.posts == []  # nothing sent before the confirmation


def test_a_price_from_config_prices_the_run():
    from gbrain.search.embeddings import get_model

    m = get_model("lab-embed", {"embedding_base_url": "http://127.0.0.1:9/v1", "embedding_paid": "true", "embedding_price_per_mtok": "0.5"})
    assert m.estimate_cost(2_000_000) == pytest.approx(1.0)
    assert get_model("lab-embed", {"embedding_base_url": "http://127.0.0.1:9/v1", "embedding_paid": "true"}).estimate_cost(10) is None
    assert get_model("lab-embed", {"embedding_base_url": "http://127.0.0.1:9/v1"}).estimate_cost(10) == 0.0
    # OpenAI's own names keep OpenAI's price
    assert get_model("text-embedding-3-small", {"embedding_base_url": "http://127.0.0.1:9/v1", "embedding_paid": "true"}).estimate_cost(1_000_000) == pytest.approx(0.02)
    r = run("init")
    assert r.returncode == 0
    for bad in ("cheap", "-1"):
        r = run("config", "set", "--", "embedding_price_per_mtok", bad)
        assert r.returncode == 2 and "embedding_price_per_mtok" in r.stderr.decode()


@pytest.mark.engine_free
@pytest.mark.parametrize("key,read", [("query_embed_timeout", "seconds"), ("embedding_first_timeout", "seconds"),
                                      ("embed_confirm_usd", "usd"), ("embed_agent_seconds", "agent"),
                                      ("embedding_batch_size", "int")])
def test_every_number_key_set_with_any_space_around_it_is_checked_and_read_as_that_number(key, read):
    """Review of 90be142: the weight and the price were mended, but the other number keys' check
    and readers kept ``float(v)``/``int(v)`` of a value the check takes with U+001C–U+001F
    around it (``\\s`` and ``strip`` take them as spaces, ``float``/``int`` do not):
    `config set query_embed_timeout $'\\x1c5'` crashed in its check (``_seconds_or_empty``:
    ValueError, a traceback), and a stored `embed_confirm_usd` / `embedding_batch_size` the
    check took was refused as no number when read."""
    from gbrain.core.brain import SETTABLE_CONFIG
    from gbrain.operations.search import _agent_seconds, _confirm_usd
    from gbrain.search.embeddings import _int_config, seconds_config

    readers = {"seconds": lambda c: seconds_config(c, key, 99.0), "usd": _confirm_usd,
               "agent": _agent_seconds, "int": lambda c: _int_config(c, key, 99)}
    for v in ("\x1f5", " 5\x1c", "\x1e5\x1d"):
        assert SETTABLE_CONFIG[key][0](v) is True
        assert readers[read]({key: v}) == 5


#: every config key whose value is a number, and a value of it its check takes
NUMBER_KEYS = {"embedding_dimensions": "512", "embedding_max_retries": "3", "embedding_concurrency": "2",
               "embedding_batch_size": "16", "embedding_first_timeout": "2.5", "query_embed_timeout": "5",
               "query_keyword_weight": "0.5", "embedding_price_per_mtok": "0.02", "embed_confirm_usd": "2.50",
               "embed_agent_seconds": "30", "history_keep_days": "7", "history_keep_last": "3",
               "sync_client_expire_days": "30", "verify_trust_check_hours": "24", "embedding_chunk_tokens": "400"}
#: digits of other scripts: ``str.isdigit`` takes all four, ``\\d`` the two decimal ones (Arabic-Indic
#: three, fullwidth five), ``int()`` refuses superscript two and circled one
NON_ASCII_DIGITS = ("²", "٣", "①", "５", "1²", "0.٥", "٣0")


@pytest.mark.engine_free
@pytest.mark.parametrize("key", sorted(NUMBER_KEYS))
def test_a_number_key_takes_ascii_digits_only(key):
    """Review: ``_is_int`` was ``str.isdigit``, which takes "²" and "①": `config set
    embedding_batch_size ²` was stored, then refused by ``int()`` when read (a usage error far from
    its cause; `history --prune` a traceback); ``\\d`` (the seconds, dollars, weight and price
    checks) takes "٣", which SQLite's CAST (``sync_client_expire_days``) reads as 0. Every number
    key's check takes ASCII digits only, exactly what each of its readers parses."""
    from gbrain.core.brain import SETTABLE_CONFIG

    check = SETTABLE_CONFIG[key][0]
    assert check(NUMBER_KEYS[key]) is True
    for v in NON_ASCII_DIGITS:
        assert check(v) is False, (key, v)


def test_config_set_of_a_non_ascii_digit_is_a_usage_error():
    assert run("init").returncode == 0
    for key, v in (("embedding_batch_size", "²"), ("sync_client_expire_days", "٣"), ("history_keep_days", "①"),
                   ("query_embed_timeout", "٣")):
        r = run("config", "set", key, v)
        assert r.returncode == 2 and f"invalid value {v!r} for {key}" in r.stderr.decode(), (key, r.stderr)
        assert run("config", "get", key).returncode == 1  # nothing stored


@pytest.mark.engine_free
def test_history_prune_reads_a_stored_keep_key_int_reads_else_none():
    """A `history_keep_days` an older gbrain stored as "²" (``isdigit``) crashed `history --prune`
    (``int()``: ValueError, a traceback); one ``int()`` reads ("٣") still counts."""
    from gbrain.operations.history import _config_int

    class B:
        def __init__(self, v):
            self.v = v

        def get_config(self, key):
            return self.v

    assert [_config_int(B(v), "history_keep_days") for v in ("7", " 7 ", "²", "①", "٣", "", None, "x")] == [7, 7, None, None, 3, None, None, None]


def test_config_get_of_an_unset_read_only_key_says_gbrain_sets_it():
    """`config get query_keyword_weight_model` (any key gbrain sets itself) unset said "not set (its
    default applies)": it has no default; it says what sets it (exit 1, as any key not set)."""
    from gbrain.core.brain import READONLY_CONFIG

    assert run("init").returncode == 0
    for key in sorted(READONLY_CONFIG - {"version"}):
        r = run("config", "get", key)
        err = r.stderr.decode()
        assert r.returncode == 1 and r.stdout == b"", (key, r)
        assert f"config '{key}' is not set" in err and "gbrain sets it" in err and "default" not in err, (key, err)
    err = run("config", "get", "query_keyword_weight_model").stderr.decode()
    assert "config set query_keyword_weight" in err, err
    r = run("config", "get", "embedding_base_url")  # a key a user sets: its default applies
    assert r.returncode == 1 and "is not set (its default applies)" in r.stderr.decode()


def test_a_weight_set_at_one_size_of_a_model_is_not_another_sizes():
    """A text-embedding-3 model at a size of its own (`embedding_dimensions`) is another vector
    space, ``model_id`` ``…@512``: a weight set at 512 does not apply at 256 (its own weight does),
    and `config get query_keyword_weight` says why, naming both sizes; back at 512 it applies again."""
    from gbrain.search.hybrid import DEFAULT_WEIGHT

    assert run("init").returncode == 0
    for k, v in (("embedding_base_url", "http://127.0.0.1:9/v1"), ("embedding_model", "text-embedding-3-small"),
                 ("embedding_dimensions", "512"), ("query_keyword_weight", "0.3")):
        assert run("config", "set", k, v).returncode == 0
    assert run("config", "get", "query_keyword_weight_model").stdout.decode().strip() == "text-embedding-3-small@512"
    r = run("config", "get", "query_keyword_weight")
    assert r.stdout.decode().strip() == "0.3" and "text-embedding-3-small@512" in r.stderr.decode()
    assert run("config", "set", "embedding_dimensions", "256").returncode == 0
    r = run("config", "get", "query_keyword_weight")
    err = r.stderr.decode()
    assert r.returncode == 0 and r.stdout.decode().strip() == "0.3"
    assert "not in effect" in err and "text-embedding-3-small@512" in err and "text-embedding-3-small@256" in err, err
    assert "embedding_dimensions" in err and "another vector space" in err and f"its own weight, {DEFAULT_WEIGHT}" in err, err
    assert run("config", "set", "embedding_dimensions", "512").returncode == 0
    assert "not in effect" not in run("config", "get", "query_keyword_weight").stderr.decode()
