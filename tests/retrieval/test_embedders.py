import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from remnant.embed import (
    CachedEmbedder,
    EmbedderUnavailable,
    EmbeddingError,
    EmbeddingModelMismatch,
    NpzVectorCache,
    check_model,
    content_hash,
    get_embedder,
)
from remnant.embed.openai_http import OpenAIEmbedder

TEXTS = ["Caroline went to a support group.", "Melanie paints sunsets.", "我喜欢画画"]


def assert_unit_rows(v, n, dim):
    assert v.shape == (n, dim) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["static", "minilm"])
def test_local_embedders_shapes_and_normalisation(name):
    e = get_embedder(name)
    docs = e.embed_documents(TEXTS)
    assert_unit_rows(docs, 3, e.dim)
    q = e.embed_query("who paints?")
    assert q.shape == (e.dim,) and abs(float(np.linalg.norm(q)) - 1) < 1e-4
    assert e.embed_documents([]).shape == (0, e.dim)
    with pytest.raises(EmbeddingError):
        e.embed_documents("a bare string")
    assert isinstance(e.model_id, str) and e.model_id


def test_minilm_is_semantic_and_batch_independent():
    e = get_embedder("minilm")
    assert e.dim == 384
    q = e.embed_query("Which art does Melanie make?")
    d = e.embed_documents(TEXTS)
    assert int(np.argmax(d @ q)) == 1
    one = e.embed_documents([TEXTS[1]])[0]
    assert float(one @ d[1]) > 0.999  # padding in a batch does not change a vector


def test_unknown_and_unavailable_embedders_error_clearly():
    with pytest.raises(EmbeddingError, match="unknown embedder"):
        get_embedder("nope")
    with pytest.raises(EmbeddingError):
        get_embedder("  ")
    with pytest.raises(EmbedderUnavailable, match="torch"):
        get_embedder("st:sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(EmbedderUnavailable):
        get_embedder("arctic")


def test_mismatch_error_is_clear():
    check_model("a", "a")
    with pytest.raises(EmbeddingModelMismatch, match=r"expected vectors from 'minilm'.*got 'e5'"):
        check_model("minilm", "e5", "scope x")


class CountingEmbedder:
    model_id = "counting"
    dim = 64

    def __init__(self):
        self.inner = get_embedder("static")
        self.calls = 0
        self.texts = 0

    def embed_documents(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        self.calls += 1
        return self.inner.embed_query(text)


def test_cache_hits_lru_and_persistence(tmp_path):
    inner = CountingEmbedder()
    store = NpzVectorCache(tmp_path)
    c = CachedEmbedder(inner, capacity=2, store=store)
    a = c.embed_documents(["x", "y", "x"])
    assert inner.texts == 2  # duplicate embedded once
    assert np.array_equal(a[0], a[2])
    c.embed_documents(["x", "y"])
    assert inner.texts == 2
    c.embed_query("q")
    c.embed_query("q")
    assert inner.calls == 2
    store.flush()
    fresh_inner = CountingEmbedder()
    c2 = CachedEmbedder(fresh_inner, store=NpzVectorCache(tmp_path))
    b = c2.embed_documents(["y", "x", "z"])
    assert fresh_inner.texts == 1  # only "z" was new
    assert np.allclose(b[1], a[0])
    assert content_hash("x") == content_hash("x") != content_hash("y")
    assert len(NpzVectorCache(tmp_path).get_many("counting", [content_hash("x")])) == 1
    assert NpzVectorCache(tmp_path).get_many("other-model", [content_hash("x")]) == {}


def test_cache_is_safe_to_share_between_threads():
    """A server's request threads share one retriever and so one cache: a small LRU under churn
    from many threads must neither raise nor hand back another text's vector."""
    import threading

    inner = CountingEmbedder()
    c = CachedEmbedder(inner, capacity=8)
    expected = {f"t{i}": inner.embed_query(f"t{i}") for i in range(40)}
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for n in range(400):
                text = f"t{(seed * 7 + n) % 40}"
                assert np.array_equal(c.embed_query(text), expected[text])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show up quickly
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and len(c._lru) <= 8


class _Handler(BaseHTTPRequestHandler):
    requests: list = []  # noqa: RUF012

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"model exploded")
            return
        data = []
        for i, text in enumerate(body["input"]):
            vec = [float(len(text)), 1.0, float(i), 2.0]
            data.append({"object": "embedding", "index": i, "embedding": vec})
        data.reverse()  # servers may answer out of order; index decides
        out = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    _Handler.requests = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def test_openai_provider_against_loopback_server(server):
    e = OpenAIEmbedder("tiny-embed", base_url=server, api_key="sk-test", batch_size=2)
    v = e.embed_documents(["a", "bbb", "cc"])
    assert_unit_rows(v, 3, 4)
    expect = np.array([1.0, 1.0, 0.0, 2.0]) / np.linalg.norm([1.0, 1.0, 0.0, 2.0])
    assert np.allclose(v[0], expect)  # order restored from "index"
    assert e.dim == 4 and e.model_id == "openai:tiny-embed"
    path, auth, body = _Handler.requests[0]
    assert path == "/v1/embeddings" and auth == "Bearer sk-test"
    assert body == {"model": "tiny-embed", "input": ["a", "bbb"]}
    assert len(_Handler.requests) == 2  # batches of 2
    assert e.embed_query("hello").shape == (4,)
    e.close()


@pytest.mark.slow
def test_openai_provider_errors_and_registry(server):
    with pytest.raises(EmbeddingError, match="HTTP 500"):
        OpenAIEmbedder("broken", base_url=server).embed_documents(["x"])
    with pytest.raises(EmbeddingError, match="failed"):
        OpenAIEmbedder("m", base_url="http://127.0.0.1:9", timeout_s=2).embed_query("x")
    e = get_embedder("openai:tiny-embed", shared=False, base_url=server, dim=4)
    assert e.dim == 4 and e.embed_documents(["q"]).shape == (1, 4)
