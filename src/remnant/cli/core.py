"""Core commands: remember, recall, show, list, review, pin, hide, purge, forget, sweep, audit, stats."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click

from remnant.core.errors import RemnantError
from remnant.core.limits import MAX_LIMIT
from remnant.core.model import Kind, MemoryRecord, Status

if TYPE_CHECKING:
    from remnant.cli.remote import Remote
    from remnant.client import Client
    from remnant.engine.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])


class Ctx:
    def __init__(self, db: str | None, tenant: str, url: str | None = None) -> None:
        self.db = db
        self.tenant = tenant
        self.url = url
        self._memory: Memory | None = None
        self._remote: Remote | None = None
        self._client: Client | None = None

    def memory(self, *, models: bool = True, create: bool = False) -> Memory:
        """The engine on --db. ``models=False`` (commands that only read or show what is stored)
        loads no embedder, no PII detector and no ingestor: startup stays a fraction of a second.
        Only commands that write pass ``create``: a read of a mistyped path fails clearly instead
        of leaving a folder, an empty database and a vault key."""
        if self.url:
            # never the local database behind the back of someone who named a server
            current = click.get_current_context(silent=True)
            name = current.command_path if current is not None else "this command"
            raise click.UsageError(
                f"`{name}` works on a local database only and does not go through --url {self.url} "
                "(REMNANT_URL); run it on the server's machine, or unset --url / REMNANT_URL"
            )
        if self._memory is None:
            from remnant.config import Memory as Product
            from remnant.store import check_target

            light: dict[str, Any] = {} if models else {"redactor": None, "retriever": None, "ingestor": None}
            check_target(self.db, create=create)
            self._memory = Product(self.db, tenant=self.tenant, **light)
        return self._memory

    def engine(self, *, models: bool = True, create: bool = False) -> Memory | Client:
        """What a verb acts on: the server at --url through :class:`remnant.Client` (the same verbs
        as the engine's) when one is given, else the local database (:meth:`memory`)."""
        if not self.url:
            return self.memory(models=models, create=create)
        if self._client is None:
            from remnant.core.extras import require

            require("remnant --url", "client", "httpx")
            from remnant.client import Client

            self._client = Client(self.url)
        return self._client

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()
        if self._client is not None:
            self._client.close()

    def remote(self) -> Remote | None:
        """The server at --url / REMNANT_URL, when one is given: commands go through its REST API
        instead of opening the database and loading models here."""
        if self.url and self._remote is None:
            from remnant.cli.remote import Remote

            self._remote = Remote(self.url)
        return self._remote


class LazyGroup(click.Group):
    """A group whose commands from other layers (and plug-ins) are imported only when one of them is
    run or the help lists them, so ``remnant list`` never imports the server, the bench or privacy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}  # command name -> "module:attribute"
        self.plugin_loader: Callable[[], None] | None = None

    def add_lazy(self, name: str, target: str) -> None:
        self.lazy[name] = target

    def _load(self, name: str) -> click.Command | None:
        import importlib

        module_name, _, attr = self.lazy[name].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("remnant.cli"):
                return None  # that layer is not part of this build
            raise
        command = getattr(module, attr, None)
        if not isinstance(command, click.Command):
            return None
        self.add_command(command, name)
        return command

    def _plugins(self) -> None:
        loader, self.plugin_loader = self.plugin_loader, None
        if loader is not None:
            loader()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self.lazy:
            command = self._load(cmd_name)
        if command is None:
            self._plugins()
            command = self.commands.get(cmd_name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """A missing optional part (``remnant serve`` without the server extra) is one line naming
        the extra to install and exit code 1, not a traceback, wherever in the command it shows."""
        from remnant.core.errors import MissingExtraError

        try:
            return super().invoke(ctx)
        except MissingExtraError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(1)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._plugins()
        for name in list(self.lazy):
            if name not in self.commands:
                self._load(name)
        return sorted(self.commands)


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.option(
    "--db",
    envvar="REMNANT_DB",
    metavar="PATH|URL",
    help="Database file or postgresql:// URL [env REMNANT_DB; default ~/.local/share/remnant/remnant.db].",
)
@click.option(
    "--tenant", envvar="REMNANT_TENANT", default="default", show_default=True, help="Tenant to act in."
)
@click.option(
    "--url",
    envvar="REMNANT_URL",
    metavar="URL",
    help="A running `remnant serve` (e.g. http://127.0.0.1:8420): every command that reads or changes "
    "memories goes through its REST API, loading nothing here and never touching a local database; "
    "the others refuse. The key from REMNANT_API_KEY [env REMNANT_URL].",
)
@click.version_option(package_name="remnant")
@click.pass_context
def cli(ctx: click.Context, db: str | None, tenant: str, url: str | None) -> None:
    """Remnant: memory for LLM apps that forgets the way people do.

    Every memory has a strength that decays over time (the Ebbinghaus curve) and grows when it is
    used; under the recall threshold (52 %) it fades. Keyed facts supersede older ones, TTLs expire,
    and every act of forgetting is audited.
    """
    ctx.obj = Ctx(db, tenant, url)
    ctx.call_on_close(ctx.obj.close)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def user_option(f: F) -> F:
    return click.option(
        "--user",
        "-u",
        "user_id",
        envvar="REMNANT_USER",
        required=True,
        help="Whose memories [env REMNANT_USER].",
    )(f)


@contextmanager
def errors() -> Iterator[None]:
    """Turn Remnant errors into a one-line message and exit code 1 (2 for bad input)."""
    try:
        yield
    except RemnantError as exc:
        from remnant.core.errors import ValidationError

        click.echo(f"Error: {exc}", err=True)
        sys.exit(2 if isinstance(exc, ValidationError) else 1)


def emit(data: Any, as_json: bool, text: Callable[[], str] | str | None = None) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    elif text is not None:
        click.echo(text() if callable(text) else text)


def _fmt_time(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def bar(strength: float, width: int = 20) -> str:
    filled = max(0, min(width, round(strength * width)))
    return "█" * filled + "░" * (width - filled)


def strength_of(mem: Memory | Client, r: MemoryRecord) -> float | None:
    """A memory's strength now: the engine computes it; a server's answer is printed without one."""
    measure = getattr(mem, "strength_of", None)
    return float(measure(r)) if measure is not None else None


def describe_record(r: MemoryRecord, strength: float | None = None) -> str:
    key = f" [{r.key}]" if r.key else ""
    pin = " 📌" if r.pinned else ""
    s = f" {bar(strength, 10)} {strength:.2f}" if strength is not None else ""
    status = "" if r.status == Status.ACTIVE else f" ({r.status.value})"
    return f"{r.id}  {r.kind.value}{key}{pin}{status}{s}\n    {r.content}"


@cli.command()
@click.argument("content")
@user_option
@click.option("--kind", "-k", type=click.Choice([k.value for k in Kind]), default="fact", show_default=True)
@click.option("--key", help="Structured key; a newer memory with the same key supersedes this one.")
@click.option(
    "--importance",
    "-i",
    type=float,
    default=0.5,
    show_default=True,
    help="0..1; sets initial strength and stability.",
)
@click.option("--confidence", type=float, default=1.0, show_default=True, help="Source reliability 0..1.")
@click.option("--source", help="Where the memory came from.")
@click.option("--ttl", help="Expire after a duration: 10m, 24h, 7d, 2w.")
@click.option("--pin", is_flag=True, help="Never decay.")
@click.option("--agent", "agent_id")
@click.option("--session", "session_id")
@click.option("--meta", "metadata", help="JSON object of metadata.")
@json_option
@click.pass_obj
def remember(
    obj: Ctx,
    content: str,
    user_id: str,
    kind: str,
    key: str | None,
    importance: float,
    confidence: float,
    source: str | None,
    ttl: str | None,
    pin: bool,
    agent_id: str | None,
    session_id: str | None,
    metadata: str | None,
    as_json: bool,
) -> None:
    """Store a memory (use - to read CONTENT from stdin)."""
    with errors():
        if content == "-":
            content = sys.stdin.read()
        meta = _parse_json_object(metadata)
        remote = obj.remote()
        if remote is not None:
            body = {
                "content": content,
                "user_id": user_id,
                "kind": kind,
                "key": key,
                "importance": importance,
                "confidence": confidence,
                "source": source,
                "ttl": ttl,
                "pinned": pin,
                "agent_id": agent_id,
                "session_id": session_id,
                "metadata": meta,
            }
            out = remote.call("POST", "/memories", body={k: v for k, v in body.items() if v is not None})
            emit(out, as_json, lambda: f"remembered {out['id']} (strength {out['strength']:.2f})")
            return
        mem = obj.memory(create=True)
        r = mem.remember(
            content,
            user_id=user_id,
            kind=kind,
            key=key,
            importance=importance,
            confidence=confidence,
            source=source,
            ttl=ttl,
            pinned=pin,
            agent_id=agent_id,
            session_id=session_id,
            metadata=meta,
        )
        emit(r.to_dict(), as_json, lambda: f"remembered {r.id} (strength {mem.strength_of(r):.2f})")


@cli.command()
@click.argument("file", required=False, type=click.File("r", encoding="utf-8"))
@user_option
@click.option(
    "--content", "-c", "contents", multiple=True, help="A message's text (repeat for several messages)."
)
@click.option(
    "--role",
    type=click.Choice(["user", "assistant", "system", "tool"]),
    default="user",
    show_default=True,
    help="The role of the --content messages.",
)
@click.option("--agent", "agent_id")
@click.option("--session", "session_id")
@click.option(
    "--no-infer", is_flag=True, help="Store the messages as they are: no salience, no extracted facts."
)
@click.option("--meta", "metadata", help="JSON object of metadata for every memory stored.")
@json_option
@click.pass_obj
def add(
    obj: Ctx,
    file: Any,
    user_id: str,
    contents: tuple[str, ...],
    role: str,
    agent_id: str | None,
    session_id: str | None,
    no_infer: bool,
    metadata: str | None,
    as_json: bool,
) -> None:
    """Remember a conversation: each message becomes an episode scored by how much it matters, and
    the facts in it become keyed memories that supersede older values (Memory.add).

    Messages come from FILE (- for stdin): a JSON array of {"role", "content"} objects (the OpenAI
    chat format; {"messages": [...]} and one object per line work too), or from --content.
    """
    from remnant.core.errors import ValidationError

    with errors():
        messages: list[Any] = [{"role": role, "content": c} for c in contents]
        if file is not None:
            messages.extend(_read_messages(file.read()))
        if not messages:
            raise ValidationError("give messages in FILE (or - for stdin) or with --content")
        mem = obj.engine(create=True)
        res = mem.add(
            messages,
            user_id=user_id,
            session_id=session_id,
            agent_id=agent_id,
            infer=not no_infer,
            metadata=_parse_json_object(metadata),
        )

        def text() -> str:
            lines = []
            for r in res.episodes:
                why = ", ".join(res.reasons.get(r.id, [])) or "-"
                lines.append(f"episode {r.id}  importance {r.importance:.2f} ({why})\n    {r.content}")
            lines.extend(f"fact    {describe_record(r, strength_of(mem, r))}" for r in res.facts)
            lines.append(f"stored {len(res.episodes)} episode(s) and {len(res.facts)} fact(s)")
            return "\n".join(lines)

        emit(res.to_dict(), as_json, text)


def _read_messages(raw: str) -> list[Any]:
    """A JSON array of messages, ``{"messages": [...]}``, or JSON Lines (one message per line)."""
    from remnant.core.errors import ValidationError

    raw = raw.strip()
    if not raw:
        return []
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise ValidationError(
                f"messages are not valid JSON (an array, or one object per line): {exc}"
            ) from exc
    if isinstance(data, dict):
        data = data.get("messages", [data] if "content" in data else None)
    if not isinstance(data, list):
        raise ValidationError('messages must be a JSON array of {"role", "content"} objects')
    return data


@cli.command()
@click.argument("memory_id")
@click.option("--content", help="New text (redacted again, re-indexed); - reads it from stdin.")
@click.option("--importance", "-i", type=float, help="0..1; rescales the memory's stability.")
@click.option("--confidence", type=float, help="0..1.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeat for several).")
@click.option("--clear-tags", is_flag=True, help="Remove every tag.")
@click.option("--meta", "metadata", help='JSON object merged into the metadata ({"k": null} removes k).')
@click.option("--valid-from", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]), help="UTC.")
@click.option("--valid-to", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]), help="UTC.")
@click.option("--ttl", help="Expire after a duration from now: 10m, 24h, 7d, 2w.")
@click.option("--no-expiry", is_flag=True, help="Clear the expiry.")
@json_option
@click.pass_obj
def update(
    obj: Ctx,
    memory_id: str,
    content: str | None,
    importance: float | None,
    confidence: float | None,
    tags: tuple[str, ...],
    clear_tags: bool,
    metadata: str | None,
    valid_from: datetime | None,
    valid_to: datetime | None,
    ttl: str | None,
    no_expiry: bool,
    as_json: bool,
) -> None:
    """Change a memory in place (same id; audited): text, importance, tags, metadata, validity."""
    from datetime import UTC

    from remnant.engine.options import UpdateOptions

    with errors():
        changes: UpdateOptions = {}
        if content is not None:
            changes["content"] = sys.stdin.read() if content == "-" else content
        if importance is not None:
            changes["importance"] = importance
        if confidence is not None:
            changes["confidence"] = confidence
        if tags or clear_tags:
            changes["tags"] = list(tags)
        if metadata is not None:
            changes["metadata"] = _parse_json_object(metadata)
        if valid_from is not None:
            changes["valid_from"] = valid_from.replace(tzinfo=UTC)
        if valid_to is not None:
            changes["valid_to"] = valid_to.replace(tzinfo=UTC)
        if ttl is not None:
            changes["ttl"] = ttl
        if no_expiry:
            changes["expires_at"] = None
        mem = obj.engine()
        r = mem.update(memory_id, **changes)
        emit(r.to_dict(), as_json, lambda: f"updated {r.id} ({', '.join(sorted(changes))})")


def _parse_json_object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    from remnant.core.errors import ValidationError

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"--meta is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ValidationError("--meta must be a JSON object")
    return value


@cli.command()
@click.argument("query")
@user_option
@click.option("-n", "--limit", type=click.IntRange(1, MAX_LIMIT), default=5, show_default=True)
@click.option("--kind", "kinds", multiple=True, type=click.Choice([k.value for k in Kind]))
@click.option(
    "--as-of", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]), help="Recall as at this UTC time."
)
@click.option("--no-touch", is_flag=True, help="Do not reinforce what is recalled.")
@json_option
@click.pass_obj
def recall(
    obj: Ctx,
    query: str,
    user_id: str,
    limit: int,
    kinds: tuple[str, ...],
    as_of: datetime | None,
    no_touch: bool,
    as_json: bool,
) -> None:
    """Find the memories that best match QUERY (only what is still remembered)."""
    from datetime import UTC

    with errors():
        remote = obj.remote()
        if remote is not None:
            from remnant.cli.remote import describe

            body = {
                "query": query,
                "user_id": user_id,
                "limit": limit,
                "kinds": list(kinds) or None,
                "as_of": as_of.replace(tzinfo=UTC).isoformat() if as_of else None,
                "touch": not no_touch,
            }
            got = remote.call("POST", "/recall", body={k: v for k, v in body.items() if v is not None})
            hits = [{**h["memory"], "strength": h.get("strength")} for h in got.get("hits", [])]
            emit(got, as_json, lambda: "\n".join(describe(h) for h in hits) or "(nothing remembered)")
            return
        result = obj.memory().recall(
            query,
            user_id=user_id,
            limit=limit,
            kinds=kinds or None,
            as_of=as_of.replace(tzinfo=UTC) if as_of else None,
            touch=not no_touch,
        )

        def text() -> str:
            lines = [describe_record(h.memory, h.strength) for h in result.hits] or ["(nothing remembered)"]
            for f in result.faded:
                lines.append(
                    f"  faded: {f.id} ({f.kind}{', ' + f.key if f.key else ''}) — {f.reason}; ask again"
                )
            return "\n".join(lines)

        emit(result.to_dict(), as_json, text)


@cli.command()
@click.argument("memory_id")
@click.option("--days", type=float, default=30.0, show_default=True, help="How far to project the curve.")
@json_option
@click.pass_obj
def show(obj: Ctx, memory_id: str, days: float, as_json: bool) -> None:
    """A memory with its strength now and its projected decay curve."""
    from remnant.core import decay as dk

    with errors():
        remote = obj.remote()
        if remote is not None:
            from remnant.cli.remote import describe

            got = remote.call("GET", f"/memories/{memory_id}")
            emit(got, as_json, lambda: describe(got))
            return
        mem = obj.memory(models=False)
        r = mem.get(memory_id)
        axis = mem.axis(r.user_id)
        state = dk.DecayState(r.strength0, r.stability, r.anchor, r.pinned)
        points = dk.curve(state, axis, axis + days, 11)
        strength = dk.strength_at(state, axis)
        data = {
            **r.to_dict(),
            "strength": strength,
            "fade_time": (mem.fade_time(r.id) or None),
            "recall_threshold": mem.decay.recall_threshold,
            "curve": [{"day": round(p[0] - axis, 3), "strength": round(p[1], 4)} for p in points],
        }

        def text() -> str:
            lines = [
                describe_record(r, strength),
                f"    created {_fmt_time(r.created_at)}  "
                f"accessed {r.access_count}x  reviews {r.review_count}  stability {r.stability:.1f}d  "
                f"importance {r.importance:.2f}  confidence {r.confidence:.2f}",
            ]
            fade = mem.fade_time(r.id)
            lines.append(f"    fades {'never (pinned)' if math.isinf(r.fade_at) else _fmt_time(fade)}")
            lines.append(f"    projected (threshold {mem.decay.recall_threshold:.2f}):")
            for day, s in points:
                mark = "·" if s >= mem.decay.recall_threshold else "x"
                lines.append(f"      +{day - axis:5.1f}d {bar(s)} {s:.2f} {mark}")
            return "\n".join(lines)

        emit(data, as_json, text)


@cli.command(name="list")
@click.option("--user", "-u", "user_id", envvar="REMNANT_USER", help="Only this user's memories.")
@click.option("--status", "statuses", multiple=True, type=click.Choice([s.value for s in Status]))
@click.option("--kind", "kinds", multiple=True, type=click.Choice([k.value for k in Kind]))
@click.option("--key")
@click.option("--active", "only_active", is_flag=True, help="Only what is still remembered, strongest first.")
@click.option("-n", "--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0)
@json_option
@click.pass_obj
def list_cmd(
    obj: Ctx,
    user_id: str | None,
    statuses: tuple[str, ...],
    kinds: tuple[str, ...],
    key: str | None,
    only_active: bool,
    limit: int,
    offset: int,
    as_json: bool,
) -> None:
    """List memories, newest first (or --active: strongest first)."""
    with errors():
        remote = obj.remote()
        if remote is not None and not only_active:
            from remnant.cli.remote import describe

            params = {"user_id": user_id, "status": list(statuses) or None, "kind": list(kinds) or None}
            got = remote.call(
                "GET", "/memories", params={**params, "key": key, "limit": limit, "offset": offset}
            )
            items = got["items"]
            emit(items, as_json, lambda: "\n".join(describe(i) for i in items) or "(no memories)")
            return
        mem = obj.memory(models=False)
        if only_active:
            if not user_id:
                raise click.UsageError("--active needs --user")
            pairs = mem.active(user_id, limit=limit, kinds=kinds or None)
            emit(
                [{**r.to_dict(), "strength": s} for r, s in pairs],
                as_json,
                lambda: "\n".join(describe_record(r, s) for r, s in pairs) or "(nothing remembered)",
            )
            return
        records = mem.list_memories(
            user_id, statuses=statuses or None, kinds=kinds or None, key=key, limit=limit, offset=offset
        )
        emit(
            [{**r.to_dict(), "strength": mem.strength_of(r)} for r in records],
            as_json,
            lambda: "\n".join(describe_record(r, mem.strength_of(r)) for r in records) or "(no memories)",
        )


def _simple(name: str, method: str, help_text: str) -> None:
    @click.argument("memory_id")
    @json_option
    @click.pass_obj
    def command(obj: Ctx, memory_id: str, as_json: bool) -> None:
        with errors():
            mem = obj.engine()
            r = getattr(mem, method)(memory_id)
            s = strength_of(mem, r)
            emit(r.to_dict(), as_json, f"{name}: {r.id}" + (f" (strength {s:.2f})" if s is not None else ""))

    command.__doc__ = help_text
    cli.command(name=name)(command)


_simple("review", "review", "Review a memory: strength rises and stability grows (spaced repetition).")
_simple("pin", "pin", "Pin a memory: it never decays and is never evicted.")
_simple("unpin", "unpin", "Unpin a memory: it decays again from full strength.")
_simple("unhide", "unhide", "Restore a hidden memory.")


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--reason", default="hidden on request", show_default=True)
@json_option
@click.pass_obj
def hide(obj: Ctx, memory_ids: tuple[str, ...], reason: str, as_json: bool) -> None:
    """Hide memories (reversible with unhide)."""
    with errors():
        ids = obj.engine().hide(list(memory_ids), reason=reason)
        emit({"hidden": ids}, as_json, f"hidden {len(ids)}")


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--force", is_flag=True, help="Also purge pinned memories.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@click.pass_obj
def purge(obj: Ctx, memory_ids: tuple[str, ...], force: bool, yes: bool, as_json: bool) -> None:
    """Delete memories for good (audited; cannot be undone)."""
    with errors():
        if not yes and sys.stdin.isatty():
            click.confirm(f"Purge {len(memory_ids)} memories for good?", abort=True)
        n = obj.engine().purge(list(memory_ids), force=force)
        emit({"purged": n}, as_json, f"purged {n}")


@cli.command()
@click.argument("target")
@click.option(
    "--user", "-u", "user_id", envvar="REMNANT_USER", help="Whose memory (needed for a request in words)."
)
@click.option("--hard", is_flag=True, help="Purge instead of hide.")
@click.option("--dry-run", is_flag=True, help="Only show what would be forgotten.")
@click.option("--confirm", is_flag=True, help="Allow a request that matches a large share of memories.")
@json_option
@click.pass_obj
def forget(
    obj: Ctx, target: str, user_id: str | None, hard: bool, dry_run: bool, confirm: bool, as_json: bool
) -> None:
    """Forget a memory by id, or by a request in words: remnant forget "forget my phone number" -u ana.

    Prints what matched and what was done in a few lines; --json prints the whole answer (the
    request as understood, every match, the vault entries forgotten, the audit entry)."""
    with errors():
        result = obj.engine().forget(target, user_id=user_id, hard=hard, dry_run=dry_run, confirm=confirm)
        emit(result.to_dict(), as_json, lambda: _forget_summary(result))


def _forget_summary(result: Any) -> str:
    """A few lines: what matched and what was done (``--json`` prints the whole answer)."""
    verb = (
        "would " + result.action if result.dry_run else {"hide": "hidden", "purge": "purged"}[result.action]
    )
    lines = [result.message] if result.message else []
    for m in result.matches[:10]:
        what = f"  {m.content}" if m.content else ""
        lines.append(f"  {m.id}  {m.kind}{f' [{m.key}]' if m.key else ''}  ({m.why}){what}")
    if len(result.matches) > 10:
        lines.append(f"  … and {len(result.matches) - 10} more (--json lists them all)")
    done = len(result.matches) if result.dry_run else len(result.forgotten)
    tail = f"{'matched' if result.dry_run else verb} {done} of {result.total_memories} memories"
    if result.dry_run:
        tail += f" ({verb}; nothing changed)"
    if result.rewritten:
        tail += f", {len(result.rewritten)} rewritten"
    if result.skipped_pinned:
        tail += f", {len(result.skipped_pinned)} pinned kept"
    lines.append(tail)
    return "\n".join(lines)


@cli.command()
@user_option
@click.argument("key")
@json_option
@click.pass_obj
def history(obj: Ctx, user_id: str, key: str, as_json: bool) -> None:
    """Every value a key has had for a user, superseded ones included, oldest first."""
    with errors():
        records = obj.engine(models=False).history(key, user_id=user_id)
        emit(
            [r.to_dict() for r in records],
            as_json,
            lambda: (
                "\n".join(f"{_fmt_time(r.created_at)}  {r.status.value:<10} {r.content}" for r in records)
                or "(no history)"
            ),
        )


@cli.command()
@click.option("--user", "-u", "user_id", envvar="REMNANT_USER", help="Only this user's memories.")
@json_option
@click.pass_obj
def reembed(obj: Ctx, user_id: str | None, as_json: bool) -> None:
    """Embed every memory again with recall's embedder (after an upgrade changed how passages are
    embedded), with a progress bar, instead of on each scope's first recall."""
    with errors():
        mem = obj.memory()
        embedder = mem.retriever.embedder
        model = embedder.model_id if embedder is not None else None
        if model is None:
            emit({"reembedded": 0, "model": None}, as_json, "recall has no embedder: nothing to embed")
            return
        with click.progressbar(length=1, label=f"embedding with {model}", file=sys.stderr) as bar:

            def step(done: int, total: int) -> None:
                bar.length = max(total, 1)
                bar.update(done - bar.pos)

            n = mem.reembed(user_id, progress=step)
        emit({"reembedded": n, "model": model}, as_json, f"re-embedded {n} memories with {model}")


