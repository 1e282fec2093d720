"""``remnant serve`` (REST + MCP + inspector) and ``remnant keys`` (API keys).

Heavy imports (FastAPI, uvicorn, mcp) stay inside the command bodies so ``remnant --help`` is fast.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

import click

from remnant.cli.core import Ctx, errors
from remnant.core.durations import parse_duration


def _is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _seconds(text: str) -> float:
    """'0' or 'off' turns the sweep off; otherwise a duration like 30s, 10m, 6h, 1d."""
    if text.strip().lower() in ("0", "off", "never", "none"):
        return 0.0
    try:
        return parse_duration(text).total_seconds()
    except Exception as exc:
        raise click.BadParameter(f"{text!r} is not a duration like 30s, 10m, 6h or 1d ({exc})") from exc


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=8420, show_default=True, type=click.IntRange(0, 65535))
@click.option("--db", "db_opt", metavar="PATH|URL", help="Database (overrides the global --db).")
@click.option(
    "--no-auth",
    is_flag=True,
    help="No API keys: one local user, tenant of the global --tenant. Loopback only.",
)
@click.option(
    "--keys-db", metavar="PATH", envvar="REMNANT_KEYS_DB", help="API key file [default: next to the DB]."
)
@click.option(
    "--sweep-interval",
    default="1d",
    show_default=True,
    help="How often the forgetting sweep runs (30s, 10m, 6h, 1d; 0 = never).",
)
@click.option("--max-body", default=1 << 20, show_default=True, type=click.IntRange(1024), help="Bytes.")
@click.option("--mcp-stdio", is_flag=True, help="Serve MCP over stdin/stdout instead of HTTP.")
@click.option(
    "--user",
    "bound_user",
    default=None,
    help="MCP stdio: bind the server to this user (tools may then leave user_id out); "
    "without it every tool call names its user_id.",
)
@click.option("--log-level", default="info", type=click.Choice(["debug", "info", "warning", "error"]))
@click.option(
    "--allow-remote-without-auth",
    is_flag=True,
    help="Really bind a non-loopback address with --no-auth (anyone who can reach it owns the data).",
)
@click.pass_obj
def serve(
    obj: Ctx,
    host: str,
    port: int,
    db_opt: str | None,
    no_auth: bool,
    keys_db: str | None,
    sweep_interval: str,
    max_body: int,
    mcp_stdio: bool,
    bound_user: str | None,
    log_level: str,
    allow_remote_without_auth: bool,
) -> None:
    """Serve the REST API (/v1), MCP (/mcp), the web inspector (/) and /healthz, /readyz.

    Create a key first with `remnant keys create --tenant NAME --scope read,write`, or run
    `remnant serve --no-auth` for a local single-user setup. The forgetting sweep runs inside.
    """
    from remnant.core.extras import require

    # before anything is opened or written: the one-line error names the extra to install
    require("remnant serve", "server", "fastapi", "uvicorn", "mcp", load=True)
    db = db_opt or (obj.db if obj else None)
    tenant = obj.tenant if obj else "default"
    if mcp_stdio:
        _serve_stdio(db, tenant, bound_user)
        return
    import logging

    from remnant.server.logs import configure_logging

    configure_logging(log_level)
    interval = _seconds(sweep_interval)
    if not _is_loopback(host):
        if no_auth and not allow_remote_without_auth:
            raise click.UsageError(
                f"refusing to serve {host} without authentication: anyone who can reach it could read "
                "and erase every memory. Drop --no-auth and use API keys (remnant keys create), "
                "or pass --allow-remote-without-auth if you really mean it."
            )
        if no_auth:
            logging.getLogger("remnant.server").warning(
                "serving without authentication on a non-loopback address", extra={"event": "no_auth_remote"}
            )
            click.echo(
                "!" * 78 + f"\nWARNING: serving {host}:{port} WITHOUT AUTHENTICATION. Anyone who can reach "
                "this address can read, change and erase every memory.\n" + "!" * 78,
                err=True,
            )
        else:
            click.echo(
                f"warning: listening on non-loopback {host}:{port}; put TLS in front of it (keys travel "
                "in headers).",
                err=True,
            )
    import uvicorn

    from remnant.server.app import ServerConfig, create_app
    from remnant.server.engines import Engines
    from remnant.store import check_target

    with errors():
        check_target(db, create=True)  # the server writes, but never into a mistyped folder
        config = ServerConfig(
            db=db,
            host=host,
            port=port,
            auth=not no_auth,
            keys_path=keys_db,
            sweep_interval=interval,
            max_body_bytes=max_body,
            tenant=tenant,
        )
        app = create_app(config, engines=Engines(db))
    log = logging.getLogger("remnant.server")
    if app.state.keys is not None and not app.state.keys.list_keys():
        log.warning(
            "no API keys yet: make one with `remnant keys create --tenant NAME --scope read,write` "
            "(or run with --no-auth on loopback)",
            extra={"event": "no_keys", "keys_db": str(app.state.keys.path)},
        )
    log.info(
        f"serving on http://{host}:{port} (REST /v1, MCP /mcp, inspector /)",
        extra={"event": "serving", "auth": not no_auth},
    )
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=10,
        server_header=False,
    )


@click.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
def openapi(output: str | None) -> None:
    """Print the server's OpenAPI document (JSON): what clients are generated from.

    The TypeScript client's copy is clients/typescript/openapi.json (a test checks it is fresh):
    remnant openapi -o clients/typescript/openapi.json
    """
    from remnant.core.extras import require

    require("remnant openapi", "server", "fastapi", load=True)
    from remnant.server.app import openapi_document

    with errors():
        text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
        if output:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            click.echo(text, nl=False)


def _serve_stdio(db: str | None, tenant: str, bound_user: str | None) -> None:
    import anyio

    from remnant.server.auth import SCOPES, Principal
    from remnant.server.engines import Engines
    from remnant.server.mcp_server import build_mcp_server

    with errors():
        engines = Engines(db)
        server = build_mcp_server(
            engines, keys=None, local=Principal(tenant, frozenset(SCOPES)), user=bound_user
        )
    try:
        anyio.run(server.run_stdio_async)
    finally:
        engines.close()


@click.group()
@click.option(
    "--keys-db", metavar="PATH", envvar="REMNANT_KEYS_DB", help="API key file [default: next to the DB]."
)
@click.pass_context
def keys(ctx: click.Context, keys_db: str | None) -> None:
    """API keys for `remnant serve`: each is bound to one tenant and a set of scopes."""
    from remnant.server.auth import default_keys_path

    obj = ctx.obj
    path = keys_db or str(default_keys_path(obj.db if obj else None))
    # opened by the subcommand on first use: `keys create --help` runs this callback too, and
    # asking for help must not create a key file
    ctx.obj = _Keys(path, obj)
    ctx.call_on_close(ctx.obj.close)


class _Keys(dict[str, Any]):
    """The key group's context: ``["store"]`` opens the key file on first access."""

    def __init__(self, path: str, parent: Any) -> None:
        super().__init__(path=path, parent=parent)

    def __missing__(self, name: str) -> Any:
        if name != "store":
            raise KeyError(name)
        from remnant.server.auth import KeyStore

        store = self["store"] = KeyStore(self["path"])
        return store

    def close(self) -> None:
        if "store" in self:
            self["store"].close()


