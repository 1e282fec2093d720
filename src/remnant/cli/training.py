"""CLI for the data and model layers: ``remnant pool``, ``remnant conflicts``, ``remnant unlearn``
and ``remnant partitions`` (their benchmarks, ``bench pool`` and ``bench partitions``, are a plug-in)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from remnant.core.errors import RemnantError, ValidationError
from remnant.training.clock import format_time, parse_time
from remnant.training.jsonl import LineProblem, LoadReport, load_jsonl, write_jsonl


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "remnant"


def _default_file(env: str, name: str) -> str:
    from remnant.core.settings import read

    if value := read(env):
        return str(value)
    path = data_dir() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)


@contextmanager
def _errors() -> Iterator[None]:
    """Remnant errors become one line on stderr and exit code 2 (bad input) or 1."""
    try:
        yield
    except RemnantError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2 if isinstance(exc, ValidationError) else 1)
    except (OSError, ValueError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)


def _emit(data: Any, as_json: bool, text: Callable[[], str] | str) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        click.echo(text() if callable(text) else text)


def _report_problems(problems: list[LineProblem], strict: bool, limit: int = 50) -> None:
    """Print bad lines (and lines given defaults) to stderr, at most ``limit`` of each kind."""
    for fatal in (True, False):
        chosen = [p for p in problems if p.fatal == fatal]
        for problem in chosen[:limit]:
            click.echo(str(problem), err=True)
        if len(chosen) > limit:
            kind = "errors" if fatal else "notes"
            click.echo(f"... and {len(chosen) - limit} more {kind}", err=True)
    if strict and any(p.fatal for p in problems):
        click.echo(f"Error: {sum(p.fatal for p in problems)} bad lines (--strict)", err=True)
        sys.exit(2)


def _time_option(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
now_option = click.option(
    "--now", "now_text", metavar="ISO", help="Reference time for ages (default: now, UTC)."
)
seed_option = click.option(
    "--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same draw)."
)
strict_flag = click.option("--strict", is_flag=True, help="Exit with code 2 if any input line is bad.")


# ---------------------------------------------------------------------------------------------
# pool
# ---------------------------------------------------------------------------------------------
@click.group()
@click.option(
    "--pool",
    "pool_path",
    envvar="REMNANT_POOL",
    metavar="PATH",
    help="Pool file [env REMNANT_POOL; default ~/.local/share/remnant/pool.db].",
)
@click.pass_context
def pool(ctx: click.Context, pool_path: str | None) -> None:
    """Dynamic training data pool: examples whose sampling weight halves every half-life."""
    ctx.obj = {"pool_path": pool_path}


def _open_pool(ctx: click.Context) -> Any:
    from remnant.training.pool import TrainingPool

    return TrainingPool(ctx.obj.get("pool_path") or _default_file("REMNANT_POOL", "pool.db"))


def _policy_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--half-life", type=float, help="Half-life in days (default: the pool's, 182.625).")(f)
    f = click.option("--authority-exp", type=float, help="Weight *= authority ** this (default 0).")(f)
    f = click.option("--importance-exp", type=float, help="Weight *= importance ** this (default 0).")(f)
    f = click.option("--min-weight", type=float, help="Drop examples whose weight fell below this.")(f)
    f = click.option(
        "--superseded-factor", type=float, help="Weight *= this for superseded examples (default 0)."
    )(f)
    return f


_POLICY_FIELDS = {
    "half_life": "half_life_days",
    "authority_exp": "authority_exponent",
    "importance_exp": "importance_exponent",
    "min_weight": "min_weight",
    "superseded_factor": "superseded_factor",
}


def _policy(p: Any, options: dict[str, float | None]) -> Any:
    """The pool's stored policy with the options given on the command line applied."""
    from dataclasses import replace

    changes = {_POLICY_FIELDS[k]: v for k, v in options.items() if v is not None}
    return replace(p.policy, **changes)