@cli.command()
@click.option("--user", "-u", "user_id", envvar="REMNANT_USER")
@json_option
@click.pass_obj
def stats(obj: Ctx, user_id: str | None, as_json: bool) -> None:
    """Counts of memories by status."""
    with errors():
        remote = obj.remote()
        data = remote.call("GET", "/stats", params={"user_id": user_id}) if remote else None
        data = data if data is not None else obj.memory(models=False).stats(user_id)
        emit(
            data,
            as_json,
            lambda: (
                "\n".join(f"{k:<12} {v}" for k, v in sorted(data["by_status"].items()))
                + f"\n{'total':<12} {data['total']}"
                + (f"\nremembered   {data['remembered_now']}" if "remembered_now" in data else "")
            ),
        )


@cli.command()
@click.option("--dry-run", is_flag=True, help="Report what would change without changing anything.")
@json_option
@click.pass_obj
def sweep(obj: Ctx, dry_run: bool, as_json: bool) -> None:
    """Run every forgetting policy once (expiry, fading, purges after grace, eviction)."""
    with errors():
        report = obj.engine().sweep(dry_run=dry_run)
        emit(
            report.to_dict(),
            as_json,
            lambda: (
                "\n".join(f"{s.action:<16} {s.count:>8}  ({s.policy})" for s in report.steps)
                + ("\n(dry run)" if dry_run else "")
            ),
        )


