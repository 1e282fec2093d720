"""Vault: exact round-trip, stable placeholders, key errors, corruption, rotation, forgetting."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from remnant.privacy import (
    EntityType,
    Keyring,
    Redactor,
    SqliteVaultStorage,
    Vault,
    VaultCorruptError,
    VaultKey,
    VaultKeyError,
    VaultNotFoundError,
    generate_key,
)

T, U = "acme", "user-1"


def test_round_trip_is_exact(redactor: Redactor, vault: Vault) -> None:
    text = "我叫张伟，手机１３８ １２３４ ５６７８, mail Zhang.Wei@Example.com, card 4111-1111-1111-1111."
    res = redactor.redact(text, tenant=T, user_id=U)
    assert "１３８" not in res.text and "Zhang.Wei" not in res.text and "4111" not in res.text
    assert "[PHONE_1]" in res.text and "[EMAIL_1]" in res.text and "[CARD_1]" in res.text
    assert vault.rehydrate(res.text, T, U) == text


def test_findings_point_into_original(redactor: Redactor) -> None:
    text = "email a@b.com and phone 13812345678"
    res = redactor.redact(text, tenant=T, user_id=U)
    assert [(f.entity_type, text[f.start : f.end], f.placeholder) for f in res.findings] == [
        (EntityType.EMAIL, "a@b.com", "[EMAIL_1]"),
        (EntityType.PHONE, "13812345678", "[PHONE_1]"),
    ]


def test_placeholders_stable_per_user(redactor: Redactor) -> None:
    first = redactor.redact("call 13812345678 or 13900001111", tenant=T, user_id=U).text
    assert first == "call [PHONE_1] or [PHONE_2]"
    # Same value in another spelling, later: same placeholder.
    again = redactor.redact("新号码还是+86 139-0000-1111", tenant=T, user_id=U).text
    assert again == "新号码还是[PHONE_2]"
    # Another user (or tenant) has its own numbering and its own entries.
    assert redactor.redact("call 13900001111", tenant=T, user_id="user-2").text == "call [PHONE_1]"
    assert redactor.redact("call 13900001111", tenant="other", user_id=U).text == "call [PHONE_1]"


def test_rehydrate_only_for_owner(redactor: Redactor, vault: Vault) -> None:
    red = redactor.redact("mail a@b.com", tenant=T, user_id=U).text
    assert vault.rehydrate(red, T, "someone-else") == red  # no entry for them: stays redacted
    with pytest.raises(VaultNotFoundError):
        vault.rehydrate(red, T, "someone-else", strict=True)
    assert vault.reveal(T, U, "[EMAIL_1]") == "a@b.com"


def test_missing_key_fails_clearly(conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REMNANT_VAULT_KEY", raising=False)
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    with pytest.raises(VaultKeyError, match="no vault key"):
        Vault(SqliteVaultStorage(conn))
    with pytest.raises(VaultKeyError, match="32 bytes"):
        Keyring.from_keys(["c2hvcnQ="])


def test_key_from_env_and_file(
    conn: sqlite3.Connection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = generate_key()
    monkeypatch.setenv("REMNANT_VAULT_KEY", key)
    v = Vault(SqliteVaultStorage(conn))
    assert v.keyring.active.key_id == VaultKey.parse(key).key_id
    kf = tmp_path / "vault.key"
    kf.write_text(f"# active first\n{key}\n", encoding="utf-8")
    monkeypatch.delenv("REMNANT_VAULT_KEY")
    monkeypatch.setenv("REMNANT_VAULT_KEY_FILE", str(kf))
    assert Keyring.from_env().active.key_id == v.keyring.active.key_id
    monkeypatch.setenv("REMNANT_VAULT_KEY_FILE", str(tmp_path / "missing.key"))
    with pytest.raises(VaultKeyError, match="cannot read"):
        Keyring.from_env()


def test_wrong_key_fails_clearly(redactor: Redactor, conn: sqlite3.Connection) -> None:
    red = redactor.redact("mail a@b.com", tenant=T, user_id=U).text
    wrong = Vault(SqliteVaultStorage(conn), Keyring.from_keys([generate_key()]))
    with pytest.raises(VaultKeyError, match="not configured"):
        wrong.rehydrate(red, T, U)
    with pytest.raises(VaultKeyError):
        Redactor(wrong, detector=redactor.detector).redact("mail c@d.com", tenant=T, user_id=U)


def test_corrupted_entry(redactor: Redactor, vault: Vault, conn: sqlite3.Connection) -> None:
    red = redactor.redact("mail a@b.com", tenant=T, user_id=U).text
    ct = conn.execute("SELECT ciphertext FROM vault_entries").fetchone()[0]
    flipped = bytes([ct[0] ^ 0x01]) + ct[1:]
    conn.execute("UPDATE vault_entries SET ciphertext = ?", (flipped,))
    conn.commit()
    with pytest.raises(VaultCorruptError, match="failed authentication"):
        vault.rehydrate(red, T, U)


def test_entry_moved_to_another_placeholder_fails(
    redactor: Redactor, vault: Vault, conn: sqlite3.Connection
) -> None:
    redactor.redact("a@b.com c@d.com", tenant=T, user_id=U)
    rows = dict(conn.execute("SELECT placeholder, ciphertext FROM vault_entries").fetchall())
    # Swap ciphertexts (and nonces) between the two rows: AAD binds each to its placeholder.
    nonces = dict(conn.execute("SELECT placeholder, nonce FROM vault_entries").fetchall())
    conn.execute(
        "UPDATE vault_entries SET ciphertext = ?, nonce = ? WHERE placeholder = '[EMAIL_1]'",
        (rows["[EMAIL_2]"], nonces["[EMAIL_2]"]),
    )
    conn.commit()
    with pytest.raises(VaultCorruptError):
        vault.reveal(T, U, "[EMAIL_1]")


def test_rotation_reencrypts_and_keeps_placeholders(redactor: Redactor, conn: sqlite3.Connection) -> None:
    old_vault = redactor.vault
    assert old_vault is not None
    red = redactor.redact("mail a@b.com phone 13812345678", tenant=T, user_id=U).text
    old_id = old_vault.keyring.active.key_id
    new_key = VaultKey.parse(generate_key())
    assert old_vault.rotate(new_key) == 2
    ids = {r[0] for r in conn.execute("SELECT key_id FROM vault_entries")}
    assert ids == {new_key.key_id} and old_id not in ids
    # A vault with only the new key reads everything and keeps placeholders stable.
    fresh = Vault(SqliteVaultStorage(conn), Keyring(active=new_key))
    assert fresh.rehydrate(red, T, U) == "mail a@b.com phone 13812345678"
    assert Redactor(fresh, detector=redactor.detector).redact("again a@b.com", tenant=T, user_id=U).text == (
        "again [EMAIL_1]"
    )
    # The old key alone no longer opens the vault.
    with pytest.raises(VaultKeyError):
        Vault(SqliteVaultStorage(conn), Keyring(active=old_vault.keyring.keys[old_id])).rehydrate(red, T, U)


def test_rotation_in_two_steps_with_old_key_listed(redactor: Redactor, conn: sqlite3.Connection) -> None:
    vault = redactor.vault
    assert vault is not None
    red = redactor.redact("mail a@b.com", tenant=T, user_id=U).text
    new = generate_key()
    old_secret = vault.keyring.active.secret
    ring = Keyring.from_keys([new, old_secret])  # REMNANT_VAULT_KEY="NEW,OLD"
    during = Vault(SqliteVaultStorage(conn), ring)
    # Before rotate: the old entry still decrypts, and the same value keeps its placeholder.
    assert during.rehydrate(red, T, U) == "mail a@b.com"
    assert (
        Redactor(during, detector=redactor.detector).redact("a@b.com", tenant=T, user_id=U).text
        == "[EMAIL_1]"
    )
    assert during.rotate() == 1
    after = Vault(SqliteVaultStorage(conn), ring.without_old())
    assert after.rehydrate(red, T, U) == "mail a@b.com"


def test_forget_entities_and_purge(redactor: Redactor, vault: Vault) -> None:
    red = redactor.redact("phone 13812345678 mail a@b.com", tenant=T, user_id=U).text
    redactor.redact("other user 13812345678", tenant=T, user_id="user-2")
    assert redactor.forget_entities(T, U, ["PHONE"]) == 1
    assert vault.rehydrate(red, T, U) == "phone [PHONE_1] mail a@b.com"
    # Numbers are not reused: an old memory never rehydrates to a new value.
    assert redactor.redact("new 13700000000", tenant=T, user_id=U).text == "new [PHONE_2]"
    assert {e.placeholder for e in vault.entries(T, U)} == {"[EMAIL_1]", "[PHONE_2]"}
    assert redactor.purge_user(T, U) == 2
    assert vault.entries(T, U) == []
    assert vault.rehydrate(red, T, U) == red
    assert [e.placeholder for e in vault.entries(T, "user-2")] == ["[PHONE_1]"]


def test_forget_single_placeholder(redactor: Redactor, vault: Vault) -> None:
    redactor.redact("a@b.com c@d.com", tenant=T, user_id=U)
    assert vault.forget_placeholder(T, U, "[EMAIL_1]") == 1
    assert [e.placeholder for e in vault.entries(T, U)] == ["[EMAIL_2]"]


def test_vault_write_joins_callers_transaction(tmp_path: Path, keyring: Keyring) -> None:
    """Inside the store's BEGIN IMMEDIATE the vault must not commit: a rollback undoes both."""
    conn = sqlite3.connect(tmp_path / "tx.db", isolation_level=None)
    vault = Vault(SqliteVaultStorage(conn), keyring)
    conn.execute("BEGIN IMMEDIATE")
    vault.placeholder_for(T, U, EntityType.EMAIL, "a@b.com")
    assert conn.in_transaction
    conn.execute("ROLLBACK")
    assert vault.entries(T, U) == []
    vault.placeholder_for(T, U, EntityType.EMAIL, "a@b.com")  # outside a transaction: committed
    other = sqlite3.connect(tmp_path / "tx.db")
    assert other.execute("SELECT COUNT(*) FROM vault_entries").fetchone()[0] == 1
    other.close()
    conn.close()
