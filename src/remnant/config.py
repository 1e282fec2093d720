"""Build a :class:`~remnant.Memory` from the environment, with every layer that is installed.

The CLI, the server and the examples use this so one set of environment variables configures them
all the same way:

- ``REMNANT_DB`` / ``REMNANT_DB_URL``: the store (a SQLite path or a ``postgresql://`` URL).
- ``REMNANT_PRIVACY``: ``on`` (default: redact personal data into the encrypted vault before it is
  stored), ``off``, or ``required`` (fail if the privacy layer is not installed).
- ``REMNANT_VAULT_KEY`` / ``REMNANT_VAULT_KEY_FILE``: the vault key. With neither set, a key file is
  created next to a SQLite database (``<db>.vault-key``, mode 0600) on first use.
- ``REMNANT_RECALL_THRESHOLD``, ``REMNANT_DECAY_CURVE``, ``REMNANT_DECAY_CLOCK``: the decay model.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import Any

from remnant.core.clock import Clock
from remnant.core.decay import DecayConfig
from remnant.core.errors import StoreError
from remnant.engine.memory import Memory
from remnant.engine.options import Ingestor
from remnant.engine.seams import Redactor
from remnant.store import open_store
from remnant.store.base import Store

log = logging.getLogger("remnant.config")


def decay_from_env() -> DecayConfig:
    kwargs: dict[str, Any] = {}
    if os.environ.get("REMNANT_RECALL_THRESHOLD"):
        kwargs["recall_threshold"] = float(os.environ["REMNANT_RECALL_THRESHOLD"])
    if os.environ.get("REMNANT_DECAY_CURVE"):
        kwargs["curve"] = os.environ["REMNANT_DECAY_CURVE"]
    if os.environ.get("REMNANT_DECAY_CLOCK"):
        kwargs["clock_mode"] = os.environ["REMNANT_DECAY_CLOCK"]
    return DecayConfig(**kwargs)


def vault_key_file(store: Store) -> Path | None:
    """Where the generated vault key lives for a SQLite store (beside the database file)."""
    path = getattr(store, "path", None)
    return Path(f"{path}.vault-key") if path is not None else None


def build_redactor(store: Store) -> Redactor | None:
    """The privacy layer for ``store``, or ``None`` when it is switched off or not installed."""
    mode = os.environ.get("REMNANT_PRIVACY", "on").strip().lower()
    if mode in ("off", "0", "false", "no"):
        return None
    try:
        from remnant.privacy import Keyring, PrivacyPolicy
        from remnant.privacy import Redactor as PrivacyRedactor
        from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV, generate_key
    except ImportError as exc:  # the privacy extra is optional; say so instead of storing silently
        if mode == "required":
            raise StoreError(
                "REMNANT_PRIVACY=required but the privacy layer is not installed: "
                "pip install 'remnant[privacy]'"
            ) from exc
        log.warning("privacy layer not installed (%s): personal data will NOT be redacted", exc)
        return None
    if os.environ.get(KEY_ENV) or os.environ.get(KEY_FILE_ENV):
        keyring = Keyring.from_env()
    else:
        key_file = vault_key_file(store)
        if key_file is None:
            raise StoreError(
                f"set {KEY_ENV} or {KEY_FILE_ENV} to encrypt the vault of a server database "
                "(generate one with: remnant privacy keygen)"
            )
        if not key_file.exists():
            _create_key_file(key_file, generate_key())
        keyring = Keyring.from_file(key_file)
    policy = PrivacyPolicy.from_env()
    conn = getattr(store, "connection", None)
    if conn is not None:
        return PrivacyRedactor.for_sqlite(conn, keyring=keyring, policy=policy)
    from remnant.privacy import Vault
    from remnant.privacy.pg_storage import PgVaultStorage
    from remnant.store.sql import SQLStore

    if not isinstance(store, SQLStore):
        raise StoreError(
            f"the {type(store).__name__} has no vault storage; set REMNANT_PRIVACY=off to run "
            "without redaction"
        )
    return PrivacyRedactor(Vault(PgVaultStorage(store), keyring), policy)


def _create_key_file(key_file: Path, key: str) -> None:
    """Write a new key file unless one appears first. Several servers may open a fresh database at
    once: the key is written to a private temporary file and linked into place, so the name never
    shows a half-written file and exactly one key wins (the others read the winner's)."""
    tmp = key_file.with_name(f".{key_file.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(
                "# Remnant vault key: keep it safe and back it up; without it the vault cannot be read\n"
            )
            fh.write(key + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, key_file)  # fails if the name exists: atomic create-if-absent
        except FileExistsError:
            return
        log.warning("generated a new vault key at %s", key_file)
    finally:
        tmp.unlink(missing_ok=True)


def build_memory(
    db: str | None = None,
    *,
    tenant: str = "default",
    clock: Clock | None = None,
    store: Store | None = None,
    **overrides: Any,
) -> Memory:
    """A Memory on ``db`` with the layers the environment asks for (privacy, retrieval)."""
    owned = store is None
    store = store or open_store(db)
    try:
        if "redactor" not in overrides:
            overrides["redactor"] = build_redactor(store)
        if "retriever" not in overrides:
            overrides["retriever"] = build_retriever()
        if "ingestor" not in overrides:
            overrides["ingestor"] = build_ingestor()
    except BaseException:
        if owned:  # a store we were handed (the server's shared one) stays open for its other users
            store.close()
        raise
    return Memory(
        store=store,
        tenant=tenant,
        clock=clock,
        decay=overrides.pop("decay", None) or decay_from_env(),
        **overrides,
    )


def build_ingestor() -> Ingestor:
    """How conversation messages are read on :meth:`Memory.add`: offline salience, rule-extracted
    facts and expiries said in words (:class:`remnant.extract.ingest.RuleIngestor`)."""
    from remnant.extract.ingest import RuleIngestor

    return RuleIngestor()


def build_retriever() -> Any:
    """The recall strategy: hybrid (lexical + vectors) when the retrieval layer is installed."""
    try:
        from remnant.retrieval import default_retriever  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    return default_retriever()
