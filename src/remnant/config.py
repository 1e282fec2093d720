"""The product: :class:`Memory` opens the engine with every layer that is installed.

``remnant.Memory`` (this class) is the one front door: the privacy layer (redaction into the
encrypted vault, the key beside a SQLite database), hybrid recall with the default embedder (lexical
with a logged note when no model is installed), the offline rule ingestor and the default policies.
The CLI, the server, MCP and the assistant open it the same way. Each layer has a named opt-out
(``privacy=False``, ``embedder=None``, ``ingestor=None``); the bare engine is
:class:`remnant.engine.Engine` (also ``Memory.minimal(...)``).

Arguments left out come from the environment, so one set of variables configures every entry point
(every switch, typed and documented, is in :mod:`remnant.core.settings`, re-exported here as
:class:`Settings` / :data:`SWITCHES`; ``remnant config`` shows what is in force; docs/configuration.md):

- ``REMNANT_DB`` / ``REMNANT_DB_URL``: the store (a SQLite path or a ``postgresql://`` URL).
- ``REMNANT_PRIVACY``: ``on`` (default: redact personal data into the encrypted vault before it is
  stored), ``off``, or ``required`` (the same as ``on`` now that the privacy layer is part of the
  install: with its packages missing, either fails before anything is written).
- ``REMNANT_VAULT_KEY`` / ``REMNANT_VAULT_KEY_FILE``: the vault key. With neither set, a key file is
  created next to a SQLite database (``<db>.vault-key``, mode 0600) on first use; an in-memory
  database (``":memory:"``) gets a key that lives, like its vault, as long as the process.
- ``REMNANT_AUDIT_KEY`` / ``REMNANT_AUDIT_KEY_FILE``: the key that signs the audit log (any secret
  text; see docs/forgetting.md for the threat model). With neither set, a key file is created next
  to a SQLite database (``<db>.audit-key``, mode 0600); a PostgreSQL store without one writes an
  unsigned log (hash chain only) and says so in a warning.
- ``REMNANT_EMBEDDER``: the embedder (``e5-small`` by default; ``none`` for lexical recall).
- ``REMNANT_CONTEXT_VECTOR``: the weight of each turn's context vector (the turn before it with
  it; default 0.5); ``off`` stores one vector per turn. ``REMNANT_CONTEXT_RECIPE``: how that vector
  is had (``mix``, the default: from the two turns' own vectors, no model call; ``passage``: the
  two turns embedded together, three times the tokens).
- ``REMNANT_RECALL_THRESHOLD``, ``REMNANT_DECAY_CURVE``, ``REMNANT_DECAY_CLOCK``: the decay model.
- ``REMNANT_DEDUP``: ``on`` (default: a repeated write reinforces the memory it repeats instead of
  storing a second copy) or ``off``.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import Any

from remnant.core.clock import Clock
from remnant.core.decay import DecayConfig
from remnant.core.errors import MissingExtraError, StoreError, ValidationError
from remnant.core.extras import missing_module
from remnant.core.settings import SWITCHES as SWITCHES  # re-exported: the settings live in core
from remnant.core.settings import Settings as Settings
from remnant.core.settings import Switch as Switch
from remnant.core.settings import is_set, read
from remnant.embed.base import Embedder
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.memory import Memory as Engine
from remnant.engine.options import Ingestor, PlainIngestor
from remnant.engine.seams import Redactor, Retriever
from remnant.store import open_store
from remnant.store.base import Store

log = logging.getLogger("remnant.config")


def decay_from_env() -> DecayConfig:
    kwargs: dict[str, Any] = {}
    if (threshold := read("REMNANT_RECALL_THRESHOLD")) is not None:
        kwargs["recall_threshold"] = threshold
    if (curve := read("REMNANT_DECAY_CURVE")) is not None:
        kwargs["curve"] = curve
    if (clock_mode := read("REMNANT_DECAY_CLOCK")) is not None:
        kwargs["clock_mode"] = clock_mode
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
    value = read(AUDIT_KEY_ENV)
    if value:
        return str(value).encode("utf-8")
    path = read(AUDIT_KEY_FILE_ENV)
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

    if is_set(KEY_ENV, KEY_FILE_ENV):
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
        if is_set(*env) or src is None or dst is None:
            continue
        if src.exists() and not dst.exists():
            _create_key_file(dst, _key_lines(src, what)[0], what=what)
            written.append(dst)
    return written


PRIVACY_MODES = ("on", "off", "required")


def privacy_mode(privacy: bool | str | None = None) -> str:
    """``on``, ``off`` or ``required``: ``privacy`` if given, else ``REMNANT_PRIVACY`` (default on)."""
    if privacy is None:
        privacy = str(read("REMNANT_PRIVACY"))
    if isinstance(privacy, bool):
        return "on" if privacy else "off"
    mode = str(privacy).strip().lower()
    if mode in ("off", "0", "false", "no"):
        return "off"
    if mode in ("on", "1", "true", "yes", ""):
        return "on"
    if mode == "required":
        return mode
    raise ValueError(f"privacy must be one of {', '.join(PRIVACY_MODES)} (or a bool), got {privacy!r}")


DEDUP_ENV = "REMNANT_DEDUP"


def dedup_mode(dedup: bool | None = None) -> bool:
    """Whether repeated writes are deduplicated: ``dedup`` if given, else ``REMNANT_DEDUP`` (default on)."""
    if dedup is not None:
        return bool(dedup)
    mode = str(read(DEDUP_ENV)).lower()
    if mode in ("on", "1", "true", "yes", ""):
        return True
    if mode in ("off", "0", "false", "no"):
        return False
    raise ValidationError(f"{DEDUP_ENV} must be 'on' or 'off', got {mode!r}")


# What redaction and the vault import, lazily, deep inside remnant.privacy: checked before a
# database or a key file is made, so a broken install fails first instead of half-way.
PRIVACY_MODULES = ("remnant.privacy", "cryptography", "phonenumbers", "stdnum")


def check_privacy_installed() -> None:
    """Raise :class:`MissingExtraError` when the packages redaction and the vault need are missing
    (they come with ``pip install remnant``). Privacy stays on: switch it off by name
    (``privacy=False`` / ``REMNANT_PRIVACY=off``) rather than storing personal data unnoticed."""
    missing = missing_module(*PRIVACY_MODULES)
    if missing is not None:
        raise MissingExtraError(
            "redaction and the vault (REMNANT_PRIVACY=off stores text as given)", "", missing
        )


def build_redactor(store: Store, privacy: bool | str | None = None) -> Redactor | None:
    """The privacy layer for ``store``, or ``None`` when it is switched off; its packages missing
    (a broken install) is a :class:`MissingExtraError`, before any key file is written."""
    mode = privacy_mode(privacy)
    if mode == "off":
        return None
    check_privacy_installed()
    from remnant.privacy import Keyring, PrivacyPolicy
    from remnant.privacy import Redactor as PrivacyRedactor
    from remnant.privacy.keys import KEY_ENV, KEY_FILE_ENV, generate_key

    if is_set(KEY_ENV, KEY_FILE_ENV):
        keyring = Keyring.from_env()
    elif _in_memory(store):
        # the vault lives and dies with the process's in-memory database: so does its key
        keyring = Keyring.from_keys([generate_key()])
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


def _in_memory(store: Store) -> bool:
    """An in-memory SQLite database (``Memory(":memory:")``): a SQLite connection and no file."""
    return getattr(store, "connection", None) is not None and getattr(store, "path", "") is None


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


def default_audit_key(store: Store) -> bytes | None:
    """The product's audit-signing key (:func:`audit_key`); an in-memory database gets one for the
    process's lifetime, and a server database without one says that its log is unsigned."""
    if _in_memory(store) and not is_set(AUDIT_KEY_ENV, AUDIT_KEY_FILE_ENV):
        return secrets.token_urlsafe(32).encode("utf-8")
    key = audit_key(store)
    if key is None:
        log.warning(
            "no audit key (%s / %s): the audit log is hash-chained but not signed",
            AUDIT_KEY_ENV,
            AUDIT_KEY_FILE_ENV,
        )
    return key


