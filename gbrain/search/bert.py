"""Sentence embeddings from a BERT-family model directory, computed with numpy alone.

A *sentence-transformers* model directory (``config.json``, ``model.safetensors``,
``tokenizer.json``, optionally ``sentence_bert_config.json`` and ``1_Pooling/config.json``)
holds everything needed to embed text: the WordPiece tokenizer (run by the ``tokenizers``
library), the encoder weights (read by ``safetensors``) and the pooling recipe. This module runs
the encoder's forward pass in numpy, so the offline model needs neither PyTorch nor a download:
importing torch alone takes longer than the whole cold ``gbrain query`` budget (1 s).

The forward pass is BERT's (Devlin et al., "BERT: Pre-training of Deep Bidirectional
Transformers for Language Understanding", NAACL 2019, section 3; post-LayerNorm blocks, exact
erf GELU), followed by sentence-transformers' pooling (mean over real tokens, or the ``[CLS]``
vector) and L2 normalisation (Reimers & Gurevych, "Sentence-BERT", EMNLP 2019). Texts are cut
at the model's ``max_seq_length`` word pieces, as sentence-transformers does.
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

#: texts encoded per forward pass (sorted by length first, so padding stays small); small
#: batches keep the (batch, heads, t, t) attention scores in cache
BATCH = 8
#: inputs up to this many word pieces in all are encoded with one BLAS thread
SMALL_INPUT_TOKENS = 512


def token_counter(model_dir: str | Path):
    """``(offsets, window)`` of a sentence-transformers model directory: ``offsets(text)`` is the
    ``(start, end)`` character span in ``text`` of each word piece the model's tokenizer makes of
    it (no ``[CLS]``/``[SEP]``, no cut: their number is its count), ``window`` the word pieces
    the model reads (``max_seq_length``, its special tokens included), as :class:`BertEncoder`
    cuts. Loads ``tokenizer.json`` alone (no weights). Raises OSError / ValueError for a missing
    or unreadable file."""
    from tokenizers import Tokenizer

    d = Path(model_dir)
    cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
    window = int(cfg.get("max_position_embeddings", 512))
    st = d / "sentence_bert_config.json"
    if st.exists():
        window = min(window, int(json.loads(st.read_text(encoding="utf-8")).get("max_seq_length") or window))
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()

    def offsets(text: str) -> list:
        return tok.encode(text, add_special_tokens=False).offsets

    return offsets, window


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, exact form ``x · Φ(x) = x/2 · (1 + erf(x/√2))``, of float32 ``x`` (a new array of the
    same shape; ``x`` is not changed). numpy has no erf: Abramowitz & Stegun 7.1.26 (absolute
    error ≤ 1.5e-7), with in-place steps because this runs on the model's largest activations."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    e = np.square(z)
    np.negative(e, out=e)
    np.exp(e, out=e)  # exp(-z²)
    t = z
    t *= np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    p = t * np.float32(1.061405429)
    p -= np.float32(1.453152027)
    p *= t
    p += np.float32(1.421413741)
    p *= t
    p -= np.float32(0.284496736)
    p *= t
    p += np.float32(0.254829592)
    p *= t
    p *= e  # 1 - erf(|x|/√2)
    # x·Φ(x) = x − |x|/2 · (1 − erf(|x|/√2)) for either sign of x
    p *= np.abs(x)
    p *= np.float32(0.5)
    np.subtract(np.maximum(x, 0, out=e), p, out=p)
    return p


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class BertEncoder:
    """A loaded BERT-family sentence-embedding model.

    ``BertEncoder(model_dir)`` reads the directory (raises FileNotFoundError when a file is
    missing, ValueError for a model type other than BERT's); :meth:`encode` maps texts to
    L2-normalised float32 vectors of shape ``(len(texts), dims)``. Thread-safe."""

    def __init__(self, model_dir: str | Path):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = Path(model_dir)
        cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
        if cfg.get("model_type", "bert") != "bert" or cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{d}: only BERT models with absolute positions are supported (got {cfg.get('model_type')!r})")
        self.dims = int(cfg["hidden_size"])
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        max_len = int(cfg.get("max_position_embeddings", 512))
        st = d / "sentence_bert_config.json"
        if st.exists():
            max_len = min(max_len, int(json.loads(st.read_text(encoding="utf-8")).get("max_seq_length") or max_len))
        self.max_len = max_len
        pool = d / "1_Pooling" / "config.json"
        self.cls_pooling = bool(pool.exists() and json.loads(pool.read_text(encoding="utf-8")).get("pooling_mode_cls_token"))

        w = {k.removeprefix("bert."): v for k, v in load_file(str(d / "model.safetensors")).items()}

        def f32(name: str) -> np.ndarray:
            return np.ascontiguousarray(w[name], dtype=np.float32)

        self.word = f32("embeddings.word_embeddings.weight")
        self.pos = f32("embeddings.position_embeddings.weight")
        self.type0 = f32("embeddings.token_type_embeddings.weight")[0]
        self.ln0 = (f32("embeddings.LayerNorm.weight"), f32("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            # torch Linear stores (out, in); keep (in, out) so a row batch is x @ W
            qkv = np.concatenate([f32(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")]).T.copy()
            qkv_b = np.concatenate([f32(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
            self.layers.append((
                qkv, qkv_b,
                f32(p + "attention.output.dense.weight").T.copy(), f32(p + "attention.output.dense.bias"),
                (f32(p + "attention.output.LayerNorm.weight"), f32(p + "attention.output.LayerNorm.bias")),
                f32(p + "intermediate.dense.weight").T.copy(), f32(p + "intermediate.dense.bias"),
                f32(p + "output.dense.weight").T.copy(), f32(p + "output.dense.bias"),
                (f32(p + "output.LayerNorm.weight"), f32(p + "output.LayerNorm.bias")),
            ))
        self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_len)
        self._lock = threading.Lock()

    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids of each text, with ``[CLS]``/``[SEP]``, cut at ``max_len``."""
        with self._lock:  # a tokenizers.Tokenizer's truncation state is shared
            return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def _forward(self, ids: list[list[int]]) -> np.ndarray:
        n, t = len(ids), max(len(x) for x in ids)
        tok = np.zeros((n, t), dtype=np.int64)
        mask = np.zeros((n, t), dtype=np.float32)
        for i, x in enumerate(ids):
            tok[i, : len(x)] = x
            mask[i, : len(x)] = 1.0
        d = self.dims
        # activations stay 2-d, (n·t, d), so every dense layer is one matrix product
        x = (self.word[tok] + self.pos[:t] + self.type0).reshape(n * t, d)
        x = _layer_norm(x, *self.ln0, self.eps)
        h, dh = self.heads, d // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # (n, 1, 1, t): padding gets no attention
        scale = np.float32(1 / math.sqrt(dh))
        for qkv, qkv_b, wo, bo, ln1, wi, bi, wo2, bo2, ln2 in self.layers:
            y = x @ qkv
            y += qkv_b
            # (3, n, h, t, dh), contiguous so the batched matmuls below go to BLAS
            y = np.ascontiguousarray(y.reshape(n, t, 3, h, dh).transpose(2, 0, 3, 1, 4))
            a = y[0] @ np.ascontiguousarray(y[1].transpose(0, 1, 3, 2))  # (n, h, t, t)
            a *= scale
            a += bias
            a -= a.max(-1, keepdims=True)
            np.exp(a, out=a)
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ y[2]).transpose(0, 2, 1, 3).reshape(n * t, d)
            o = ctx @ wo
            o += bo
            o += x
            x = _layer_norm(o, *ln1, self.eps)
            f = x @ wi
            f += bi
            o = _gelu(f) @ wo2
            o += bo2
            o += x
            x = _layer_norm(o, *ln2, self.eps)
        x = x.reshape(n, t, d)
        if self.cls_pooling:
            v = x[:, 0]
        else:
            v = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        return v.astype(np.float32, copy=False)

    def encode(self, texts: list[str], batch_size: int = BATCH) -> np.ndarray:
        """``(len(texts), dims)`` float32, each row L2-normalised. Empty input → ``(0, dims)``.

        Batches of similar length run on one thread per core (:func:`_encoder_pool`), with BLAS
        held to one thread inside them: numpy's elementwise work (softmax, GELU) is then
        parallel too, which measured about 1.4× faster on 2 cores than BLAS threading alone."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        ids = self.tokenize([t if t.strip() else " " for t in texts])
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        parts = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]

        def run(part: list[int]) -> None:
            out[part] = self._forward([ids[i] for i in part])

        workers = min(len(parts), os.cpu_count() or 1, 8)
        if workers <= 1:
            # a small input (one question): BLAS threads cost more to start and join than the
            # matrix work they share (p50 295 ms → 59 ms for one question on 2 busy cores, same
            # vectors); a large single batch keeps BLAS's threads
            small = sum(len(i) for i in ids) <= SMALL_INPUT_TOKENS
            with _one_blas_thread() if small else contextlib.nullcontext():
                for part in parts:
                    run(part)
            return out
        # held for the whole encode: a pass's thread restoring the limit when it ended (as before)
        # set BLAS back to all threads process-wide (OpenBLAS's "_local" call is process-wide in
        # a pthreads build) while the other passes still ran, so their matrix products woke
        # OpenBLAS's own threads (20-25% of `embed`'s CPU, trial 64)
        with _one_blas_thread():
            list(_encoder_pool().map(run, parts))
        return out


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0


def _encoder_pool() -> ThreadPoolExecutor:
    """The process's encoder threads (one per core, at most 8), made once (not per encode); each
    asks OpenBLAS's thread-local limit of one thread when it starts (where that call is truly
    thread-local; the process-wide limit is :class:`_one_blas_thread`'s)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool_pid != os.getpid():  # a forked child has none of its parent's threads
            _pool, _pool_pid = None, os.getpid()
        if _pool is None:
            _pool = ThreadPoolExecutor(min(os.cpu_count() or 1, 8), thread_name_prefix="gbrain-encode",
                                       initializer=_thread_local_one)
        return _pool