@cli.group(invoke_without_command=True)
@click.option("--user", "-u", "user_id", envvar="REMNANT_USER")
@click.option("--action")
@click.option("-n", "--limit", type=click.IntRange(1), default=50, show_default=True)
@json_option
@click.pass_context
def audit(ctx: click.Context, user_id: str | None, action: str | None, limit: int, as_json: bool) -> None:
    """List the audit log (newest last); `remnant audit verify` checks its hash chain."""
    if ctx.invoked_subcommand:
        return
    with errors():
        remote = ctx.obj.remote()
        if remote is not None:
            got = remote.call("GET", "/audit", params={"user_id": user_id, "action": action, "limit": 1000})
            rows = got["items"][-limit:]
            emit(
                rows,
                as_json,
                lambda: (
                    "\n".join(
                        f"#{e['seq']:<5} {e['at'][:16]} {e['action']:<14} {e['actor']:<8} {e['summary']} — {e['reason']}"
                        for e in rows
                    )
                    or "(empty)"
                ),
            )
            return
        entries = ctx.obj.memory(models=False).audit_log(user_id=user_id, action=action)[-limit:]
        emit(
            [e.to_dict() for e in entries],
            as_json,
            lambda: (
                "\n".join(
                    f"#{e.seq:<5} {_fmt_time(e.at)} {e.action:<14} {e.actor:<8} {e.summary} — {e.reason}"
                    for e in entries
                )
                or "(empty)"
            ),
        )


