"""An OpenAI-compatible embedding server for tests: a real ``ThreadingHTTPServer`` on 127.0.0.1 in a
thread, which the real ``openai`` client (and gbrain's CLI through it) talks to.

:class:`EmbedServer` is the plumbing (start, answer, close); a test module's server subclasses it
and says what a ``POST /v1/embeddings`` (:meth:`EmbedServer.on_post`) and a ``GET``
(:meth:`EmbedServer.on_get`, default 404) answer. Used by ``tests/test_embed_provider.py``
(``ModeServer``), ``tests/test_query_weights.py`` (``StripesServer``) and ``tests/test_semantic.py``
(``FakeOpenAI``).
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class EmbedServer:
    """A server on 127.0.0.1 (a free port; ``url`` its ``…/v1`` base URL) until :meth:`close`.
    ``headers`` are added to every answer (``h.send(status, data, headers)`` adds more to one); ``release`` is set by :meth:`close`, so a handler
    waiting on it (a hung server) lets go."""

    def __init__(self):
        self.headers: dict[str, str] = {}
        self.release = threading.Event()
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.on_get(self)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                outer.on_post(self, body, inputs)

            def send(self, code, data, headers=None):
                self.send_response(code)
                for k, v in {**outer.headers, **(headers or {})}.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def on_get(self, h) -> None:
        """Answer a GET on handler ``h`` (``h.path``; ``h.send(status, bytes)``): 404."""
        h.send(404, b'{"error": "not found"}')

    def on_post(self, h, body: dict, inputs: list[str]) -> None:
        """Answer a POST on handler ``h``: ``body`` the request's JSON, ``inputs`` its ``input``
        as a list. Answer with ``h.send(status, bytes)`` (:func:`embeddings`), or not at all."""
        raise NotImplementedError

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def embeddings(body: dict, vectors: list, indexes: list[int] | None = None) -> bytes:
    """The JSON of an OpenAI ``/v1/embeddings`` answer to ``body`` giving ``vectors`` (each a list
    of floats, or a base64 string when the request asked ``encoding_format: base64``), each item's
    ``index`` its place, or ``indexes`` (a wrong answer's)."""
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in zip(indexes or range(len(vectors)), vectors)]
    return json.dumps({"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