@pool.command("add")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--default-time", metavar="ISO", help="Give undated examples this time (logged per line).")
@click.option(
    "--default-source", metavar="NAME", help="Give unsourced examples this source (logged per line)."
)
@click.option(
    "--claims",
    "as_claims",
    is_flag=True,
    help="FILE holds claims (e.g. `conflicts resolve -o`): add each as a statement, superseded ones flagged.",
)
@strict_flag
@json_flag
@click.pass_context
def pool_add(
    ctx: click.Context,
    file: str,
    default_time: str | None,
    default_source: str | None,
    as_claims: bool,
    strict: bool,
    as_json: bool,
) -> None:
    """Add examples from a JSONL FILE: {"text"|"messages", "time", "source", "authority", "importance"}.

    Bad lines are reported with their line numbers; the rest are still added.
    """
    from remnant.training.example import TrainingExample, example_from_dict
    from remnant.training.statements import load_claim_examples

    dt = _time_option(default_time)
    with _errors():
        report: LoadReport[TrainingExample]
        if as_claims:
            report = load_claim_examples(file, default_date=dt, default_source=default_source)
        else:
            report = load_jsonl(
                file,
                lambda o, n, notes: example_from_dict(
                    o, n, notes, default_time=dt, default_source=default_source
                ),
            )
        with _open_pool(ctx) as p:
            result = p.add_many(report.items)
            # also flags statements already in the pool that a later resolution superseded
            p.mark_superseded(e.example_id for e in report.items if e.superseded)
            total = len(p)
    _report_problems(report.problems, strict=False)
    data = {
        "added": result.added,
        "duplicates": result.duplicates,
        "rejected": len(report.errors),
        "pool_size": total,
    }
    _emit(
        data,
        as_json,
        f"added {result.added}, duplicates {result.duplicates}, rejected {len(report.errors)}; pool has {total}",
    )
    if strict and report.errors:
        sys.exit(2)


@pool.command("config")
@_policy_options
@json_flag
@click.pass_context
def pool_config(
    ctx: click.Context,
    as_json: bool,
    **policy_kw: float | None,
) -> None:
    """Show or store the pool's weight policy (half-life, exponents, minimum weight)."""
    with _errors(), _open_pool(ctx) as p:
        policy = _policy(p, policy_kw)
        p.set_policy(policy)
        data = policy.__dict__
    _emit(data, as_json, lambda: "\n".join(f"{k}: {v}" for k, v in data.items()))


@pool.command("sample")
@click.argument("n", type=int)
@seed_option
@click.option("--batch-size", type=int, help="Split the draw into batches of this size.")
@click.option("--distinct", is_flag=True, help="Draw without replacement.")
@now_option
@_policy_options
@json_flag
@click.pass_context
def pool_sample(
    ctx: click.Context,
    n: int,
    seed: int,
    batch_size: int | None,
    distinct: bool,
    now_text: str | None,
    as_json: bool,
    **policy_kw: float | None,
) -> None:
    """Draw N examples with probability proportional to their decayed weight."""
    now = _time_option(now_text)
    with _errors(), _open_pool(ctx) as p:
        policy = _policy(p, policy_kw)
        drawn = p.sample(n, seed=seed, replace_draws=not distinct, now=now, policy=policy)
    rows = [
        {
            "id": d.example.example_id,
            "age_days": round(d.age_days, 2),
            "weight": round(d.weight, 6),
            "source": d.example.source,
            "preview": (d.example.text or d.example.chat()[-1]["content"])[:80],
        }
        for d in drawn
    ]
    if batch_size:
        batches = [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]
        _emit(
            {"batches": batches},
            as_json,
            lambda: "\n".join(
                f"batch {b}: " + ", ".join(r["id"] for r in batch) for b, batch in enumerate(batches)
            ),
        )
        return
    _emit(
        rows,
        as_json,
        lambda: "\n".join(
            f"{r['id']}  age {r['age_days']:>8}d  w {r['weight']:.4f}  {r['source']}  {r['preview']}"
            for r in rows
        ),
    )