_blas_lock = threading.Lock()
_blas_users = 0
_blas_limiter = None


class _one_blas_thread:
    """BLAS held to one thread while any encode runs. The limit is process-wide, so concurrent
    encodes share it: the first one in sets it, the last one out restores the old setting
    (nested ``threadpool_limits`` would restore out of order and leave BLAS at one thread)."""

    def __enter__(self):
        global _blas_users, _blas_limiter
        with _blas_lock:
            _openblas_local_setters()  # found (and the original setting read) before any limit
            if _blas_users == 0:
                from threadpoolctl import threadpool_limits

                _blas_limiter = threadpool_limits(limits=1, user_api="blas")
            _blas_users += 1
        _thread_local_one()

    def __exit__(self, *exc):
        global _blas_users, _blas_limiter
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _thread_local_restore()  # process-wide in a pthreads OpenBLAS: not while another encode runs
            if _blas_users == 0 and _blas_limiter is not None:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


def one_blas_thread() -> _one_blas_thread:
    """A context manager holding BLAS to one thread while it is entered (process-wide, counted:
    entered again inside itself or from another thread, the first entry sets the limit and the
    last exit restores the setting found before). Held around many encodes, the limit is not
    restored between them: a restore woke OpenBLAS's own threads, which then spun idle."""
    return _one_blas_thread()


