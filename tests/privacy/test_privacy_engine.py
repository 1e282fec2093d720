"""End to end through the real engine: Memory(redactor=...) stores, indexes and recalls no plaintext."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.leaks import assert_no_leak

from remnant import ManualClock
from remnant.engine import Memory
from remnant.privacy import Detector, Keyring, Redactor, SqliteVaultStorage, Vault, generate_key

FACTS = [
    "My name is Margaret Thornton, email maggie.thornton@example.org",
    "My phone number is (415) 555-0134",
    "我叫王小明，手机１３９ ８７６５ ４３２１",
    "身份证11010519491231002X，住在广东省广州市天河区天河路385号",
    "Pay rent from DE89 3704 0044 0532 0130 00",
]
# Pieces of the facts above that must never reach the files. Each is long enough, or has a
# separator, that the random hex of a vault HMAC or audit hash cannot hold it by chance (a bare
# "8765" once did: tests/leaks.py); fragments are given in every form they could be stored in.
SECRETS = [
    "Thornton",
    "maggie.thornton",
    "555-0134",
    "王小明",
    "８７６５",  # the middle group as written (full-width)...
    "139 8765",  # ...and normalized, spaced or not
    "8765 4321",
    "13987654321",
    "11010519491231002X",
    "天河路385号",
    "DE89 3704",  # the IBAN's first groups, spaced or not
    "DE89-3704",
    "DE8937040044",
]


def _raw(paths: list[Path]) -> bytes:
    return b"".join(p.read_bytes() for p in paths if p.exists())


# The HMAC of the run that failed held "8765"; forcing HMACs that hold the old short needles
# ("8765", "de89") keeps that case in every run instead of once in 60.
FORCED_HEX = "8765de89"


@pytest.mark.parametrize("forced_hmac", [False, True], ids=["random-hmac", "hmac-holding-old-needles"])
def test_memory_with_redactor_end_to_end(
    tmp_path: Path,
    plain_detector: Detector,
    detector: Detector,
    monkeypatch: pytest.MonkeyPatch,
    forced_hmac: bool,
) -> None:
    if forced_hmac:
        real = Vault._hmac

        def forced(self: Vault, *args: Any) -> str:
            return FORCED_HEX + real(self, *args)[len(FORCED_HEX) :]

        monkeypatch.setattr(Vault, "_hmac", forced)
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
        # every stored memory, whatever its status (the second name supersedes the first)
        stored = sorted(r.content for r in mem.store.query(mem.ledger.filter("u1", statuses=None), limit=100))
        files = [*mem.store.files(), Path(f"{db}-wal")]
        assert_no_leak(_raw(files), SECRETS, "the database files")
        # The privileged path gives back the exact originals.
        assert sorted(vault.rehydrate(c, mem.tenant, "u1") for c in stored) == sorted(FACTS)
        assert vault.entries(mem.tenant, "u1")
        report = mem.erase_user("u1")
        assert report.vault_entries_removed >= 8
        assert vault.entries(mem.tenant, "u1") == []