@pool.command("export")
@click.argument("out", type=click.Path(dir_okay=False, writable=True))
@click.option(
    "--mode",
    type=click.Choice(["weighted", "sampled"]),
    default="weighted",
    show_default=True,
    help="weighted: every example once with its weight; sampled: N weighted draws.",
)
@click.option("-n", type=int, help="Number of draws (mode sampled).")
@seed_option
@click.option("--normalize", is_flag=True, help="Scale weights so their mean is 1.")
@now_option
@_policy_options
@json_flag
@click.pass_context
def pool_export(
    ctx: click.Context,
    out: str,
    mode: str,
    n: int | None,
    seed: int,
    normalize: bool,
    now_text: str | None,
    as_json: bool,
    **policy_kw: float | None,
) -> None:
    """Write a chat fine-tuning JSONL: {"messages": [...], "weight": w} per line."""
    now = _time_option(now_text)
    with _errors(), _open_pool(ctx) as p:
        policy = _policy(p, policy_kw)
        count = p.export(out, mode=mode, n=n, seed=seed, normalize=normalize, now=now, policy=policy)
    _emit({"written": count, "path": out}, as_json, f"wrote {count} rows to {out}")


@pool.command("stats")
@now_option
@_policy_options
@json_flag
@click.pass_context
def pool_stats(
    ctx: click.Context,
    now_text: str | None,
    as_json: bool,
    **policy_kw: float | None,
) -> None:
    """Counts by source, ages, total weight, effective sample size, weight share by age."""
    now = _time_option(now_text)
    with _errors(), _open_pool(ctx) as p:
        policy = _policy(p, policy_kw)
        data = p.stats(now=now, policy=policy).to_dict()
        data["policy"] = policy.__dict__
    _emit(data, as_json, lambda: "\n".join(f"{k}: {v}" for k, v in data.items()))


# ---------------------------------------------------------------------------------------------
# conflicts
# ---------------------------------------------------------------------------------------------
@click.group()
def conflicts() -> None:
    """Find and resolve conflicting facts in a dataset; write knowledge-update samples."""


def _claims_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.argument("claims_file", type=click.Path(exists=True, dir_okay=False))(f)
    f = click.option(
        "--rules",
        type=click.Path(exists=True, dir_okay=False),
        help="Rule set JSON (beats, attributes, aliases).",
    )(f)
    f = click.option(
        "--default-date", metavar="ISO", help="Give undated claims this date (logged per line)."
    )(f)
    f = click.option(
        "--default-source", metavar="NAME", help="Give unsourced claims this source (logged per line)."
    )(f)
    f = strict_flag(f)
    return f


def _load(
    claims_file: str, rules: str | None, default_date: str | None, default_source: str | None, strict: bool
) -> tuple[Any, Any]:
    from remnant.training.claims import load_claims
    from remnant.training.rules import RuleSet

    ruleset = RuleSet.load(rules) if rules else RuleSet()
    report = load_claims(claims_file, default_date=_time_option(default_date), default_source=default_source)
    _report_problems(report.problems, strict)
    return report, ruleset


@conflicts.command("scan")
@_claims_options
@json_flag
def conflicts_scan(
    claims_file: str,
    rules: str | None,
    default_date: str | None,
    default_source: str | None,
    strict: bool,
    as_json: bool,
) -> None:
    """List every entity+attribute whose claims disagree (after normalising units, case, spacing)."""
    from remnant.training.conflicts import find_conflicts

    with _errors():
        report, ruleset = _load(claims_file, rules, default_date, default_source, strict)
        found = find_conflicts(report.items, ruleset.aliases)
    data = {
        "claims": len(report.items),
        "rejected": len(report.errors),
        "conflicts": [c.to_dict() for c in found],
    }

    def text() -> str:
        lines = [f"{len(found)} conflicts in {len(report.items)} claims"]
        for c in found:
            values = "; ".join(f"{c2.value} ({c2.source}, {c2.date.date()})" for c2 in c.claims)
            lines.append(f"- {c.entity} / {c.attribute}: {values}")
        return "\n".join(lines)

    _emit(data, as_json, text)


