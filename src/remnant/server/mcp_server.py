"""The MCP server: tools an agent needs to remember, recall, forget and pin, and a resource that
lists what is remembered about a user. Served over streamable HTTP at ``/mcp`` by ``remnant serve``
and over stdio by ``remnant serve --mcp-stdio``.

Over HTTP each call is authenticated by its API key (the same keys as the REST API) and works in
the key's tenant; over stdio the process belongs to whoever started it (one tenant, all scopes).

Every tool names the user it acts for (``user_id``, required): there is no silent "default" user.
Keys are bound to a tenant, not a user; a stdio server started with ``--user`` is bound to that
user, and only then may ``user_id`` be left out. A tool that acts on a memory by id refuses one of
another user. ``tools/list`` shows only the tools the caller's key may call (a read-only key sees
no ``remember``, ``pin`` or ``forget``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field

from remnant.core.errors import NotFoundError, RemnantError
from remnant.core.limits import MAX_LIMIT
from remnant.core.model import Status, is_memory_id
from remnant.engine.memory import Memory
from remnant.server import graph, versions
from remnant.server.auth import KeyStore, Principal, key_from_headers
from remnant.server.engines import Engines
from remnant.server.errors import remnant_status

REMEMBER_DOC = """Store something worth remembering about the user, so later conversations can recall it.

Remember facts the user states about themselves, stable preferences, commitments and open problems;
not small talk, not what you can look up again, not secrets (passwords, card numbers).

importance (0..1) sets how strong the memory starts and how slowly it fades:
- 0.9: identity and constraints that must not be forgotten (allergies, name, hard deadlines,
  explicit "remember this").
- 0.7: durable preferences and facts (favourite tools, job, where they live).
- 0.5: ordinary useful facts (the default).
- 0.3: passing details, context for the current task; fine to fade in days.
- 0.1: trivia.

kind:
- "preference": likes, dislikes, how they want things done.
- "fact": something true about the user or their world.
- "open_issue": an unresolved problem or a promise to follow up.
- "episode": what happened in this conversation (fades fastest).
- "summary": your condensed notes of a longer exchange.
- "knowledge": product or domain knowledge, not about the user.

