"""``remnant export``, ``remnant import`` and ``remnant migrate``: move a whole store as JSONL.

Heavy imports (psycopg, numpy) stay inside the command bodies so ``remnant --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from remnant.cli.core import errors


def _db(ctx: click.Context, db: str | None) -> str | None:
    """The command's ``--db``, else the group's ``remnant --db`` (or the environment default)."""
    if db:
        return db
    obj = ctx.find_root().obj
    if getattr(obj, "url", None):
        # a server was named: never the local database behind its back
        raise click.UsageError(
            f"`{ctx.command_path}` works on a database, not through --url {obj.url} (REMNANT_URL): "
            "name the database with its --db, or unset --url / REMNANT_URL"
        )
    return getattr(obj, "db", None)


def _vault_key_ids(store: Any) -> set[str] | None:
    """The vault keys configured for the target (None without the privacy layer)."""
    try:
        from remnant.config import vault_key_ids

        return vault_key_ids(store)
    except ImportError:
        return None


def _summary(action: str, report: Any, seconds: float, as_json: bool, *, err: bool = False) -> None:
    data = {"action": action, **report.to_dict(), "seconds": round(seconds, 2)}
    if as_json:
        click.echo(json.dumps(data, indent=2), err=err)
        return
    chains = ", ".join(f"{t}: {'ok' if ok else 'BROKEN'}" for t, ok in report.chain_ok.items())
    click.echo(
        f"{action}: {report.memories} memories, {report.embeddings} embeddings, {report.audit} audit entries, "
        f"{report.activity} activity days, {report.meta} settings, {report.vault} vault entries in {seconds:.1f}s"
        + (f" (audit chains: {chains})" if chains else ""),
        err=err,
    )


@click.command(name="export")
@click.option("--db", metavar="PATH|URL", help="Store to export (default: remnant --db / $REMNANT_DB).")
@click.option(
    "--out", "out_path", required=True, metavar="FILE", help="JSONL file to write ('-' for stdout)."
)
@click.option("--with-embeddings", is_flag=True, help="Include embedding vectors (base64 float32).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def export_cmd(
    ctx: click.Context, db: str | None, out_path: str, with_embeddings: bool, as_json: bool
) -> None:
    """Export every memory, embedding, audit entry and activity day as JSONL (one object a line)."""
    from remnant.store import check_target, open_store
    from remnant.store.transfer import export_store

    started = time.perf_counter()
    with errors():
        check_target(_db(ctx, db))
    with errors(), open_store(_db(ctx, db)) as store:
        if out_path == "-":
            report = export_store(store, sys.stdout, with_embeddings=with_embeddings)
        else:
            with open(out_path, "w", encoding="utf-8") as out:
                report = export_store(store, out, with_embeddings=with_embeddings)
    # with --out - the data owns stdout, so the summary goes to stderr
    _summary("exported", report, time.perf_counter() - started, as_json, err=out_path == "-")


@click.command(name="import")
@click.option("--db", metavar="PATH|URL", help="Empty store to import into (default: remnant --db).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def import_cmd(ctx: click.Context, db: str | None, file: str, as_json: bool) -> None:
    """Import a JSONL export into an empty store (all or nothing; audit chains are verified)."""
    from remnant.store import check_target, open_store
    from remnant.store.transfer import import_lines

    started = time.perf_counter()
    with errors():
        check_target(_db(ctx, db), create=True)
    with errors(), open_store(_db(ctx, db)) as store:
        keys = _vault_key_ids(store)
        if file == "-":
            report = import_lines(store, sys.stdin, vault_key_ids=keys)
        else:
            with open(file, encoding="utf-8") as lines:
                report = import_lines(store, lines, vault_key_ids=keys)
    _summary("imported", report, time.perf_counter() - started, as_json)


@click.command()
@click.option("--from", "source", required=True, metavar="PATH|URL", help="Store to copy from.")
@click.option("--to", "target", required=True, metavar="PATH|URL", help="Empty store to copy into.")
@click.option("--no-embeddings", is_flag=True, help="Leave the embedding vectors behind.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def migrate(source: str, target: str, no_embeddings: bool, as_json: bool) -> None:
    """Copy a whole store into another (e.g. SQLite to PostgreSQL): export streamed into import."""
    from remnant.store import check_target, open_store
    from remnant.store.transfer import migrate_store

    started = time.perf_counter()
    with errors():
        check_target(source)
        check_target(target, create=True)
    with errors(), open_store(source) as src, open_store(target) as dst:
        from remnant.config import carry_key_files

        written = carry_key_files(src, dst)  # a new SQLite target gets the source's generated keys
        try:
            report = migrate_store(
                src, dst, with_embeddings=not no_embeddings, vault_key_ids=_vault_key_ids(dst)
            )
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
    _summary("migrated", report, time.perf_counter() - started, as_json)