@conflicts.command("resolve")
@_claims_options
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False),
    help="Write every claim with its status (current/superseded/...).",
)
@json_flag
def conflicts_resolve(
    claims_file: str,
    rules: str | None,
    default_date: str | None,
    default_source: str | None,
    strict: bool,
    out: str | None,
    as_json: bool,
) -> None:
    """Resolve conflicts by rules, then authority, then recency; mark old values superseded."""
    from remnant.training.conflicts import find_conflicts
    from remnant.training.rules import mark_superseded

    with _errors():
        report, ruleset = _load(claims_file, rules, default_date, default_source, strict)
        outcome = ruleset.resolve_all(find_conflicts(report.items, ruleset.aliases))
        if out:
            write_jsonl(out, mark_superseded(report.items, outcome))
    data = {
        "resolved": [r.to_dict() for r in outcome.resolved],
        "unresolved": [u.to_dict() for u in outcome.unresolved],
    }

    def text() -> str:
        lines = [f"{len(outcome.resolved)} resolved, {len(outcome.unresolved)} unresolved"]
        for r in outcome.resolved:
            old = ", ".join(f"{c.value} ({c.source})" for c in r.superseded)
            lines.append(
                f"- {r.winner.entity} / {r.winner.attribute}: {r.winner.value} ({r.winner.source}) supersedes {old} [{r.reason}]"
            )
        for u in outcome.unresolved:
            lines.append(f"! {u.conflict.entity} / {u.conflict.attribute}: {u.reason}")
        return "\n".join(lines)

    _emit(data, as_json, text)
    if outcome.unresolved and strict:
        sys.exit(1)


@conflicts.command("export")
@_claims_options
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Chat fine-tuning JSONL to write."
)
@click.option(
    "--lang",
    "langs",
    multiple=True,
    type=click.Choice(["en", "zh"]),
    help="Template language(s) (default both).",
)
@click.option(
    "--labels",
    type=click.Path(exists=True, dir_okay=False),
    help='JSON {"sources": {...}, "attributes": {...}} naming sources/attributes in prose.',
)
@click.option(
    "--with-meta", is_flag=True, help="Add a 'meta' object (entity, values, claim ids) to each row."
)
@json_flag
def conflicts_export(
    claims_file: str,
    rules: str | None,
    default_date: str | None,
    default_source: str | None,
    strict: bool,
    out: str,
    langs: tuple[str, ...],
    labels: str | None,
    with_meta: bool,
    as_json: bool,
) -> None:
    """Write "knowledge update" samples: "According to the 2023 manual it was 10; since the 2024 update it is 15"."""
    from remnant.training.conflicts import find_conflicts
    from remnant.training.updates import SourceLabels, all_update_samples

    with _errors():
        report, ruleset = _load(claims_file, rules, default_date, default_source, strict)
        outcome = ruleset.resolve_all(find_conflicts(report.items, ruleset.aliases))
        names = json.loads(Path(labels).read_text(encoding="utf-8")) if labels else {}
        rows = all_update_samples(
            outcome.resolved,
            langs=langs or ("en", "zh"),
            labels=SourceLabels(names.get("sources"), names.get("attributes")),
            with_meta=with_meta,
        )
        count = write_jsonl(out, rows)
    for u in outcome.unresolved:
        click.echo(f"skipped {u.conflict.entity} / {u.conflict.attribute}: {u.reason}", err=True)
    _emit(
        {"written": count, "resolved": len(outcome.resolved), "unresolved": len(outcome.unresolved)},
        as_json,
        f"wrote {count} samples from {len(outcome.resolved)} resolved conflicts to {out}",
    )


@conflicts.command("extract")
@click.argument("text_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--date", "date_text", required=True, metavar="ISO", help="Date of the document.")
@click.option("--source", required=True, help="Source name of the document.")
@click.option("--authority", type=float, default=0.5, show_default=True)
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="Claims JSONL to write.")
def conflicts_extract(text_file: str, date_text: str, source: str, authority: float, out: str) -> None:
    """Extract claims from prose ("The max concurrency of X is 15", "X 的最大并发数为 15")."""
    from remnant.training.extract import claims_from_text

    with _errors():
        text = Path(text_file).read_text(encoding="utf-8")
        claims = claims_from_text(text, date=parse_time(date_text), source=source, authority=authority)
        count = write_jsonl(out, (c.to_dict() for c in claims))
    click.echo(f"wrote {count} claims to {out}")


