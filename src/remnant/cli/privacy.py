"""CLI for the privacy layer: ``remnant privacy scan|keygen|rotate`` and ``remnant bench privacy``.

The lead registers ``privacy`` on the main group and ``bench_privacy`` under ``bench``.
"""

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


@click.command("privacy")
@click.option("--n", "n_pii", default=2000, show_default=True, help="Sentences with personal data.")
@click.option("--clean", "n_clean", default=500, show_default=True, help="PII-free sentences.")
@click.option("--seed", default=7, show_default=True)
@click.option("--no-presidio", is_flag=True, help="Built-in recognizers only.")
@click.option(
    "--holdout/--no-holdout", default=True, show_default=True, help="Also score held-out templates."
)
@click.option(
    "--misses", default=0, show_default=True, help="Print up to N missed values and false positives."
)
@click.option(
    "--clean-file",
    "clean_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Extra PII-free text (split into sentences) to measure false positives on real prose.",
)
@click.option("--json", "as_json", is_flag=True)
def bench_privacy(
    n_pii: int,
    n_clean: int,
    seed: int,
    no_presidio: bool,
    holdout: bool,
    misses: int,
    clean_files: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Precision/recall per entity type on a generated, labelled corpus (English + Chinese)."""
    from remnant.privacy.bench import TARGETS, evaluate, format_report, per_lang
    from remnant.privacy.corpus import generate_corpus
    from remnant.privacy.detector import Detector

    detector = Detector(PrivacyPolicy(use_presidio=False if no_presidio else "auto"))
    command = f"remnant bench privacy --n {n_pii} --clean {n_clean} --seed {seed}" + (
        " --no-presidio" if no_presidio else ""
    )
    runs = [("main templates", generate_corpus(n_pii, n_clean, seed))]
    if holdout:
        runs.append(
            (
                "held-out templates",
                generate_corpus(max(1, n_pii // 4), max(1, n_clean // 5), seed + 1, holdout=True),
            )
        )
    if clean_files:
        from remnant.privacy.corpus import sentences_from_text

        extra = [s for f in clean_files for s in sentences_from_text(f.read_text(encoding="utf-8"))]
        runs.append((f"PII-free prose from {len(clean_files)} file(s)", extra))
        command += "".join(f" --clean-file {f}" for f in clean_files)
    results = []
    for name, corpus in runs:
        rep = evaluate(detector, corpus)
        results.append((name, rep))
    if as_json:
        payload = {
            "command": command,
            "presidio": detector.uses_presidio,
            "runs": {
                name: {
                    "recall": {t.name: round(s.recall, 4) for t, s in rep.by_type.items() if s.gold},
                    "precision": {
                        t.name: round(s.precision, 4) for t, s in rep.by_type.items() if s.predicted
                    },
                    "recall_by_lang": per_lang(rep),
                    "clean_fp_rate": round(rep.clean_fp_rate, 4),
                    "sentences": rep.sentences,
                }
                for name, rep in results
            },
            "targets": {t.name: v for t, v in TARGETS.items()},
        }
        click.echo(json.dumps(payload, indent=2))
        return
    notes = {
        "held-out templates": f"(--n/4 and --clean/5 sentences, seed {seed + 1}; templates never tuned on)"
    }
    for name, rep in results:
        click.echo(f"## {name} {notes.get(name, '')}".rstrip())
        click.echo(format_report(rep, command=command, presidio=detector.uses_presidio))
        for etype, value, sentence in rep.misses[:misses]:
            click.echo(f"  miss {etype}: {value!r} in {sentence!r}")
        for etype, value, sentence in rep.false_positives[:misses]:
            click.echo(f"  false positive {etype}: {value!r} in {sentence!r}")
        click.echo("")


bench_privacy.name = "privacy"
