"""The encrypted vault: original values behind placeholders, and the privileged way back.

Each original value is encrypted with AES-256-GCM under the active key; the associated data binds
the ciphertext to its tenant, user, placeholder, type and key id, so a row copied or moved to
another address fails authentication (``VaultCorruptError``) instead of decrypting. A keyed HMAC of
the canonical value (scoped to tenant and user, so values cannot be linked across users) finds an
existing placeholder without plaintext.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from remnant.core.errors import ValidationError
from remnant.privacy.entities import EntityType
from remnant.privacy.errors import VaultCorruptError, VaultKeyError, VaultNotFoundError
from remnant.privacy.keys import Keyring, VaultKey
from remnant.privacy.normalize import canonical_value
from remnant.privacy.storage import VaultEntry, VaultStorage

PLACEHOLDER_RE = re.compile(r"\[(" + "|".join(e.value for e in EntityType) + r")_(\d+)\]")
_NONCE_BYTES = 12


def format_placeholder(entity_type: EntityType, index: int) -> str:
    return f"[{entity_type.value}_{index}]"


@dataclass(frozen=True, slots=True)
class VaultEntryInfo:
    """What may be listed about an entry without the privileged call: no plaintext."""

    placeholder: str
    entity_type: EntityType
    key_id: str
    created_at: str


def _aad(tenant: str, user_id: str, placeholder: str, entity_type: str, key_id: str) -> bytes:
    # Length-prefixed so no two different tuples serialize to the same bytes.
    parts = ("remnant-vault-v1", tenant, user_id, placeholder, entity_type, key_id)
    return b"".join(len(p.encode()).to_bytes(4, "big") + p.encode() for p in parts)


class Vault:
    """Stores originals encrypted, hands out stable placeholders, and rehydrates on request.

    ``keyring`` defaults to ``Keyring.from_env()``: a missing key raises ``VaultKeyError`` here,
    at construction, never later as a silent plaintext fallback.
    """

    def __init__(
        self,
        storage: VaultStorage,
        keyring: Keyring | None = None,
        *,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.storage = storage
        self.keyring = keyring if keyring is not None else Keyring.from_env()
        self._now = now or (lambda: datetime.now(UTC))
        self._keys_checked = False

    # --- keys ------------------------------------------------------------------------------------

    def check_keys(self) -> None:
        """Raise ``VaultKeyError`` when stored entries use a key this keyring lacks (wrong key)."""
        if self._keys_checked:
            return
        missing = self.storage.key_ids() - set(self.keyring.keys)
        if missing:
            raise VaultKeyError(
                f"the vault holds entries encrypted with key(s) {', '.join(sorted(missing))}, which are "
                f"not configured (configured: {', '.join(sorted(self.keyring.keys))}); wrong "
                "REMNANT_VAULT_KEY? During a rotation list the old key after the new one"
            )
        self._keys_checked = True

    def _hmac(self, key: VaultKey, tenant: str, user_id: str, entity_type: str, value: str) -> str:
        msg = "\x1f".join((tenant, user_id, entity_type, canonical_value(entity_type, value)))
        return hmac.new(key.mac_key, msg.encode("utf-8"), hashlib.sha256).hexdigest()

    def _encrypt(self, key: VaultKey, aad: bytes, value: str) -> tuple[bytes, bytes]:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(_NONCE_BYTES)
        return nonce, AESGCM(key.enc_key).encrypt(nonce, value.encode("utf-8"), aad)

    def _decrypt(self, entry: VaultEntry) -> str:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        key = self.keyring.get(entry.key_id)
        aad = _aad(entry.tenant, entry.user_id, entry.placeholder, entry.entity_type, entry.key_id)
        try:
            plain = AESGCM(key.enc_key).decrypt(entry.nonce, entry.ciphertext, aad)
        except InvalidTag as exc:
            raise VaultCorruptError(
                f"vault entry {entry.placeholder} of user {entry.user_id!r} (tenant {entry.tenant!r}) "
                "failed authentication: the row was altered, truncated or moved"
            ) from exc
        except ValueError as exc:  # e.g. a nonce of the wrong length
            raise VaultCorruptError(f"vault entry {entry.placeholder} is malformed: {exc}") from exc
        try:
            return plain.decode("utf-8")
        except UnicodeDecodeError as exc:  # pragma: no cover - authenticated bytes are ours
            raise VaultCorruptError(f"vault entry {entry.placeholder} is not UTF-8") from exc

    # --- write path ------------------------------------------------------------------------------

    def _unlinked_hmac(
        self, key: VaultKey, tenant: str, user_id: str, entity_type: str, placeholder: str
    ) -> str:
        """The HMAC column of an entry that must not be found by its value: bound to its own
        placeholder, so no later write of the same value can match it."""
        msg = "\x1f".join(("unlinked", tenant, user_id, entity_type, placeholder))
        return hmac.new(key.mac_key, msg.encode("utf-8"), hashlib.sha256).hexdigest()

    def placeholder_for(
        self, tenant: str, user_id: str, entity_type: EntityType, value: str, *, stable: bool = True
    ) -> str:
        """The user's placeholder for this value, creating and encrypting an entry when new.

        ``stable=False``: always a new placeholder (and an entry no value lookup finds), so two
        memories holding the same value do not show it (see ``PrivacyPolicy.stable_placeholders``)."""
        if not tenant or not user_id:
            raise ValidationError("tenant and user_id are required to vault personal data")
        self.check_keys()
        label = entity_type.value
        hmacs = [self._hmac(k, tenant, user_id, label, value) for k in self.keyring.keys.values()]
        if stable:
            existing = self.storage.lookup(tenant, user_id, hmacs)
            if existing is not None:
                return existing.placeholder
        key = self.keyring.active
        active_hmac = self._hmac(key, tenant, user_id, label, value)
        for _ in range(8):
            placeholder = format_placeholder(entity_type, self.storage.next_index(tenant, user_id, label))
            nonce, ct = self._encrypt(key, _aad(tenant, user_id, placeholder, label, key.key_id), value)
            entry = VaultEntry(
                tenant=tenant,
                user_id=user_id,
                placeholder=placeholder,
                entity_type=label,
                value_hmac=active_hmac
                if stable
                else self._unlinked_hmac(key, tenant, user_id, label, placeholder),
                key_id=key.key_id,
                nonce=nonce,
                ciphertext=ct,
                created_at=self._now().isoformat(),
            )
            if self.storage.put(entry):
                return placeholder
            # Lost a race: another writer stored this value (reuse theirs) or took the number.
            existing = self.storage.lookup(tenant, user_id, hmacs) if stable else None
            if existing is not None:
                return existing.placeholder
        raise VaultCorruptError(f"could not allocate a {label} placeholder for user {user_id!r}")

    # --- privileged read path --------------------------------------------------------------------

    def reveal(self, tenant: str, user_id: str, placeholder: str) -> str:
        """The exact original behind one placeholder (privileged)."""
        self.check_keys()
        entry = self.storage.get(tenant, user_id, placeholder)
        if entry is None:
            raise VaultNotFoundError(
                f"no vault entry {placeholder} for user {user_id!r} in tenant {tenant!r}"
            )
        return self._decrypt(entry)

    def rehydrate(self, text: str, tenant: str, user_id: str, *, strict: bool = False) -> str:
        """Replace the user's placeholders in ``text`` with their exact originals (privileged).

        Placeholders without an entry (forgotten values) stay as they are, unless ``strict``.
        """
        self.check_keys()
        cache: dict[str, str] = {}

        def sub(m: re.Match[str]) -> str:
            ph = m.group(0)
            if ph not in cache:
                entry = self.storage.get(tenant, user_id, ph)
                if entry is None:
                    if strict:
                        raise VaultNotFoundError(f"no vault entry {ph} for user {user_id!r}")
                    cache[ph] = ph
                else:
                    cache[ph] = self._decrypt(entry)
            return cache[ph]

        return PLACEHOLDER_RE.sub(sub, text)

    def entries(self, tenant: str, user_id: str) -> list[VaultEntryInfo]:
        """The user's vault entries without their values (for reports and "what do you hold")."""
        return [
            VaultEntryInfo(e.placeholder, EntityType(e.entity_type), e.key_id, e.created_at)
            for e in self.storage.list_for_user(tenant, user_id)
        ]

    # --- forgetting --------------------------------------------------------------------------------

    def forget_entities(
        self, tenant: str, user_id: str, entity_types: Iterable[EntityType] | None = None
    ) -> int:
        """Delete the user's entries of these types (all types when ``None``); returns the count.

        Placeholder numbers are not reused, so old memories never rehydrate to a new value.
        """
        types = [t.value for t in (entity_types if entity_types is not None else EntityType)]
        return self.storage.delete_entity_types(tenant, user_id, types)

    def forget_placeholder(self, tenant: str, user_id: str, placeholder: str) -> int:
        return self.storage.delete_placeholder(tenant, user_id, placeholder)

    def purge_user(self, tenant: str, user_id: str) -> int:
        """Delete every entry and placeholder counter of the user."""
        return self.storage.delete_for_user(tenant, user_id)

    # --- rotation ----------------------------------------------------------------------------------

    def rotate(self, new_key: VaultKey | None = None) -> int:
        """Re-encrypt every entry under the active key (or ``new_key``, which becomes active).

        After it returns, old keys are no longer needed. Returns the number of entries rewritten.
        """
        if new_key is not None:
            self.keyring = self.keyring.with_active(new_key)
            self._keys_checked = False
        self.check_keys()
        active = self.keyring.active
        count = 0
        for entry in list(self.storage.iter_all()):
            if entry.key_id == active.key_id:
                continue
            value = self._decrypt(entry)
            aad = _aad(entry.tenant, entry.user_id, entry.placeholder, entry.entity_type, active.key_id)
            nonce, ct = self._encrypt(active, aad, value)
            old = self.keyring.get(entry.key_id)
            linked = entry.value_hmac == self._hmac(
                old, entry.tenant, entry.user_id, entry.entity_type, value
            )
            new_hmac = (
                self._hmac(active, entry.tenant, entry.user_id, entry.entity_type, value)
                if linked
                else self._unlinked_hmac(
                    active, entry.tenant, entry.user_id, entry.entity_type, entry.placeholder
                )
            )
            self.storage.replace(
                VaultEntry(
                    tenant=entry.tenant,
                    user_id=entry.user_id,
                    placeholder=entry.placeholder,
                    entity_type=entry.entity_type,
                    value_hmac=new_hmac,
                    key_id=active.key_id,
                    nonce=nonce,
                    ciphertext=ct,
                    created_at=entry.created_at,
                )
            )
            count += 1
        return count
