"""Vault keys: loading, identifying and rotating the AES-256-GCM keys.

A key is 32 random bytes, written as base64 (standard or URL-safe). Its id is a fingerprint of
the key itself, so a wrong key is detected by id (clear error) rather than by a decryption
failure. Each key yields two sub-keys via HKDF: one for AES-GCM, one for the HMAC that maps a
value to its placeholder; one secret is never used for two purposes.

Sources, in order: ``REMNANT_VAULT_KEY`` (one key, or several separated by commas: the first is
active, the rest are old keys kept for decryption), then ``REMNANT_VAULT_KEY_FILE`` (a file with
one key per line, first line active, ``#`` comments allowed).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from remnant.core.settings import read
from remnant.privacy.errors import VaultKeyError

KEY_ENV = "REMNANT_VAULT_KEY"
KEY_FILE_ENV = "REMNANT_VAULT_KEY_FILE"
KEY_BYTES = 32


def generate_key() -> str:
    """A fresh random 256-bit key, URL-safe base64 (what ``REMNANT_VAULT_KEY`` expects)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")


def _hkdf(secret: bytes, info: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"remnant-vault-v1", info=info).derive(secret)


@dataclass(frozen=True)
class VaultKey:
    """One 256-bit key with its fingerprint id and derived sub-keys (secrets kept out of repr)."""

    secret: bytes = field(repr=False)
    key_id: str = ""
    enc_key: bytes = field(default=b"", repr=False)
    mac_key: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_BYTES:
            raise VaultKeyError(f"a vault key must be {KEY_BYTES} bytes (256 bits), got {len(self.secret)}")
        digest = hashlib.sha256(b"remnant-vault-key-id:" + self.secret).hexdigest()
        object.__setattr__(self, "key_id", "k" + digest[:12])
        object.__setattr__(self, "enc_key", _hkdf(self.secret, b"aes-256-gcm"))
        object.__setattr__(self, "mac_key", _hkdf(self.secret, b"hmac-sha256 value index"))

    @classmethod
    def parse(cls, text: str) -> VaultKey:
        """Decode a base64 (standard or URL-safe, padding optional) 32-byte key."""
        raw = text.strip()
        if not raw:
            raise VaultKeyError("empty vault key")
        padded = raw + "=" * (-len(raw) % 4)
        try:
            secret = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
        except (binascii.Error, ValueError) as exc:
            raise VaultKeyError("vault key is not valid base64") from exc
        return cls(secret)


@dataclass(frozen=True)
class Keyring:
    """The active key (encrypts new entries) plus old keys (decrypt only, until ``rotate``)."""

    active: VaultKey
    old: tuple[VaultKey, ...] = ()

    @property
    def keys(self) -> dict[str, VaultKey]:
        out = {k.key_id: k for k in self.old}
        out[self.active.key_id] = self.active
        return out

    def get(self, key_id: str) -> VaultKey:
        key = self.keys.get(key_id)
        if key is None:
            raise VaultKeyError(
                f"vault entry was encrypted with key {key_id}, which is not configured "
                f"(configured: {', '.join(sorted(self.keys))}); add the old key to {KEY_ENV} "
                "after the active one, or check that the right key is set"
            )
        return key

    def with_active(self, new: VaultKey) -> Keyring:
        """A keyring where ``new`` encrypts and every current key remains for decryption."""
        olds = [k for k in (self.active, *self.old) if k.key_id != new.key_id]
        return Keyring(active=new, old=tuple(olds))

    def without_old(self) -> Keyring:
        """Drop old keys (after ``Vault.rotate`` re-encrypted everything)."""
        return Keyring(active=self.active)

    @classmethod
    def from_keys(cls, keys: Iterable[str | bytes]) -> Keyring:
        parsed = [VaultKey.parse(k) if isinstance(k, str) else VaultKey(k) for k in keys]
        if not parsed:
            raise VaultKeyError("no vault key given")
        return cls(active=parsed[0], old=tuple(parsed[1:]))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Keyring:
        p = Path(path)
        try:
            lines = p.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise VaultKeyError(f"cannot read vault key file {p}: {exc.strerror or exc}") from exc
        keys = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
        if not keys:
            raise VaultKeyError(f"vault key file {p} holds no key")
        return cls.from_keys(keys)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Keyring:
        """Load from ``REMNANT_VAULT_KEY`` or ``REMNANT_VAULT_KEY_FILE``; raise if neither is set."""
        value = read(KEY_ENV, environ)
        if value:
            return cls.from_keys(part for part in value.split(",") if part.strip())
        path = read(KEY_FILE_ENV, environ)
        if path:
            return cls.from_file(path)
        raise VaultKeyError(
            f"no vault key: set {KEY_ENV} to a base64 256-bit key (generate one with "
            f"`remnant privacy keygen`) or {KEY_FILE_ENV} to a key file; personal data is never "
            "stored unencrypted"
        )
