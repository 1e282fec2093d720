"""Shared fixtures: one Presidio-backed detector per test session (spaCy loads once)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from remnant.privacy import (
    ALL_ENTITIES,
    Detector,
    Keyring,
    PrivacyPolicy,
    Redactor,
    SqliteVaultStorage,
    Vault,
    generate_key,
)

# Every type (names too: the memory default keeps them) and stable numbering (the default numbers
# each write afresh): these tests measure what the detector and the vault can do.
_ALL = {"entities": ALL_ENTITIES, "stable_placeholders": True}


@pytest.fixture(scope="session")
def detector() -> Detector:
    """Built-in recognizers plus Presidio/spaCy when installed."""
    return Detector(PrivacyPolicy(**_ALL))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def plain_detector() -> Detector:
    """Built-in recognizers only: what runs when the presidio extra is not installed."""
    return Detector(PrivacyPolicy(use_presidio=False, **_ALL))  # type: ignore[arg-type]


@pytest.fixture
def keyring() -> Keyring:
    return Keyring.from_keys([generate_key()])


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "remnant.db"


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(db_path)
    c.execute("PRAGMA journal_mode=WAL")
    yield c
    c.close()


@pytest.fixture
def vault(conn: sqlite3.Connection, keyring: Keyring) -> Vault:
    return Vault(SqliteVaultStorage(conn), keyring)


@pytest.fixture
def redactor(vault: Vault, detector: Detector) -> Redactor:
    return Redactor(vault, detector=detector)
