"""Every ``REMNANT_*`` environment switch, read in one place: its type, default and meaning.

:data:`SWITCHES` is the registry (one :class:`Switch` per variable, the table in
docs/configuration.md is checked against it); :func:`read` gives one switch's value, parsed, for the
module that uses it (only that switch is parsed, so a bad value of one never breaks another);
:meth:`Settings.load` gives all of them as one frozen, typed object with where each value came
from (``default``, ``environment`` or ``explicit``), which ``remnant config`` prints. No other module
reads ``os.environ`` for a ``REMNANT_*`` name (a test greps for it).

Values are read when asked for, not cached at import: a process (or a test) that sets a variable
before it opens a memory gets what it set. Empty counts as unset. Switches with a few named values
(``REMNANT_PRIVACY``, ``REMNANT_DEDUP`` …) are read here as text; the module that acts on them
checks the value and says what it accepts.

This module is the lowest layer (``remnant.core``), so the store, the embedders and the server can
read it; :mod:`remnant.config` re-exports it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from remnant.core.errors import ValidationError

Source = Literal["default", "environment", "explicit"]


def _text(name: str, raw: str) -> str:
    return raw


def _int(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValidationError(f"{name} must be a whole number, not {raw!r}") from None


def _float(name: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValidationError(f"{name} must be a number, not {raw!r}") from None


@dataclass(frozen=True)
class Switch:
    """One environment variable: ``field`` on :class:`Settings`, ``kind`` (how the docs name its
    type), ``default`` (``None``: unset, the user of it decides; ``shown`` says what that means)."""

    name: str
    field: str
    kind: str
    default: Any
    doc: str
    shown: str = ""  # the default as the docs and `remnant config` say it, when not the value itself
    secret: bool = False
    parse: Callable[[str, str], Any] = _text
    group: str = ""

    @property
    def default_text(self) -> str:
        if self.shown:
            return self.shown
        return "unset" if self.default is None else str(self.default)


_S = Switch
SWITCHES: tuple[Switch, ...] = (
    # -- the store
    _S(
        "REMNANT_DB",
        "db",
        "path or URL",
        None,
        "The database: a SQLite file or a `postgresql://` URL (the CLI's `--db`).",
        shown="`$XDG_DATA_HOME/remnant/remnant.db` (`~/.local/share/remnant/remnant.db`)",
        group="store",
    ),
    _S(
        "REMNANT_DB_URL",
        "db_url",
        "URL",
        None,
        "The database when `REMNANT_DB` is unset (a `postgresql://` URL, as hosting platforms name it).",
        group="store",
    ),
    _S(
        "REMNANT_PG_SYNCHRONOUS_COMMIT",
        "pg_synchronous_commit",
        "on / off",
        None,
        "PostgreSQL only: each session's `synchronous_commit`. `on`: a write is acknowledged after its "
        "commit is flushed to disk (an fsync per commit). `off`: acknowledged before the flush, as "
        "SQLite's WAL with `synchronous = NORMAL` (Remnant's SQLite setting) is; a PostgreSQL or "
        "machine crash can then lose the writes acknowledged in the last ~0.6 s (3 x "
        "`wal_writer_delay`), never corrupt the database or leave half a write. Unset: the "
        "server's own setting (PostgreSQL's default is `on`).",
        shown="the server's setting (PostgreSQL's default: `on`)",
        group="store",
    ),
    _S(
        "REMNANT_TENANT",
        "tenant",
        "name",
        "default",
        "The tenant the CLI acts in (`--tenant`).",
        group="store",
    ),
    # -- privacy
    _S(
        "REMNANT_PRIVACY",
        "privacy",
        "on / off / required",
        "on",
        "Redact personal data into the "
        "encrypted vault before it is stored; `required` is kept as a synonym of `on` (both fail, before "
        "writing, when the privacy layer's packages are missing).",
        group="privacy",
    ),
    _S(
        "REMNANT_VAULT_KEY",
        "vault_key",
        "key[,old key…]",
        None,
        "The vault key (several, comma separated, during a rotation: the first is active).",
        shown="a key file beside a SQLite database",
        secret=True,
        group="privacy",
    ),
    _S(
        "REMNANT_VAULT_KEY_FILE",
        "vault_key_file",
        "path",
        None,
        "A file holding the vault key(s), one a line.",
        shown="`<db>.vault-key`, created on first use",
        group="privacy",
    ),
    _S(
        "REMNANT_REDACT_ENTITIES",
        "redact_entities",
        "list or `all`",
        None,
        "The kinds of personal data redacted (comma separated, e.g. `EMAIL,PHONE`; `all` adds person names).",
        shown="all but person names",
        group="privacy",
    ),
    _S(
        "REMNANT_REDACT_PRESIDIO",
        "redact_presidio",
        "auto / on / off",
        "auto",
        "Presidio/spaCy for person names: when installed, required, or never.",
        group="privacy",
    ),
    _S(
        "REMNANT_PLACEHOLDERS",
        "placeholders",
        "per-write / stable",
        "per-write",
        "Number a write's values afresh, or reuse a user's placeholder for a value seen before.",
        group="privacy",
    ),
    # -- the audit log
    _S(
        "REMNANT_AUDIT_KEY",
        "audit_key",
        "text",
        None,
        "The key that signs the audit log.",
        shown="a key file beside a SQLite database; a PostgreSQL log is unsigned",
        secret=True,
        group="audit",
    ),
    _S(
        "REMNANT_AUDIT_KEY_FILE",
        "audit_key_file",
        "path",
        None,
        "A file holding the audit key.",
        shown="`<db>.audit-key`, created on first use",
        group="audit",
    ),
    # -- recall and the models
    _S(
        "REMNANT_EMBEDDER",
        "embedder",
        "name",
        None,
        "Recall's embedder (`e5-small`, `minilm`, `static`, …; `none` for lexical recall).",
        shown="`e5-small`, else `minilm`, else lexical",
        group="recall",
    ),
    _S(
        "REMNANT_EMBED_THREADS",
        "embed_threads",
        "int",
        2,
        "Threads each embedding model runs with.",
        parse=_int,
        group="recall",
    ),
    _S(
        "REMNANT_EMBED_BATCH",
        "embed_batch",
        "on / off",
        "on",
        "The server embeds concurrent requests together (micro-batching); `off` embeds each on its own.",
        group="recall",
    ),
    _S(
        "REMNANT_EMBED_LANES",
        "embed_lanes",
        "int",
        None,
        "The server's embedding lanes (model instances run in parallel).",
        shown="one per CPU core",
        parse=_int,
        group="recall",
    ),
    _S(
        "REMNANT_CONTEXT_VECTOR",
        "context_vector",
        "0 to <1, or off",
        None,
        "The weight of a turn's context vector (the turn before it); `off` stores one vector per turn.",
        shown="0.5",
        group="recall",
    ),
    _S(
        "REMNANT_CONTEXT_RECIPE",
        "context_recipe",
        "mix or passage",
        None,
        "How a turn's context vector is had: `mix` joins the two turns' own vectors (no model call); "
        "`passage` embeds the two turns' text together (three times the tokens of a write).",
        shown="mix",
        group="recall",
    ),
    _S(
        "REMNANT_RELEVANCE_FLOOR",
        "relevance_floor",
        "off, R or R,A",
        None,
        "Recall drops a hit under R times the best hit's relevance, or under A on the learned ranker's "
        "score, so an unrelated memory does not fill the list (docs/retrieval.md, Relevance floor).",
        shown="0,0.0025",
        group="recall",
    ),
    _S(
        "REMNANT_SALIENCE",
        "salience",
        "model / rules",
        "model",
        "How a message's importance is judged: the trained model or the rule cues.",
        group="recall",
    ),
    _S(
        "REMNANT_EXPIRY_READER",
        "expiry_reader",
        "rules / model",
        "model",
        "How an expiry said in words is read: the rules plus the learned expiry reader (the default), "
        "or the rules alone (docs/benchmarks/understanding.md: the reader reads more expiries, and a "
        "few lasting turns expire with them).",
        group="recall",
    ),
    _S(
        "REMNANT_ATTRIBUTES",
        "attributes",
        "rules / model / pairs",
        "pairs",
        "How unkeyed facts "
        "supersede each other: the attribute rules alone, plus the classifier, or plus the pair model.",
        group="recall",
    ),
    _S(
        "REMNANT_DEDUP",
        "dedup",
        "on / off",
        "on",
        "A repeated write reinforces the memory it repeats instead of storing a second copy.",
        group="recall",
    ),
    # -- decay
    _S(
        "REMNANT_RECALL_THRESHOLD",
        "recall_threshold",
        "float",
        None,
        "The strength under which a memory fades.",
        shown="0.52",
        parse=_float,
        group="decay",
    ),
    _S(
        "REMNANT_DECAY_CURVE",
        "decay_curve",
        "name",
        None,
        "The forgetting curve (`ebbinghaus`, `exponential`, …).",
        shown="ebbinghaus",
        group="decay",
    ),
    _S(
        "REMNANT_DECAY_CLOCK",
        "decay_clock",
        "wall / active",
        None,
        "Whether time is counted in "
        "days of the calendar or days the user was active (fixed when a database is created).",
        shown="wall",
        group="decay",
    ),
    # -- the server and the clients
    _S(
        "REMNANT_URL",
        "url",
        "URL",
        None,
        "A running `remnant serve`: the CLI's `--url` and the clients' server.",
        shown="none for the CLI; `http://127.0.0.1:8420` for the clients",
        group="server",
    ),
    _S(
        "REMNANT_API_KEY",
        "api_key",
        "key",
        None,
        "The API key the CLI (`--url`) and the clients send.",
        secret=True,
        group="server",
    ),
    _S(
        "REMNANT_KEYS_DB",
        "keys_db",
        "path",
        None,
        "The server's API key file.",
        shown="`remnant.keys.db` next to the database",
        group="server",
    ),
    _S(
        "REMNANT_REQUEST_BUDGET",
        "request_budget",
        "seconds",
        30.0,
        "The server's time budget per request: past it, CPU-heavy reading is given up before "
        "anything is written, with 503 `time_budget_exceeded` (0: none).",
        parse=_float,
        group="server",
    ),
    _S("REMNANT_USER", "user", "id", None, "The CLI's `--user`, when a command needs one.", group="server"),
    # -- the assistant, training and partitions
    _S(
        "REMNANT_LLM",
        "llm",
        "spec",
        None,
        "The LLM of `remnant chat` and the LLM extractors (`local`, `openai:MODEL`, `http://…`; `none`).",
        shown="none",
        group="llm",
    ),
    _S(
        "REMNANT_LLM_THREADS",
        "llm_threads",
        "int",
        1,
        "Threads of the local LLM (llama.cpp).",
        parse=_int,
        group="llm",
    ),
    _S(
        "REMNANT_POOL",
        "pool",
        "path",
        None,
        "The training pool file (`remnant pool`); when set, erasure also checks it.",
        shown="`~/.local/share/remnant/pool.db`",
        group="llm",
    ),
    _S(
        "REMNANT_PARTITIONS",
        "partitions",
        "path",
        None,
        "The partition registry (`remnant partitions`).",
        shown="`~/.local/share/remnant/partitions.db`",
        group="llm",
    ),
)
BY_NAME: dict[str, Switch] = {s.name: s for s in SWITCHES}


def raw(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The text of switch ``name`` as set (stripped), or ``None`` when unset or empty."""
    if name not in BY_NAME:
        raise KeyError(f"{name} is not a Remnant setting (see remnant.core.settings.SWITCHES)")
    value = (os.environ if environ is None else environ).get(name)
    if value is None or not value.strip():
        return None
    return value.strip()


