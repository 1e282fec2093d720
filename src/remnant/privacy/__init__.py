"""Personal-data redaction and the encrypted vault.

Typical wiring::

    from remnant.privacy import Keyring, Redactor, SqliteVaultStorage, Vault
    vault = Vault(SqliteVaultStorage(conn), Keyring.from_env())
    redactor = Redactor(vault)
    result = redactor.redact(text, tenant="acme", user_id="u1")   # store result.text only
    vault.rehydrate(result.text, "acme", "u1")                    # privileged: exact originals
"""

from remnant.privacy.detector import Detector
from remnant.privacy.entities import ALL_ENTITIES, Detection, EntityType, Finding, RedactionResult
from remnant.privacy.errors import (
    PrivacyError,
    RedactionError,
    VaultCorruptError,
    VaultKeyError,
    VaultNotFoundError,
)
from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV, Keyring, VaultKey, generate_key
from remnant.privacy.policy import PrivacyPolicy
from remnant.privacy.redactor import Redactor, redact_for_log
from remnant.privacy.storage import SqliteVaultStorage, VaultEntry, VaultStorage
from remnant.privacy.vault import PLACEHOLDER_RE, Vault, VaultEntryInfo

__all__ = [
    "ALL_ENTITIES",
    "KEY_ENV",
    "KEY_FILE_ENV",
    "PLACEHOLDER_RE",
    "Detection",
    "Detector",
    "EntityType",
    "Finding",
    "Keyring",
    "PrivacyError",
    "PrivacyPolicy",
    "RedactionError",
    "RedactionResult",
    "Redactor",
    "SqliteVaultStorage",
    "Vault",
    "VaultCorruptError",
    "VaultEntry",
    "VaultEntryInfo",
    "VaultKey",
    "VaultKeyError",
    "VaultNotFoundError",
    "VaultStorage",
    "generate_key",
    "redact_for_log",
]
