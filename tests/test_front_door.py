"""``from remnant import Memory`` opens the product as documented; each layer has a named opt-out;
every entry point (CLI, server, MCP, assistant) opens it the same way."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import remnant
from remnant import Memory
from remnant.engine import Memory as Engine
from remnant.engine import PlainIngestor
from remnant.extract.ingest import RuleIngestor
from remnant.retrieval import HybridRetriever


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REMNANT_PRIVACY", "REMNANT_VAULT_KEY", "REMNANT_VAULT_KEY_FILE", "REMNANT_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REMNANT_EMBEDDER", "static")


def test_the_top_level_memory_is_the_product(tmp_path: Path) -> None:
    db = tmp_path / "memories.db"
    with Memory(db) as mem:
        assert isinstance(mem, Engine) and remnant.Memory is Memory
        rec = mem.remember("mail me at ana@example.com", user_id="ana")
        assert rec.content == "mail me at [EMAIL_1]"  # privacy on
        assert mem.rehydrate(rec.id) == "mail me at ana@example.com"
        assert (tmp_path / "memories.db.vault-key").exists()  # the key beside the database, as the CLI does
        assert isinstance(mem.retriever, HybridRetriever) and mem.retriever.embedder is not None
        assert isinstance(mem.ingestor, RuleIngestor)
        added = mem.add("I moved to Lisbon", user_id="ana")
        assert [f.key for f in added.facts] == ["city"]  # the offline rule ingestor
    assert not any(b"ana@example.com" in p.read_bytes() for p in tmp_path.glob("memories.db*") if p.is_file())


def test_a_throwaway_in_memory_product_needs_no_key_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Memory(":memory:") as mem:  # as the README says
        rec = mem.remember("mail me at ana@example.com", user_id="ana")
        assert rec.content == "mail me at [EMAIL_1]" and mem.rehydrate(rec.id).endswith("ana@example.com")
    assert list(tmp_path.iterdir()) == []  # no key file, no database file


def test_each_layer_has_a_named_opt_out(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", privacy=False, embedder=None, ingestor=None) as mem:
        assert mem.redactor is None
        assert mem.remember("mail me at ana@example.com", user_id="ana").content.endswith("ana@example.com")
        assert isinstance(mem.retriever, HybridRetriever) and mem.retriever.embedder is None
        assert isinstance(mem.ingestor, PlainIngestor)
        assert mem.add("I moved to Lisbon", user_id="ana").facts == []
    assert not (tmp_path / "m.db.vault-key").exists()
    bare = Memory.minimal(tmp_path / "bare.db")
    assert type(bare) is Engine and bare.redactor is None
    bare.close()


def test_an_embedder_by_name_or_object(tmp_path: Path) -> None:
    from remnant.embed import get_embedder

    with Memory(tmp_path / "a.db", embedder="static", privacy=False) as mem:
        assert mem.retriever.embedder is not None  # type: ignore[attr-defined]
    emb = get_embedder("static")
    with Memory(tmp_path / "b.db", embedder=emb, privacy=False) as mem:
        # wrapped in its cache (the retriever's own embedder pairs each turn with the one before it)
        assert mem.retriever.text_embedder.inner is emb  # type: ignore[attr-defined]


def test_a_missing_embedder_falls_back_to_lexical_with_a_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        mem = Memory(tmp_path / "m.db", embedder="st:/no/such/model", privacy=False)
    assert mem.retriever.embedder is None  # type: ignore[attr-defined]
    assert any("unavailable" in r.getMessage() for r in caplog.records)
    mem.remember("I prefer green tea", user_id="ana")
    assert [h.memory.content for h in mem.recall("green tea", user_id="ana")] == ["I prefer green tea"]
    mem.close()


def test_the_environment_fills_what_is_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    with Memory(tmp_path / "off.db") as mem:
        assert mem.redactor is None
    with Memory(tmp_path / "on.db", privacy=True) as mem:  # an explicit argument wins
        assert mem.redactor is not None
    with pytest.raises(ValueError, match="privacy must be one of"):
        Memory(tmp_path / "bad.db", privacy="maybe")


def test_every_entry_point_opens_the_product(tmp_path: Path) -> None:
    from remnant.cli.core import Ctx
    from remnant.server.engines import Engines

    ctx = Ctx(str(tmp_path / "cli.db"), "default")
    assert type(ctx.memory(create=True)) is Memory  # a command that writes (a read needs the file)
    ctx.memory().close()
    engines = Engines(str(tmp_path / "srv.db"))
    assert type(engines.get("acme")) is Memory and engines.get("acme").tenant == "acme"
    engines.close()
    assert type(remnant.build_memory(tmp_path / "bm.db")) is Memory