@audit.command()
@click.option(
    "--anchor",
    "anchor_path",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    help="An anchor from `remnant audit head`: every tenant it names must still hold its anchored entry.",
)
@json_option
@click.pass_obj
def verify(obj: Ctx, anchor_path: str | None, as_json: bool) -> None:
    """Re-hash the audit chain and check its signatures; exit 1 if it was tampered with."""
    with errors():
        if anchor_path is None:
            result = obj.engine(models=False).verify_audit()
            emit(result.to_dict(), as_json, lambda: _verdict(result))
            if not result.ok:
                sys.exit(1)
            return
        from remnant.core.errors import ValidationError

        mem = obj.memory(models=False)
        try:
            with click.open_file(anchor_path, encoding="utf-8") as fh:
                anchor = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ValidationError(f"cannot read the anchor {anchor_path}: {exc}") from exc
        tenants = anchor.get("tenants") if isinstance(anchor, dict) else None
        names = sorted(tenants) if isinstance(tenants, dict) and tenants else [obj.tenant]
        results = {t: mem.verify_audit(anchor=anchor, tenant=t) for t in names}
        ok = all(r.ok for r in results.values())
        emit(
            {"ok": ok, "tenants": {t: r.to_dict() for t, r in results.items()}},
            as_json,
            lambda: "\n".join(f"{t}: {_verdict(r)}" for t, r in results.items()),
        )
        if not ok:
            sys.exit(1)