@keys.command("create")
@click.option("--tenant", "-t", default=None, help="Tenant the key works in [default: the global --tenant].")
@click.option(
    "--scope",
    "-s",
    "scopes",
    multiple=True,
    default=("read", "write"),
    show_default=True,
    help="read, write, forget, admin, vault (repeat or comma-separate).",
)
@click.option("--name", default="", help="A label to recognise the key by.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def keys_create(
    obj: dict[str, Any], tenant: str | None, scopes: tuple[str, ...], name: str, as_json: bool
) -> None:
    """Make a key. It is printed once; only its SHA-256 is stored."""
    parent = obj["parent"]
    tenant = tenant or (parent.tenant if parent else "default")
    with errors():
        new = obj["store"].create(tenant, scopes, name)
    if as_json:
        click.echo(json.dumps({**new.key.to_dict(), "key": new.secret}))
        return
    click.echo(new.secret)
    click.echo(
        f"key {new.key.key_id} for tenant {new.key.tenant!r}, scopes {','.join(new.key.scopes)} "
        f"(stored in {obj['path']}). This is the only time the key is shown.",
        err=True,
    )


@keys.command("list")
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked keys.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def keys_list(obj: dict[str, Any], include_revoked: bool, as_json: bool) -> None:
    """Keys (ids, tenants, scopes; never the keys themselves)."""
    found = obj["store"].list_keys(include_revoked=include_revoked)
    if as_json:
        click.echo(json.dumps([k.to_dict() for k in found], indent=2))
        return
    if not found:
        click.echo("no keys")
    from datetime import UTC, datetime

    for k in found:
        made = datetime.fromtimestamp(k.created_at, UTC).strftime("%Y-%m-%d %H:%M")
        state = " REVOKED" if k.revoked_at else ""
        click.echo(f"{k.key_id}  tenant={k.tenant}  scopes={','.join(k.scopes)}  {made}  {k.name}{state}")


@keys.command("revoke")
@click.argument("key_id")
@click.pass_obj
def keys_revoke(obj: dict[str, Any], key_id: str) -> None:
    """Revoke a key by its id (the server stops accepting it within seconds)."""
    with errors():
        k = obj["store"].revoke(key_id)
    click.echo(f"revoked {k.key_id} (tenant {k.tenant})")