def read(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """Switch ``name``'s value, parsed (its default when unset); ``environ`` replaces ``os.environ``."""
    text = raw(name, environ)
    switch = BY_NAME[name]
    return switch.default if text is None else switch.parse(name, text)


def is_set(*names: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether any of ``names`` is set (non-empty)."""
    return any(raw(n, environ) is not None for n in names)


@dataclass(frozen=True)
class Settings:
    """Every switch's effective value, typed, and where it came from. Build it with :meth:`load`."""

    db: str | None = None
    db_url: str | None = None
    pg_synchronous_commit: str | None = None
    tenant: str = "default"
    privacy: str = "on"
    vault_key: str | None = None
    vault_key_file: str | None = None
    redact_entities: str | None = None
    redact_presidio: str = "auto"
    placeholders: str = "per-write"
    audit_key: str | None = None
    audit_key_file: str | None = None
    embedder: str | None = None
    embed_threads: int = 2
    embed_batch: str = "on"
    embed_lanes: int | None = None
    context_vector: str | None = None
    context_recipe: str | None = None
    relevance_floor: str | None = None
    salience: str = "model"
    expiry_reader: str = "rules"
    attributes: str = "rules"
    dedup: str = "on"
    recall_threshold: float | None = None
    decay_curve: str | None = None
    decay_clock: str | None = None
    url: str | None = None
    api_key: str | None = None
    keys_db: str | None = None
    request_budget: float = 30.0
    user: str | None = None
    llm: str | None = None
    llm_threads: int = 1
    pool: str | None = None
    partitions: str | None = None
    sources: Mapping[str, Source] = field(default_factory=dict, compare=False, repr=False)
    problems: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, **explicit: Any) -> Settings:
        """Every switch from ``environ`` (default ``os.environ``), with ``explicit`` values (by field
        name, e.g. the CLI's ``--db``) over them. A value that does not parse keeps the default and
        its error is in :attr:`problems` (so one bad switch can still be seen beside the others)."""
        values: dict[str, Any] = {}
        sources: dict[str, Source] = {}
        problems: dict[str, str] = {}
        for switch in SWITCHES:
            if switch.field in explicit and explicit[switch.field] is not None:
                values[switch.field], sources[switch.field] = explicit[switch.field], "explicit"
                continue
            text = raw(switch.name, environ)
            if text is None:
                sources[switch.field] = "default"
                continue
            sources[switch.field] = "environment"
            try:
                values[switch.field] = switch.parse(switch.name, text)
            except ValidationError as exc:
                problems[switch.field] = str(exc)
        unknown = set(explicit) - {s.field for s in SWITCHES}
        if unknown:
            raise TypeError(f"not settings: {', '.join(sorted(unknown))}")
        return cls(**values, sources=sources, problems=problems)

    def source(self, field_name: str) -> Source:
        return self.sources.get(field_name, "default")

    def rows(self) -> list[dict[str, Any]]:
        """One row per switch: ``value`` (typed; ``None`` when unset), ``shown`` (as a person reads
        it, the default's meaning when unset); a secret's value is only ``set`` or ``unset``."""
        out = []
        for switch in SWITCHES:
            value = getattr(self, switch.field)
            source = self.source(switch.field)
            if switch.secret:
                value = shown = "unset" if value is None else "set"
            elif source == "default":
                shown = switch.default_text.replace("`", "")
            else:
                shown = str(value)
            row = {
                "name": switch.name,
                "value": value,
                "shown": shown,
                "source": source,
                "type": switch.kind,
                "default": switch.default_text,
                "doc": switch.doc,
            }
            if switch.field in self.problems:
                row["problem"] = self.problems[switch.field]
            out.append(row)
        return out


assert [f.name for f in fields(Settings) if f.name not in ("sources", "problems")] == [
    s.field for s in SWITCHES
], "Settings must have one field per switch, in SWITCHES' order"


def docs_table() -> str:
    """The Markdown table of every switch, as docs/configuration.md holds it (a test compares)."""
    lines = ["| variable | type | default | what it does |", "|---|---|---|---|"]
    for s in SWITCHES:
        default = s.default_text if (s.shown or s.default is None) else f"`{s.default}`"
        secret = " **Secret**: `remnant config` shows only whether it is set." if s.secret else ""
        lines.append(f"| `{s.name}` | {s.kind} | {default} | {s.doc}{secret} |")
    return "\n".join(lines)
