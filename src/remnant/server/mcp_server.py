"""The MCP server: tools an agent needs to remember, recall, forget and pin, and a resource that
lists what is remembered about a user. Served over streamable HTTP at ``/mcp`` by ``remnant serve``
and over stdio by ``remnant serve --mcp-stdio``.

Over HTTP each call is authenticated by its API key (the same keys as the REST API) and works in
the key's tenant; over stdio the process belongs to whoever started it (one tenant, all scopes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from remnant.core.errors import RemnantError
from remnant.core.model import Status
from remnant.engine.memory import Memory
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
"faded" (without content) so you can ask the user again instead of guessing."""

FORGET_DOC = """Forget a memory by its id ("mem_…"), or by a request in plain words ("forget my phone
number"), for the given user. Use dry_run=true first to see what would go; hard=true purges for
good instead of hiding. Large removals need confirm=true."""

PIN_DOC = """Pin a memory so it never fades (the user said "always remember this")."""


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
    }


def build_mcp_server(
    engines: Engines,
    *,
    keys: KeyStore | None = None,
    local: Principal,
    default_user: str = "default",
) -> Any:
    """An ``MCPServer`` bound to ``engines``. ``local`` is the principal when a call carries no
    HTTP headers (stdio, in-process); over HTTP with ``keys`` set, the key decides."""
    server = MCPServer(
        "remnant",
        instructions=(
            "Long-term memory that forgets the way people do. Call recall at the start of a task, "
            "remember what the user tells you that will matter later, forget when asked."
        ),
    )

    def principal(ctx: Context | None) -> Principal:
        headers = None
        if ctx is not None:
            try:
                headers = ctx.headers
            except ValueError:
                headers = None
        if headers is None or keys is None:
            return local
        return keys.authenticate(key_from_headers(headers))

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

    @server.tool(description=REMEMBER_DOC)
    async def remember(
        content: str,
        ctx: Context,
        user_id: str = default_user,
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

    @server.tool(description=RECALL_DOC)
    async def recall(query: str, ctx: Context, user_id: str = default_user, limit: int = 5) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            res = mem.recall(query, user_id=user_id, limit=max(1, min(int(limit), 50)))
            return {
                "memories": [_compact(mem, h.memory, h.strength) for h in res.hits],
                "faded": [f.to_dict() for f in res.faded],
            }

        return await run(ctx, "read", do)  # type: ignore[no-any-return]

    @server.tool(description=FORGET_DOC)
    async def forget(
        request: str,
        ctx: Context,
        user_id: str = default_user,
        dry_run: bool = False,
        hard: bool = False,
        confirm: bool = False,
    ) -> dict[str, Any]:

        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            with Engines.exclusive(mem):
                result = mem.forget(
                    request.strip(),
                    user_id=user_id,
                    dry_run=dry_run,
                    hard=hard,
                    confirm=confirm,
                    actor=f"mcp:{p.actor}",
                )
            return result.to_dict()

        return await run(ctx, "forget", do)  # type: ignore[no-any-return]

    @server.tool(description=PIN_DOC)
    async def pin(memory_id: str, ctx: Context) -> dict[str, Any]:
        def do(mem: Memory, p: Principal) -> dict[str, Any]:
            return _compact(mem, mem.pin(memory_id))

        return await run(ctx, "write", do)  # type: ignore[no-any-return]

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
