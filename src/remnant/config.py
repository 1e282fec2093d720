"""Build a :class:`~remnant.Memory` from the environment, with every layer that is installed.

The CLI, the server and the examples use this so one set of environment variables configures them
all the same way:

- ``REMNANT_DB`` / ``REMNANT_DB_URL``: the store (a SQLite path or a ``postgresql://`` URL).
- ``REMNANT_PRIVACY``: ``on`` (default: redact personal data into the encrypted vault before it is
  stored), ``off``, or ``required`` (fail if the privacy layer is not installed).
- ``REMNANT_VAULT_KEY`` / ``REMNANT_VAULT_KEY_FILE``: the vault key. With neither set, a key file is
  created next to a SQLite database (``<db>.vault-key``, mode 0600) on first use.
- ``REMNANT_AUDIT_KEY`` / ``REMNANT_AUDIT_KEY_FILE``: the key that signs the audit log (any secret
  text; see docs/forgetting.md for the threat model). With neither set, a key file is created next
  to a SQLite database (``<db>.audit-key``, mode 0600); a PostgreSQL store without one writes an
  unsigned log (hash chain only) and says so in a warning.
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


AUDIT_KEY_ENV = "REMNANT_AUDIT_KEY"
AUDIT_KEY_FILE_ENV = "REMNANT_AUDIT_KEY_FILE"


def vault_key_file(store: Store) -> Path | None:
    """Where the generated vault key lives for a SQLite store (beside the database file)."""
    path = getattr(store, "path", None)
    return Path(f"{path}.vault-key") if path is not None else None


def audit_key_file(store: Store) -> Path | None:
    """Where the generated audit key lives for a SQLite store (beside the database file)."""
    path = getattr(store, "path", None)
    return Path(f"{path}.audit-key") if path is not None else None


def _key_lines(path: Path, what: str) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise StoreError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from exc
    keys = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not keys:
        raise StoreError(f"the {what} file {path} holds no key")
    return keys


def audit_key(store: Store, *, create: bool = True) -> bytes | None:
    """The audit-signing key: ``REMNANT_AUDIT_KEY``, ``REMNANT_AUDIT_KEY_FILE``, else ``<db>.audit-key``
    beside a SQLite database (created with ``create``); None for a server database without one."""
    value = os.environ.get(AUDIT_KEY_ENV, "").strip()
    if value:
        return value.encode("utf-8")
    path = os.environ.get(AUDIT_KEY_FILE_ENV, "").strip()
    if path:
        return _key_lines(Path(path), "audit key")[0].encode("utf-8")
    key_file = audit_key_file(store)
    if key_file is None:
        return None
    if not key_file.exists():
        # a database whose log was written unsigned keeps verifying by its hashes until a key is
        # set on purpose; a new one is signed from its first entry
        if not create or _has_audit(store):
            return None
        _create_key_file(key_file, secrets.token_urlsafe(32), what="audit key")
    return _key_lines(key_file, "audit key")[0].encode("utf-8")


def _has_audit(store: Store) -> bool:
    fetch = getattr(store, "fetch", None)
    return bool(fetch("SELECT 1 FROM audit_log LIMIT 1")) if fetch is not None else True


def vault_key_ids(store: Store) -> set[str]:
    """The ids of the vault keys configured for ``store`` (environment, else its key file), without
    creating a key: what an import checks an export's vault against."""
    from remnant.privacy import Keyring
    from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV

    if os.environ.get(KEY_ENV) or os.environ.get(KEY_FILE_ENV):
        return set(Keyring.from_env().keys)
    key_file = vault_key_file(store)
    if key_file is None or not key_file.exists():
        return set()
    return set(Keyring.from_file(key_file).keys)


def carry_key_files(source: Store, target: Store) -> list[Path]:
    """Before migrating one SQLite database into a new one: copy the generated vault and audit key
    files beside the target when it has none (and the environment names no key), so the target
    reads the vault it receives and verifies the signatures. Returns the files written."""
    from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV

    written = []
    pairs = [(vault_key_file(source), vault_key_file(target), (KEY_ENV, KEY_FILE_ENV), "vault key")]
    pairs.append(
        (audit_key_file(source), audit_key_file(target), (AUDIT_KEY_ENV, AUDIT_KEY_FILE_ENV), "audit key")
    )
    for src, dst, env, what in pairs:
        if any(os.environ.get(e) for e in env) or src is None or dst is None:
            continue
        if src.exists() and not dst.exists():
            _create_key_file(dst, _key_lines(src, what)[0], what=what)
            written.append(dst)
    return written


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


def _create_key_file(key_file: Path, key: str, *, what: str = "vault key") -> None:
    """Write a new key file unless one appears first. Several servers may open a fresh database at
    once: the key is written to a private temporary file and linked into place, so the name never
    shows a half-written file and exactly one key wins (the others read the winner's)."""
    tmp = key_file.with_name(f".{key_file.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(
                "# Remnant vault key: keep it safe and back it up; without it the vault cannot be read\n"
                if what == "vault key"
                else "# Remnant audit key: signs the audit log; keep it off the database's machine if you can\n"
            )
            fh.write(key + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, key_file)  # fails if the name exists: atomic create-if-absent
        except FileExistsError:
            return
        log.warning("generated a new %s at %s", what, key_file)
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
        if "audit_key" not in overrides:
            overrides["audit_key"] = audit_key(store)
            if overrides["audit_key"] is None:
                log.warning(
                    "no audit key (%s / %s): the audit log is hash-chained but not signed",
                    AUDIT_KEY_ENV,
                    AUDIT_KEY_FILE_ENV,
                )
    except BaseException:
        if owned:  # a store we were handed (the server's shared one) stays open for its other users
            store.close()
        raise
    memory = Memory(
        store=store,
        tenant=tenant,
        clock=clock,
        decay=overrides.pop("decay", None) or decay_from_env(),
        **overrides,
    )
    pool = os.environ.get("REMNANT_POOL", "").strip()
    if pool and Path(pool).is_file():
        memory.derived_checks["training_pool"] = lambda probes: _pool_rows_holding(pool, probes)
    return memory


def _pool_rows_holding(path: str, probes: Any) -> int:
    """The erasure check of the training pool (``REMNANT_POOL``): examples still holding a value."""
    from remnant.training.pool import TrainingPool

    pool = TrainingPool(path)
    try:
        return pool.rows_holding(list(probes))
    finally:
        pool.close()


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
