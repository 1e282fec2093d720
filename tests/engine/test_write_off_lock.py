"""Writes do their CPU work (PII detection, embedding) before taking the store's write lock (issue 16,
finding 1): while one write is still detecting, another thread's recall and write go through."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.privacy import Detector, Keyring, Redactor, SqliteVaultStorage, Vault, generate_key
from remnant.privacy.entities import Detection
from remnant.privacy.policy import PrivacyPolicy
from remnant.retrieval import HybridRetriever
from remnant.retrieval.retriever import EMBED_CHARS, embedding_text


class GatedDetector(Detector):
    """The real detector, except that texts starting with "SLOW" wait until the test lets them go."""

    def __init__(self) -> None:
        super().__init__(PrivacyPolicy(use_presidio=False))
        self.entered = threading.Event()
        self.release = threading.Event()

    def detect(self, text: str) -> list[Detection]:
        if text.startswith("SLOW"):
            self.entered.set()
            assert self.release.wait(30)
        return super().detect(text)


def _memory(path: Path, detector: Detector) -> Memory:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    mem = Memory(path, clock=clock, retriever=HybridRetriever(get_embedder("static")))
    vault = Vault(SqliteVaultStorage(mem.store.connection), Keyring.from_keys([generate_key()]))  # type: ignore[attr-defined]
    mem.redactor = Redactor(vault, detector=detector)
    return mem


def test_reads_and_writes_pass_a_write_that_is_still_detecting(tmp_path: Path) -> None:
    detector = GatedDetector()
    with _memory(tmp_path / "w.db", detector) as mem:
        mem.remember("I drink green tea, mail me at ana@example.com", user_id="ana")
        errors: list[BaseException] = []

        def slow_write() -> None:
            try:
                mem.remember("SLOW note: call me on +44 20 7946 0958 about tea", user_id="bob")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        writer = threading.Thread(target=slow_write)
        writer.start()
        assert detector.entered.wait(30)
        try:
            # the slow write holds no lock: another tenant's user reads and writes meanwhile
            assert not mem.store.in_transaction()
            hits = mem.recall("tea", user_id="ana", touch=True)
            assert [h.memory.content for h in hits.hits] == ["I drink green tea, mail me at [EMAIL_1]"]
            mem.remember("coffee at work", user_id="ana")
        finally:
            detector.release.set()
            writer.join(30)
        assert not errors
        stored = mem.recall("tea", user_id="bob").hits
        assert [h.memory.content for h in stored] == ["SLOW note: call me on [PHONE_1] about tea"]


def test_the_vector_is_computed_before_the_lock_and_reused(tmp_path: Path) -> None:
    with _memory(tmp_path / "v.db", Detector(PrivacyPolicy(use_presidio=False))) as mem:
        retriever = mem.retriever
        assert isinstance(retriever, HybridRetriever) and retriever.embedder is not None
        cache = retriever.embedder
        mem.ledger.prepare([("my number is +44 20 7946 0958", {"metadata": {"speaker": "Ana"}})])
        before = cache.misses  # type: ignore[attr-defined]
        mem.remember(
            "my number is +44 20 7946 0958", user_id="ana", kind="episode", metadata={"speaker": "Ana"}
        )
        # the document vector was ready (computed by prepare, before the lock): no model call
        assert cache.misses == before  # type: ignore[attr-defined]
        [record] = mem.list_memories("ana")
        assert record.content == "my number is [PHONE_1]"
        assert embedding_text(record.content, record.metadata) == "Ana: my number is [PHONE]"


def test_embedding_work_per_write_is_bounded() -> None:
    long = "tea " * 50_000
    text = embedding_text(long, {"speaker": "Ana"})
    assert len(text) == EMBED_CHARS and text.startswith("Ana: tea tea")


def test_the_contradiction_checks_query_is_embedded_before_the_lock(tmp_path: Path) -> None:
    with _memory(tmp_path / "q.db", Detector(PrivacyPolicy(use_presidio=False))) as mem:
        mem.remember("I live in Berlin", user_id="ana")
        cache = mem.retriever.embedder  # type: ignore[attr-defined]
        text = "I live in Paris, call +44 20 7946 0958"
        mem.ledger.prepare([(text, {})])  # what remember() does first, outside the lock
        before = cache.misses
        mem.remember(text, user_id="ana")  # an unkeyed fact: the contradiction check runs
        assert cache.misses == before  # its neighbours' query vector was ready too