class _Default:
    """The marker for "an argument left out": the layer comes from the environment's default."""

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()


class Memory(Engine):
    """Remnant as documented: the memory engine with the privacy layer, hybrid recall and the
    offline ingestor.

    >>> mem = Memory("memories.db")                      # doctest: +SKIP
    >>> mem.remember("mail me at ana@example.com", user_id="ana").content  # doctest: +SKIP
    'mail me at [EMAIL_1]'

    Opt-outs, each by name: ``privacy=False`` (store text as given; ``"required"`` fails if the
    privacy extra is missing), ``embedder=None`` (lexical recall only; or an embedder name such as
    ``"minilm"`` / ``"static"``, or an :class:`~remnant.embed.Embedder`), ``ingestor=None`` (messages
    become plain episodes, no extracted facts), ``dedup=False`` (a repeated write is stored again
    instead of reinforcing the memory it repeats; default ``REMNANT_DEDUP``). ``redactor=`` and ``retriever=`` replace a layer
    outright. Every other keyword (``clock``, ``decay``, ``tenant``, ``store``, ``contradictions``,
    ``reinforcement``, ``actor``) is the engine's. ``Memory.minimal(...)`` is the bare engine
    (:class:`remnant.engine.Engine`): no privacy layer, lexical recall, no extraction.

    The verbs (``remember``, ``add``, ``recall``, ``used``, ``forget``, ``sweep``, ``erase_user`` …)
    are the engine's: see :class:`remnant.engine.Engine`.
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        privacy: bool | str | None = None,
        embedder: str | Embedder | None = DEFAULT,
        ingestor: Ingestor | None = DEFAULT,
        redactor: Redactor | None = DEFAULT,
        retriever: Retriever | None = DEFAULT,
        audit_key: bytes | None = DEFAULT,
        tenant: str = "default",
        clock: Clock | None = None,
        store: Store | None = None,
        decay: DecayConfig | None = None,
        dedup: bool | None = None,
        **engine_options: Any,
    ) -> None:
        owned = store is None
        if redactor is DEFAULT and privacy_mode(privacy) != "off":
            check_privacy_installed()  # before open_store creates the database file
        store = store if store is not None else open_store(db)
        try:
            if redactor is DEFAULT:
                redactor = build_redactor(store, privacy)
            if retriever is DEFAULT:
                retriever = build_retriever(embedder)
            # shared with the models below: the model itself (a retriever whose vectors pair a turn
            # with the one before it offers it as ``text_embedder``)
            recall_embedder = (
                (retriever.text_embedder or retriever.embedder) if retriever is not None else None
            )
            if ingestor is DEFAULT:
                ingestor = build_ingestor(recall_embedder, clock=clock)
            elif ingestor is None:
                ingestor = PlainIngestor()
            if "contradictions" not in engine_options:
                engine_options["contradictions"] = build_contradictions(recall_embedder)
            if audit_key is DEFAULT:
                audit_key = default_audit_key(store)
            super().__init__(
                store=store,
                tenant=tenant,
                clock=clock,
                decay=decay or decay_from_env(),
                redactor=redactor,
                retriever=retriever,
                ingestor=ingestor,
                audit_key=audit_key,
                dedup=dedup_mode(dedup),
                **engine_options,
            )
        except BaseException:
            if owned:  # a store we were handed (the server's shared one) stays open for its other users
                store.close()
            raise
        pool = read("REMNANT_POOL")
        if pool and Path(pool).is_file():
            self.derived_checks["training_pool"] = lambda probes: _pool_rows_holding(pool, probes)

    @staticmethod
    def minimal(db: str | os.PathLike[str] | None = None, **options: Any) -> Engine:
        """The bare engine on ``db``: no privacy layer, the store's lexical recall, plain episodes,
        an unsigned (hash-chained) audit log."""
        return Engine(db, **options)


def build_memory(
    db: str | os.PathLike[str] | None = None,
    *,
    tenant: str = "default",
    clock: Clock | None = None,
    store: Store | None = None,
    **overrides: Any,
) -> Memory:
    """The product on ``db``: the same as :class:`Memory` (kept for callers that use this name)."""
    return Memory(db, tenant=tenant, clock=clock, store=store, **overrides)


def _pool_rows_holding(path: str, probes: Any) -> int:
    """The erasure check of the training pool (``REMNANT_POOL``): examples still holding a value."""
    from remnant.training.pool import TrainingPool

    pool = TrainingPool(path)
    try:
        return pool.rows_holding(list(probes))
    finally:
        pool.close()


SALIENCE_ENV = "REMNANT_SALIENCE"
EXPIRY_READER_ENV = "REMNANT_EXPIRY_READER"
ATTRIBUTES_ENV = "REMNANT_ATTRIBUTES"


def _model_or_rules(env: str) -> str:
    mode = str(read(env)).lower()
    if mode not in ("model", "rules"):
        raise ValidationError(f"{env} must be 'model' or 'rules', got {mode!r}")
    return mode


def build_contradictions(embedder: Any = None) -> ContradictionPolicy:
    """How unkeyed facts supersede each other: the attribute rules, then the detector; with
    ``REMNANT_ATTRIBUTES=model`` also the embedding attribute classifier for statements the rules
    cannot read (:mod:`remnant.understand.attribute_model`, loaded on first use); with
    ``REMNANT_ATTRIBUTES=pairs`` (the default) the supersession pair model instead
    (:mod:`remnant.understand.pair_model`), for the pairs the rules cannot read.

    The classifier is opt-in: on the held-out pairs it raised recall (0.196 → 0.326) but cut
    precision (0.818 → 0.698), and a wrong supersession loses a true fact (docs/forgetting.md). The
    pair model is the default since every held-out corpus author measured precision ≥ 0.90 with it
    (docs/benchmarks/understanding.md); ``rules`` turns it off."""
    from remnant.understand.attribute_model import AttributeClassifier
    from remnant.understand.pair_model import PairJudge

    mode = str(read(ATTRIBUTES_ENV)).lower()
    if mode not in ("rules", "model", "pairs"):
        raise ValidationError(f"{ATTRIBUTES_ENV} must be 'rules', 'model' or 'pairs', got {mode!r}")
    if mode == "rules":
        return ContradictionPolicy()
    threads = int(read("REMNANT_EMBED_THREADS"))
    classifier = AttributeClassifier(embedder, threads=threads)
    if mode == "pairs":
        return ContradictionPolicy(pairs=PairJudge(embedder, threads=threads, classifier=classifier))
    return ContradictionPolicy(classifier=classifier)


def build_ingestor(embedder: Any = None, *, clock: Clock | None = None) -> Ingestor:
    """How conversation messages are read on :meth:`Memory.add`: offline salience, rule-extracted
    facts and expiries said in words (:class:`remnant.extract.ingest.RuleIngestor`).

    Salience is the trained model (over ``embedder``'s vectors when the project ships weights for
    it, else over e5-small's or MiniLM's, whichever is installed, loaded on the first message) unless
    ``REMNANT_SALIENCE=rules``; with no such embedder installed the rule cues decide. ``clock`` is
    the memory's, against which an end point said in words ("good until friday") is read.
    The learned expiry reader reads beside the rules (``REMNANT_EXPIRY_READER=rules``: the rules
    alone; docs/benchmarks/understanding.md, *The learned expiry reader, on by default*)."""
    from remnant.extract.ingest import RuleIngestor

    if _model_or_rules(SALIENCE_ENV) == "rules":
        return RuleIngestor(clock=clock)
    threads = int(read("REMNANT_EMBED_THREADS"))
    return RuleIngestor(
        embedder=embedder,
        salience_embedders=("e5-small", "minilm"),
        threads=threads,
        clock=clock,
        expiry_reader=_model_or_rules(EXPIRY_READER_ENV) == "model",
    )


def build_retriever(embedder: str | Embedder | None = DEFAULT) -> Retriever | None:
    """The recall strategy: hybrid (lexical + vectors) when the retrieval layer is installed, with
    ``embedder`` (a name, an :class:`~remnant.embed.Embedder`, ``None`` for lexical only; left out:
    ``REMNANT_EMBEDDER`` or the default model, lexical with a logged note if none is installed)."""
    try:
        from remnant.retrieval import HybridRetriever, default_retriever
    except ImportError:
        if embedder is not DEFAULT and embedder is not None:
            raise StoreError("an embedder needs the retrieval layer: pip install 'remnant[embed]'") from None
        log.warning("retrieval layer not installed: recall is lexical only")
        return None
    if embedder is DEFAULT:
        return default_retriever()
    if embedder is None:
        return HybridRetriever(None)
    if isinstance(embedder, str):
        return default_retriever(embedder)
    return HybridRetriever(embedder)