@conflicts.command("demo-data")
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="Claims JSONL to write.")
@click.option(
    "--products", type=int, default=8, show_default=True, help="Number of products (12 named, then numbered)."
)
@seed_option
@click.option(
    "--prose", type=click.Path(dir_okay=False), help="Also write the manuals as prose, one document per line."
)
def conflicts_demo_data(out: str, products: int, seed: int, prose: str | None) -> None:
    """Write a generated 2022/2023/2024 product-manual dataset (plus a stale blog) to try the commands on."""
    from remnant.training.synthetic import manual_dataset

    with _errors():
        data = manual_dataset(products, seed=seed)
        count = write_jsonl(out, data.claims)
        if prose:
            write_jsonl(
                prose,
                (
                    {"text": t, "date": format_time(d)[:10], "source": s, "authority": a}
                    for t, d, s, a in data.documents
                ),
            )
    click.echo(f"wrote {count} claims ({len(data.conflicts)} conflicting entity/attribute pairs) to {out}")


# ---------------------------------------------------------------------------------------------
# unlearn
# ---------------------------------------------------------------------------------------------
@click.group()
def unlearn() -> None:
    """Counterfactual unlearning data and its evaluation set."""


@unlearn.command("generate")
@click.argument("facts_file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Fine-tuning JSONL to write."
)
@click.option("--eval-out", type=click.Path(dir_okay=False), help="Evaluation probes JSONL to write.")
@click.option("--per-fact", type=int, default=8, show_default=True)
@click.option("--unrelated-share", type=float, default=0.4, show_default=True)
@seed_option
@click.option("--with-meta", is_flag=True)
@strict_flag
def unlearn_generate(
    facts_file: str,
    out: str,
    eval_out: str | None,
    per_fact: int,
    unrelated_share: float,
    seed: int,
    with_meta: bool,
    strict: bool,
) -> None:
    """From FACTS_FILE ({"subject", "attribute", "wrong", "correct"?, "lang"?, "retain"?} per line),
    write counterfactual samples and (optionally) the evaluation set."""
    from remnant.training.counterfactual import (
        counterfactual_samples,
        evaluation_set,
        load_facts,
        write_evaluation_set,
    )

    with _errors():
        report: LoadReport[Any] = load_facts(facts_file)
        _report_problems(report.problems, strict)
        rows = counterfactual_samples(
            report.items, per_fact=per_fact, unrelated_share=unrelated_share, seed=seed, with_meta=with_meta
        )
        count = write_jsonl(out, rows)
        probes = write_evaluation_set(eval_out, evaluation_set(report.items)) if eval_out else 0
    click.echo(
        f"wrote {count} samples to {out}" + (f" and {probes} probes to {eval_out}" if eval_out else "")
    )


@unlearn.command("eval")
@click.argument("eval_file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--generate",
    "target",
    required=True,
    metavar="MODULE:NAME",
    help="A generate(prompt) -> str callable to score, e.g. mypkg.models:before_unlearning.",
)
@click.option(
    "--after",
    "after_target",
    metavar="MODULE:NAME",
    help="A second model to compare (e.g. after the fine-tune).",
)
@json_flag
def unlearn_eval(eval_file: str, target: str, after_target: str | None, as_json: bool) -> None:
    """Score a model on an evaluation set: forget rate versus retention of general ability."""
    import importlib

    from remnant.training.counterfactual import EvalRunner, load_evaluation_set

    def load(spec: str) -> Callable[[str], str]:
        module_name, _, attr = spec.partition(":")
        if not module_name or not attr:
            raise ValidationError(f"--generate needs MODULE:NAME, got {spec!r}")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValidationError(f"cannot load {spec!r}: {exc}") from None
        if not callable(obj):
            raise ValidationError(f"{spec!r} is not callable")
        return obj  # type: ignore[no-any-return]

    with _errors():
        report = load_evaluation_set(eval_file)
        _report_problems(report.problems, strict=False)
        runner = EvalRunner(report.items)
        if after_target:
            data: dict[str, Any] = runner.compare(load(target), load(after_target))
        else:
            data = runner.run(load(target)).summary()
    _emit(data, as_json, lambda: "\n".join(f"{k}: {v}" for k, v in data.items()))


