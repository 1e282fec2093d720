"""CLI for the privacy layer: ``remnant privacy scan|keygen|rotate``."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import click

from remnant.privacy.entities import EntityType
from remnant.privacy.policy import PrivacyPolicy


def _policy(entities: str | None, no_presidio: bool) -> PrivacyPolicy:
    types = (
        frozenset(EntityType.parse(t) for t in entities.split(",") if t.strip())
        if entities
        else frozenset(EntityType)
    )
    return PrivacyPolicy(entities=types, use_presidio=False if no_presidio else "auto")


@click.group("privacy")
def privacy() -> None:
    """Personal-data redaction: scan text, manage vault keys."""


@privacy.command("scan")
@click.argument("text", required=False)
@click.option(
    "--file", "file_", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Scan a file."
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--entities", help="Comma-separated types to look for (default: all), e.g. EMAIL,PHONE.")
@click.option("--no-presidio", is_flag=True, help="Built-in recognizers only (skip spaCy).")
def scan(
    text: str | None, file_: Path | None, as_json: bool, entities: str | None, no_presidio: bool
) -> None:
    """Show what would be redacted in TEXT (or --file, or stdin), without storing anything."""
    from remnant.privacy.detector import Detector

    if text is not None and file_ is not None:
        raise click.UsageError("give TEXT or --file, not both")
    if file_ is not None:
        content = file_.read_text(encoding="utf-8")
    elif text is not None:
        content = text
    else:
        content = sys.stdin.read()
    try:
        detector = Detector(_policy(entities, no_presidio))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--entities") from exc
    found = detector.detect(content)
    preview_parts: list[str] = []
    pos = 0
    for d in found:
        preview_parts += [content[pos : d.start], f"[{d.entity_type.value}]"]
        pos = d.end
    preview = "".join([*preview_parts, content[pos:]])
    if as_json:
        click.echo(
            json.dumps(
                {
                    "findings": [
                        {
                            "entity_type": d.entity_type.name,
                            "start": d.start,
                            "end": d.end,
                            "value": d.value,
                            "score": round(d.score, 3),
                            "source": d.source,
                        }
                        for d in found
                    ],
                    "redacted": preview,
                    "presidio": detector.uses_presidio,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    if not found:
        click.echo("nothing to redact")
        return
    for d in found:
        click.echo(
            f"{d.entity_type.name:<12} {d.start:>5}-{d.end:<5} {d.score:.2f} {d.source:<18} {d.value!r}"
        )
    click.echo("")
    click.echo(preview)


@privacy.command("keygen")
def keygen() -> None:
    """Print a new random 256-bit vault key (for REMNANT_VAULT_KEY or a key file)."""
    from remnant.privacy.keys import generate_key

    click.echo(generate_key())


@privacy.command("rotate")
@click.option("--db", "db_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def rotate(db_path: Path) -> None:
    """Re-encrypt every vault entry under the active key.

    Set REMNANT_VAULT_KEY to "NEW_KEY,OLD_KEY" (new first); afterwards OLD_KEY can be dropped.
    """
    from remnant.privacy.errors import PrivacyError
    from remnant.privacy.storage import SqliteVaultStorage
    from remnant.privacy.vault import Vault

    conn = sqlite3.connect(db_path)
    try:
        vault = Vault(SqliteVaultStorage(conn))
        n = vault.rotate()
    except PrivacyError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        conn.close()
    click.echo(f"re-encrypted {n} vault entries under key {vault.keyring.active.key_id}")