_local_setters: list | None = None
_local_original: list[int] = []


def _openblas_local_setters() -> list:
    """OpenBLAS's ``openblas_set_num_threads_local`` of every loaded OpenBLAS (≥ 0.3.27), else [].

    Once OpenBLAS's thread server runs, a limit set with ``openblas_set_num_threads`` (what
    threadpoolctl calls) from a thread other than the main one was not applied with numpy's
    OpenBLAS 0.3.31 here, so ``query``, which encodes its question in a worker thread (and under
    ``serve`` runs in one), used all BLAS threads: 210-320 ms per question against 25-35 ms on 2
    busy cores. The ``_local`` call is applied from any thread. The setting each had before gbrain
    first changed it is kept in ``_local_original`` for restoring."""
    global _local_setters
    if _local_setters is None:
        found, orig = [], []
        try:
            from threadpoolctl import threadpool_info

            for info in threadpool_info():
                if info.get("internal_api") == "openblas":
                    fn = getattr(ctypes.CDLL(info["filepath"]), "openblas_set_num_threads_local", None)
                    if fn is not None:
                        fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
                        found.append(fn)
                        orig.append(int(info["num_threads"]))
        except Exception:  # noqa: BLE001 - no OpenBLAS or no such symbol: the global limit alone
            found, orig = [], []
        _local_original[:] = orig
        _local_setters = found
    return _local_setters


def _thread_local_one() -> None:
    """Hold the calling thread's BLAS calls to one thread (see ``_openblas_local_setters``)."""
    for fn in _openblas_local_setters():
        fn(1)


def _thread_local_restore() -> None:
    """Give the calling thread back the BLAS setting found before gbrain changed it (not the
    setting found on entry: with several encodes at once that may be another one's limit)."""
    for fn, n in zip(_openblas_local_setters(), _local_original):
        fn(n)