# ---------------------------------------------------------------------------------------------
# partitions
# ---------------------------------------------------------------------------------------------
@click.group()
@click.option(
    "--registry",
    envvar="REMNANT_PARTITIONS",
    metavar="PATH",
    help="Partition registry file [env REMNANT_PARTITIONS; default ~/.local/share/remnant/partitions.db].",
)
@click.option(
    "--engine",
    is_flag=True,
    help="Store items as memories in the Remnant database (--db) instead of the registry file.",
)
@click.pass_context
def partitions(ctx: click.Context, registry: str | None, engine: bool) -> None:
    """Knowledge partitions: route queries; rebuild, replace or drop one without touching the others."""
    parent = ctx.obj
    ctx.obj = {"registry": registry, "engine": engine, "core": parent}


@contextmanager
def _manager(ctx: click.Context) -> Iterator[Any]:
    from remnant.partitions.manager import PartitionManager

    registry = ctx.obj.get("registry") or _default_file("REMNANT_PARTITIONS", "partitions.db")
    if ctx.obj.get("engine"):
        from remnant.partitions.engine_backend import EngineAudit, EngineBackend

        core = ctx.obj.get("core")
        if core is not None and hasattr(core, "memory"):
            memory = core.memory(create=True)
            close = False
        else:
            from remnant.config import Memory as Product

            memory = Product(None)
            close = True
        manager = PartitionManager(registry, backend=EngineBackend(memory), audit=EngineAudit(memory))
        try:
            yield manager
        finally:
            manager.close()
            if close:
                memory.close()
    else:
        with PartitionManager(registry) as manager:
            yield manager


def _load_items(path: str | None, strict: bool) -> list[Any]:
    from remnant.partitions.model import KnowledgeItem

    if path is None:
        return []

    def parse(obj: dict[str, Any], line: int, notes: list[LineProblem]) -> KnowledgeItem:
        if not isinstance(obj.get("text"), str) or not obj["text"].strip():
            raise ValidationError("an item needs a non-empty string 'text'")
        meta = obj.get("meta", {})
        if not isinstance(meta, dict):
            raise ValidationError("'meta' must be an object")
        return KnowledgeItem(obj["text"], meta, str(obj.get("id", "")))

    report = load_jsonl(path, parse)
    _report_problems(report.problems, strict)
    return report.items


items_option = click.option(
    "--items",
    "items_file",
    type=click.Path(exists=True, dir_okay=False),
    help='JSONL of items: {"text": ..., "meta": {...}?, "id"?}.',
)


@partitions.command("list")
@json_flag
@click.pass_context
def partitions_list(ctx: click.Context, as_json: bool) -> None:
    """Partitions with their description, routing rules, version and item count."""
    with _errors(), _manager(ctx) as m:
        data = [{**p.to_dict(), "items": len(m.items(p.name))} for p in m.list()]
    _emit(
        data,
        as_json,
        lambda: (
            "\n".join(f"{d['name']} (v{d['version']}, {d['items']} items): {d['description']}" for d in data)
            or "no partitions"
        ),
    )


@partitions.command("create")
@click.argument("name", required=False)
@click.option("--description", "-d", help="What the partition holds (queries are matched against it).")
@click.option("--keyword", "keywords", multiple=True, help="Route queries containing this text here.")
@click.option("--pattern", "patterns", multiple=True, help="Route queries matching this regex here.")
@click.option("--kind", "kinds", multiple=True, help="Route queries of this kind here.")
@click.option(
    "--defaults",
    is_flag=True,
    help="Create the seed's three partitions (basic, dynamic-2024, user-a-preferences).",
)
@items_option
@strict_flag
@json_flag
@click.pass_context
def partitions_create(
    ctx: click.Context,
    name: str | None,
    description: str | None,
    keywords: tuple[str, ...],
    patterns: tuple[str, ...],
    kinds: tuple[str, ...],
    defaults: bool,
    items_file: str | None,
    strict: bool,
    as_json: bool,
) -> None:
    """Create partition NAME (or --defaults)."""
    with _errors(), _manager(ctx) as m:
        if defaults:
            created = m.seed_defaults()
            _emit([p.to_dict() for p in created], as_json, "\n".join(p.name for p in created))
            return
        if not name or not description:
            raise ValidationError("give NAME and --description (or --defaults)")
        p = m.create(
            name,
            description,
            keywords=keywords,
            patterns=patterns,
            kinds=kinds,
            items=_load_items(items_file, strict),
        )
        _emit(p.to_dict(), as_json, f"created {p.name} with {len(m.items(p.name))} items")