key (optional): a stable slot such as "diet" or "home_city"; a new memory with the same key replaces
the old one (the old one is kept as history). ttl (optional): expire after e.g. "2h", "7d".
"""

RECALL_DOC = """Recall what is still remembered about the user that matches the query, strongest and most
relevant first. Recalling a memory strengthens it. Faded or expired matches come back as hints in
"faded" (without content) so you can ask the user again instead of guessing. A memory marked
"earlier": true states a value that has since changed (the current one comes first); superseded
memories come back only with include_stale=true."""

FORGET_DOC = """Forget a memory by its id ("mem_…"), or by a request in plain words ("forget my phone
number"), for the given user. Use dry_run=true first to see what would go; hard=true purges for
good instead of hiding. Large removals need confirm=true."""

PIN_DOC = """Pin a memory so it never fades (the user said "always remember this")."""


REVIEW_DOC = """Review a memory (spaced repetition): its strength rises and it fades more slowly from now on.
Use it when the user confirms something you remembered is still true."""

WHY_DOC = """Explain a memory: its strength now, when it will fade below recall (or never, if pinned),
its versions (what it replaced and what replaced it) and the audit entries that touched it."""

ADD_DOC = """Remember a conversation (the one call for chat turns): each message ({role, content}) becomes an
episode whose importance is how much it matters (plans, changes, habits high; greetings low), and the
facts found in it become keyed memories that supersede older values. Returns what was stored."""

ADD_MEMORIES_DOC = """Add a new memory from text the user said (OpenMemory's add_memories). The text is stored as
a conversation episode, plus any facts the server's ingestor extracts from it."""

SEARCH_MEMORY_DOC = """Search the user's memories (OpenMemory's search_memory): what is still remembered that
matches the query, best first; faded matches come back as hints in "faded"."""

LIST_MEMORIES_DOC = (
    """List what is still remembered about the user, strongest first (OpenMemory's list_memories)."""
)

DELETE_MEMORIES_DOC = """Delete memories of the user by id, for good (OpenMemory's delete_memories). Pinned memories
refuse; use forget with hard=true and confirm=true for those."""

DELETE_ALL_DOC = """Delete every memory of the user (OpenMemory's delete_all_memories): a verified erasure that cannot
be undone. Without confirm=true it only says how many memories would go."""

GRAPH_NOTE = (
    "Each entity, observation and relation is a keyed memory of the user: it decays unless used, and faded "
    "pieces drop out of the graph."
)


class ChatMessage(BaseModel):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str = Field(max_length=20_000)
    name: str | None = Field(default=None, max_length=200)


class Entity(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    entityType: str = Field(min_length=1, max_length=200)
    observations: list[str] = Field(default_factory=list, max_length=1000)


class Relation(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    source: str = Field(alias="from", min_length=1, max_length=200)
    to: str = Field(min_length=1, max_length=200)
    relationType: str = Field(min_length=1, max_length=200)


class ObservationAdd(BaseModel):
    entityName: str = Field(min_length=1, max_length=200)
    contents: list[str] = Field(max_length=1000)


class ObservationDelete(BaseModel):
    entityName: str = Field(min_length=1, max_length=200)
    observations: list[str] = Field(max_length=1000)


def explain(mem: Memory, memory_id: str) -> dict[str, Any]:
    """What ``why`` answers: the memory, its strength and fade time, its versions, its audit trail."""
    rec = mem.get(memory_id)
    fade = mem.fade_time(memory_id)
    strength = mem.strength_of(rec)
    remembered = rec.status == Status.ACTIVE and (rec.pinned or strength >= mem.decay.recall_threshold)
    trail = [e.to_dict() for e in mem.audit_log(user_id=rec.user_id, limit=None) if memory_id in e.memory_ids]
    return {
        "memory": _compact(mem, rec, strength),
        "importance": rec.importance,
        "stability_days": round(rec.stability, 4),
        "access_count": rec.access_count,
        "review_count": rec.review_count,
        "last_accessed_at": rec.last_accessed_at.isoformat() if rec.last_accessed_at else None,
        "expires_at": rec.expires_at.isoformat() if rec.expires_at else None,
        "recall_threshold": mem.decay.recall_threshold,
        "remembered": remembered,
        "fades_at": fade.isoformat() if fade else None,
        "never_fades": rec.pinned,
        "status_reason": rec.status_reason,
        "superseded_by": rec.superseded_by,
        "versions": [
            {
                "id": v.id,
                "content": v.content,
                "status": v.status.value,
                "created_at": v.created_at.isoformat() if v.created_at else None,
            }
            for v in versions.versions(mem, rec)
        ],
        "audit": trail[-50:],
    }


def _compact(mem: Memory, rec: Any, strength: float | None = None) -> dict[str, Any]:
    s = mem.strength_of(rec) if strength is None else strength
    return {
        "id": rec.id,
        "content": rec.content,
        "kind": rec.kind.value,
        "key": rec.key,
        "strength": round(s, 4),
        "pinned": rec.pinned,
        "status": rec.status.value,
        "created_at": rec.created_at.isoformat() if rec.created_at else None,
        # a write that repeated this memory (reinforced, not stored twice) says so
        **({"deduplicated": True} if getattr(rec, "deduplicated", False) else {}),
    }


_T = TypeVar("_T", bound=Callable[..., Any])


def bind_user(fn: _T, user: str | None) -> _T:
    """Make ``user_id`` default to ``user`` in ``fn``'s signature (the schema the MCP client sees);
    with no bound user it stays required."""
    if user is None:
        return fn
    sig = inspect.signature(fn, eval_str=True)
    params = [p.replace(default=user) if p.name == "user_id" else p for p in sig.parameters.values()]
    fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return fn


def owned(mem: Memory, memory_id: str, user_id: str) -> Any:
    """The memory ``memory_id`` if it is ``user_id``'s; another user's is "not found" (it exists
    for no one but its owner)."""
    rec = mem.get(memory_id)
    if rec.user_id != user_id:
        raise NotFoundError(f"memory {memory_id} not found for user {user_id!r}")
    return rec


class ScopedToolList:
    """MCP middleware: ``tools/list`` answers only the tools the caller's key may call."""

    def __init__(self, scopes: dict[str, str], principal: Callable[[Any], Principal]) -> None:
        self.scopes = scopes
        self.principal = principal

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        result = await call_next(ctx)
        if getattr(ctx, "method", None) != "tools/list":
            return result
        try:
            p = self.principal(getattr(getattr(ctx, "request", None), "headers", None))
        except RemnantError:
            return result  # the call itself is refused by the gate in front of /mcp
        tools = result.get("tools") if isinstance(result, dict) else getattr(result, "tools", None)
        if tools is None:
            return result
        allowed = [t for t in tools if p.allows(self.scopes.get(_tool_name(t), "admin"))]
        if isinstance(result, dict):
            return {**result, "tools": allowed}
        return result.model_copy(update={"tools": allowed})


def _tool_name(tool: Any) -> str:
    return str(tool.get("name") if isinstance(tool, dict) else tool.name)


def build_mcp_server(
    engines: Engines,
    *,
    keys: KeyStore | None = None,
    local: Principal,
    user: str | None = None,
) -> Any:
    """An ``MCPServer`` bound to ``engines``. ``local`` is the principal when a call carries no
    HTTP headers (stdio, in-process); over HTTP with ``keys`` set, the key decides. ``user`` binds
    a stdio server to one user (``user_id`` may then be left out); otherwise every call names it."""
    server = MCPServer(
        "remnant",
        instructions=(
            "Long-term memory that forgets the way people do. Call recall at the start of a task, "
            "remember what the user tells you that will matter later, forget when asked."
        ),
    )

    def from_headers(headers: Any) -> Principal:
        if headers is None or keys is None:
            return local
        return keys.authenticate(key_from_headers(headers))

    def principal(ctx: Context | None) -> Principal:
        headers = None
        if ctx is not None:
            try:
                headers = ctx.headers
            except ValueError:
                headers = None
        return from_headers(headers)

    scopes: dict[str, str] = {}
    server.middleware.append(ScopedToolList(scopes, from_headers))

    def tool(scope: str, description: str) -> Callable[[_T], _T]:
        """Register a tool that needs ``scope`` (listed only to keys that have it)."""

        def register(fn: _T) -> _T:
            scopes[fn.__name__] = scope
            server.tool(description=description)(bind_user(fn, user))
            return fn

        return register

    async def run(ctx: Context | None, scope: str, fn: Callable[[Memory, Principal], Any]) -> Any:
        try:
            p = principal(ctx)
            p.require(scope)
            mem = engines.get(p.tenant)
            return await anyio.to_thread.run_sync(lambda: fn(mem, p))
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("remnant"):
                raise
            raise ToolError(f"not_implemented: {exc.name} is not installed") from exc
        except RemnantError as exc:
            # the agent sees why (not found, invalid, forbidden...) rather than a bare failure
            _status, code, _ = remnant_status(exc)
            raise ToolError(f"{code}: {exc}") from exc

    @tool("write", REMEMBER_DOC)
    async def remember(
        content: str,
        ctx: Context,
        user_id: str,
        kind: Literal["fact", "preference", "open_issue", "episode", "summary", "knowledge"] = "fact",
        importance: float = 0.5,
        key: str | None = None,
        ttl: str | None = None,
    ) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            rec = mem.remember(
                content, user_id=user_id, kind=kind, importance=importance, key=key, ttl=ttl, source="mcp"
            )
            return _compact(mem, rec)

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

    @tool("read", RECALL_DOC)
    async def recall(
        query: str, ctx: Context, user_id: str, limit: int = 5, include_stale: bool = False
    ) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            res = mem.recall(
                query,
                user_id=user_id,
                limit=max(1, min(int(limit), MAX_LIMIT)),
                include_stale=bool(include_stale),
            )
            return {
                "memories": [{**_compact(mem, h.memory, h.strength), "earlier": h.earlier} for h in res.hits],
                "faded": [f.to_dict() for f in res.faded],
            }

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    @tool("forget", FORGET_DOC)
    async def forget(
        request: str,
        ctx: Context,
        user_id: str,
        dry_run: bool = False,
        hard: bool = False,
        confirm: bool = False,
    ) -> dict[str, Any]:

        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            target, actor = request.strip(), f"mcp:{p.actor}"
            if is_memory_id(target):  # an agent names the memory it was shown
                owned(mem, target, user_id)
                with Engines.exclusive(mem):
                    result = mem.forget_ids(
                        [target], dry_run=dry_run, hard=hard, confirm=confirm, actor=actor
                    )
            else:  # the engine holds the store for the changes only, not the parsing
                result = mem.forget(
                    target, user_id=user_id, dry_run=dry_run, hard=hard, confirm=confirm, actor=actor
                )
            return result.to_dict()

        return await run(ctx, "forget", do)  # type: ignore[no-any-return]

    @tool("write", PIN_DOC)
    async def pin(memory_id: str, ctx: Context, user_id: str) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            return _compact(mem, mem.pin(owned(mem, memory_id, user_id).id))

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

    @tool("write", REVIEW_DOC)
    async def review(memory_id: str, ctx: Context, user_id: str) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            return _compact(mem, mem.review(owned(mem, memory_id, user_id).id))

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

    @tool("read", WHY_DOC)
    async def why(memory_id: str, ctx: Context, user_id: str) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            return explain(mem, owned(mem, memory_id, user_id).id)

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    @tool("write", ADD_DOC)
    async def add(
        messages: list[ChatMessage],
        ctx: Context,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
    ) -> dict[str, Any]:
        items = [m.model_dump(exclude_none=True) for m in messages[:1000]]

        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            res = mem.add(items, user_id=user_id, session_id=session_id, agent_id=agent_id)
            return {
                "episodes": [{**_compact(mem, r), "importance": r.importance} for r in res.episodes],
                "facts": [{**_compact(mem, r), "importance": r.importance} for r in res.facts],
                "reasons": res.reasons,
                "duplicates": list(res.duplicates),
            }

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

    # -- OpenMemory's tools -------------------------------------------------------------------------
    @tool("write", ADD_MEMORIES_DOC)
    async def add_memories(text: str, ctx: Context, user_id: str) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            res = mem.add(text, user_id=user_id)
            return {
                "results": [
                    {"id": r.id, "memory": r.content, "event": "NONE" if r.deduplicated else "ADD"}
                    for r in res.memories
                ],
            }

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

    @tool("read", SEARCH_MEMORY_DOC)
    async def search_memory(query: str, ctx: Context, user_id: str, limit: int = 10) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            res = mem.recall(query, user_id=user_id, limit=max(1, min(int(limit), MAX_LIMIT)))
            return {
                "results": [
                    {**_compact(mem, h.memory, h.strength), "score": round(h.score, 4), "earlier": h.earlier}
                    for h in res.hits
                ],
                "faded": [f.to_dict() for f in res.faded],
            }

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    @tool("read", LIST_MEMORIES_DOC)
    async def list_memories(ctx: Context, user_id: str, limit: int = 100) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            active = mem.active(user_id, limit=max(1, min(int(limit), 1000)))
            return {"results": [_compact(mem, r, s) for r, s in active]}

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    @tool("forget", DELETE_MEMORIES_DOC)
    async def delete_memories(memory_ids: list[str], ctx: Context, user_id: str) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            records = [mem.get(i) for i in memory_ids[:1000]]
            for r in records:
                if r.user_id != user_id:
                    raise NotFoundError(f"memory {r.id} not found for user {user_id!r}")
            n = (
                mem.purge([r.id for r in records], reason="deleted on request", actor=f"mcp:{p.actor}")
                if records
                else 0
            )
            return {"deleted": n, "ids": [r.id for r in records]}

        return await run(ctx, "forget", do)  # type: ignore[no-any-return]

    @tool("forget", DELETE_ALL_DOC)
    async def delete_all_memories(ctx: Context, user_id: str, confirm: bool = False) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            if not confirm:
                n = mem.count_memories(user_id)
                return {"erased": False, "would_erase": n, "message": "call again with confirm=true to erase"}
            with Engines.exclusive(mem):
                report = mem.erase_user(user_id, actor=f"mcp:{p.actor}")
            return {"erased": True, **report.to_dict()}

        return await run(ctx, "forget", do)  # type: ignore[no-any-return]

    # -- the reference memory server's knowledge graph ---------------------------------------------
    @tool(
        "write",
        "Create entities (name, entityType, observations) in the user's knowledge graph; "
        "existing names are ignored. " + GRAPH_NOTE,
    )
    async def create_entities(entities: list[Entity], ctx: Context, user_id: str) -> dict[str, Any]:
        items = [e.model_dump() for e in entities]
        return await run(ctx, "write", lambda mem, p: {"created": graph.create_entities(mem, user_id, items)})  # type: ignore[no-any-return]

    @tool(
        "write",
        "Create relations (from, to, relationType, in active voice) between entities; "
        "duplicates are skipped. " + GRAPH_NOTE,
    )
    async def create_relations(relations: list[Relation], ctx: Context, user_id: str) -> dict[str, Any]:
        items = [r.model_dump(by_alias=True) for r in relations]
        return await run(
            ctx, "write", lambda mem, p: {"created": graph.create_relations(mem, user_id, items)}
        )  # type: ignore[no-any-return]

    @tool("write", "Add observations to existing entities (fails for a missing entity). " + GRAPH_NOTE)
    async def add_observations(
        observations: list[ObservationAdd], ctx: Context, user_id: str
    ) -> dict[str, Any]:
        items = [o.model_dump() for o in observations]
        return await run(
            ctx, "write", lambda mem, p: {"results": graph.add_observations(mem, user_id, items)}
        )  # type: ignore[no-any-return]

    @tool("forget", "Delete entities with their observations and the relations that involve them (purged).")
    async def delete_entities(entityNames: list[str], ctx: Context, user_id: str) -> dict[str, Any]:
        return await run(
            ctx,
            "forget",
            lambda mem, p: {"deleted": graph.delete_entities(mem, user_id, entityNames, f"mcp:{p.actor}")},
        )  # type: ignore[no-any-return]

    @tool("forget", "Delete specific observations of entities (purged).")
    async def delete_observations(
        deletions: list[ObservationDelete], ctx: Context, user_id: str
    ) -> dict[str, Any]:
        items = [d.model_dump() for d in deletions]
        return await run(
            ctx,
            "forget",
            lambda mem, p: {"deleted": graph.delete_observations(mem, user_id, items, f"mcp:{p.actor}")},
        )  # type: ignore[no-any-return]

    @tool("forget", "Delete relations (purged).")
    async def delete_relations(relations: list[Relation], ctx: Context, user_id: str) -> dict[str, Any]:
        items = [r.model_dump(by_alias=True) for r in relations]
        return await run(
            ctx,
            "forget",
            lambda mem, p: {"deleted": graph.delete_relations(mem, user_id, items, f"mcp:{p.actor}")},
        )  # type: ignore[no-any-return]

    @tool(
        "read",
        "The user's whole knowledge graph: entities with the observations still remembered, and relations.",
    )
    async def read_graph(ctx: Context, user_id: str) -> dict[str, Any]:
        return await run(ctx, "read", lambda mem, p: graph.read_graph(mem, user_id))  # type: ignore[no-any-return]

    @tool(
        "read",
        "Entities whose name, type or an observation contains the query, with the relations between them.",
    )
    async def search_nodes(query: str, ctx: Context, user_id: str) -> dict[str, Any]:
        return await run(ctx, "read", lambda mem, p: graph.search_nodes(mem, user_id, query))  # type: ignore[no-any-return]

    @tool("read", "The named entities and the relations between them.")
    async def open_nodes(names: list[str], ctx: Context, user_id: str) -> dict[str, Any]:
        return await run(
            ctx, "read", lambda mem, p: graph.read_graph(mem, user_id, {n.strip() for n in names})
        )  # type: ignore[no-any-return]

    @server.resource(
        "remnant://users/{user_id}/memories",
        name="memories",
        description="What is still remembered about a user, strongest first (JSON).",
        mime_type="application/json",
    )
    async def memories_of(user_id: str, ctx: Context) -> str:
        def do(mem: Memory, p: Principal) -> str:
            active = mem.active(user_id, limit=200)
            return json.dumps(
                {
                    "user_id": user_id,
                    "tenant": mem.tenant,
                    "memories": [_compact(mem, r, s) for r, s in active if r.status == Status.ACTIVE],
                },
                ensure_ascii=False,
            )

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    return server