def _verdict(result: Any) -> str:
    how = ", ".join(w for w, on in (("signed", result.signed), ("anchored", result.anchored)) if on)
    how = f"; {how}" if how else "; unsigned: hash chain only"
    if result.ok:
        return f"audit chain ok ({result.checked} entries{how})"
    return f"audit chain BROKEN at entry #{result.first_bad_seq}: {result.problem}"


@audit.command()
@click.option(
    "--out", "out_path", default="-", show_default=True, metavar="FILE", help="Where to write the anchor."
)
@click.option("--all-tenants", is_flag=True, help="Anchor every tenant of the store, not only --tenant.")
@click.pass_obj
def head(obj: Ctx, out_path: str, all_tenants: bool) -> None:
    """Write the audit log's head as a small JSON anchor; keep it outside the database and check it
    later with `remnant audit verify --anchor FILE`."""
    with errors():
        mem = obj.memory()
        tenants = sorted(set(mem.store.tenants()) | {obj.tenant}) if all_tenants else [obj.tenant]
        text = json.dumps(mem.audit_anchor(tenants), indent=2)
        if out_path == "-":
            click.echo(text)
        else:
            with open(out_path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")


@cli.command(name="erase-user")
@user_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@click.pass_obj
def erase_user(obj: Ctx, user_id: str, yes: bool, as_json: bool) -> None:
    """Right to be forgotten: purge everything of a user and print the erasure report."""
    with errors():
        if not yes and sys.stdin.isatty():
            click.confirm(f"Erase every memory of {user_id!r} for good?", abort=True)
        report = obj.engine().erase_user(user_id)
        emit(report.to_dict(), as_json, lambda: json.dumps(report.to_dict(), indent=2))


@cli.command()
@click.argument("memory_id")
@json_option
@click.pass_obj
def rehydrate(obj: Ctx, memory_id: str, as_json: bool) -> None:
    """Privileged: show a memory with its personal data restored from the vault (needs the key; audited)."""
    with errors():
        text = obj.engine().rehydrate(memory_id)
        emit({"id": memory_id, "content": text}, as_json, text)