@partitions.command("add")
@click.argument("name")
@items_option
@strict_flag
@click.pass_context
def partitions_add(ctx: click.Context, name: str, items_file: str | None, strict: bool) -> None:
    """Add items to partition NAME."""
    with _errors(), _manager(ctx) as m:
        ids = m.add(name, _load_items(items_file, strict))
    click.echo(f"added {len(ids)} items to {name}")


@partitions.command("route")
@click.argument("query")
@click.option("--kind", help="The query's kind (e.g. preference, time-sensitive).")
@click.option(
    "--recall", "k", type=int, default=0, help="Also recall this many items from the chosen partitions."
)
@json_flag
@click.pass_context
def partitions_route(ctx: click.Context, query: str, kind: str | None, k: int, as_json: bool) -> None:
    """Which partitions QUERY goes to, and why."""
    with _errors(), _manager(ctx) as m:
        decision = m.route(query, kind=kind)
        hits = m.recall(query, partitions=decision.partitions, limit=k) if k > 0 else []
    data = {**decision.to_dict(), "hits": [h.__dict__ for h in hits]}

    def text() -> str:
        lines = [f"{name}: {', '.join(decision.reasons.get(name, []))}" for name in decision.partitions]
        lines += [f"  {h.score:.3f} [{h.partition}] {h.text}" for h in hits]
        return "\n".join(lines)

    _emit(data, as_json, text)


@partitions.command("rebuild")
@click.argument("name")
@items_option
@strict_flag
@json_flag
@click.pass_context
def partitions_rebuild(
    ctx: click.Context, name: str, items_file: str | None, strict: bool, as_json: bool
) -> None:
    """Re-index NAME from its own items, or re-ingest it from --items. Other partitions are untouched."""
    with _errors(), _manager(ctx) as m:
        p = m.rebuild(name, _load_items(items_file, strict) if items_file else None)
        n = len(m.items(name))
    _emit(p.to_dict(), as_json, f"rebuilt {name}: version {p.version}, {n} items")


@partitions.command("replace")
@click.argument("name")
@click.option(
    "--items",
    "items_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="New content JSONL.",
)
@click.option("--description", "-d", help="New description.")
@strict_flag
@json_flag
@click.pass_context
def partitions_replace(
    ctx: click.Context, name: str, items_file: str, description: str | None, strict: bool, as_json: bool
) -> None:
    """Swap NAME's content for --items. Other partitions are untouched."""
    with _errors(), _manager(ctx) as m:
        p = m.replace(name, _load_items(items_file, strict), description=description)
        n = len(m.items(name))
    _emit(p.to_dict(), as_json, f"replaced {name}: version {p.version}, {n} items")


@partitions.command("drop")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def partitions_drop(ctx: click.Context, name: str, yes: bool) -> None:
    """Delete partition NAME and its items (audited)."""
    if not yes:
        click.confirm(f"drop partition {name!r} and all its items?", abort=True)
    with _errors(), _manager(ctx) as m:
        removed = m.drop(name)
    click.echo(f"dropped {name} ({removed} items)")


@partitions.command("audit")
@click.argument("name", required=False)
@json_flag
@click.pass_context
def partitions_audit(ctx: click.Context, name: str | None, as_json: bool) -> None:
    """The audit trail of partition operations, and whether its hash chain verifies."""
    with _errors(), _manager(ctx) as m:
        records = m.audit_log(name)
        ok = m.verify_audit()
    data = {"verified": ok, "records": [r.__dict__ for r in records]}
    _emit(
        data,
        as_json,
        lambda: "\n".join(
            [f"chain {'ok' if ok else 'BROKEN'}"]
            + [
                f"{r.seq} {r.at} {r.action} {r.partition} {json.dumps(r.detail, ensure_ascii=False)}"
                for r in records
            ]
        ),
    )


__all__ = ["conflicts", "partitions", "pool", "unlearn"]
