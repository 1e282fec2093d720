"""End to end through the real engine: Memory(redactor=...) stores, indexes and recalls no plaintext."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from remnant import ManualClock, Memory
from remnant.privacy import Detector, Keyring, Redactor, SqliteVaultStorage, Vault, generate_key

FACTS = [
    "My name is Margaret Thornton, email maggie.thornton@example.org",
    "My phone number is (415) 555-0134",
    "我叫王小明，手机１３９ ８７６５ ４３２１",
    "身份证11010519491231002X，住在广东省广州市天河区天河路385号",
    "Pay rent from DE89 3704 0044 0532 0130 00",
]
SECRETS = [
    "Thornton",
    "maggie.thornton",
    "555-0134",
    "王小明",
    "8765",
    "11010519491231002X",
    "天河路385号",
    "DE89",
]


def _raw(paths: list[Path]) -> bytes:
    return b"".join(p.read_bytes() for p in paths if p.exists())


def test_memory_with_redactor_end_to_end(
    tmp_path: Path, plain_detector: Detector, detector: Detector
) -> None:
    db = tmp_path / "mem.db"
    clock = ManualClock(datetime(2026, 1, 1, 9, 0, tzinfo=UTC))
    with Memory(db, clock=clock) as mem:
        # the vault shares the store's connection, so its entries commit with the memory that needs them
        vault = Vault(SqliteVaultStorage(mem.store.connection), Keyring.from_keys([generate_key()]))  # type: ignore[attr-defined]
        mem.redactor = Redactor(vault, detector=detector)
        for fact in FACTS:
            mem.remember(fact, user_id="u1")
        hits = mem.recall("phone number", user_id="u1", limit=10)
        assert hits.memories and all("[" in r.content for r in hits.memories)
        recalled = {r.content for r in mem.recall("rent", user_id="u1", limit=10).memories}
        assert any("[IBAN_1]" in c for c in recalled)
        stored = sorted(r.content for r in mem.store.query(mem.ledger.filter("u1"), limit=100))
        files = [*mem.store.files(), Path(f"{db}-wal")]
        raw = _raw(files)
        for secret in SECRETS:
            assert secret.encode() not in raw, f"{secret!r} reached the database files"
        # The privileged path gives back the exact originals.
        assert sorted(vault.rehydrate(c, mem.tenant, "u1") for c in stored) == sorted(FACTS)
        assert vault.entries(mem.tenant, "u1")
        report = mem.erase_user("u1")
        assert report.vault_entries_removed >= 8
        assert vault.entries(mem.tenant, "u1") == []
