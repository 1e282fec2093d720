"""The benchmarks' commands: the ``remnant bench`` group and ``remnant eval``.

The product CLI (:mod:`remnant.cli`) knows nothing of this module: it loads plug-ins from the
``remnant.plugins`` entry-point group and calls :func:`register` with its root group. Heavy imports
(the suites, the privacy detector, httpx, matplotlib) happen inside the command bodies so
``remnant --help`` stays fast. Nothing here imports :mod:`remnant.cli` at import time: that package
loads this one while it initialises, so such an import would be circular.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from remnant.bench import CONTEXT_SETTINGS, header


@click.group(context_settings=CONTEXT_SETTINGS)
def bench() -> None:
    """Benchmarks: print figures with the command and the machine (not tests)."""


def register(cli: click.Group) -> None:
    """Add ``bench`` (with every benchmark under it) and ``eval`` to the ``remnant`` group."""
    from remnant.bench.engine import bench_engine
    from remnant.bench.forgetting import bench_forgetting
    from remnant.bench.ingest import bench_ingest
    from remnant.bench.locomo import bench_locomo
    from remnant.bench.peers import bench_peers
    from remnant.bench.round_trips import bench_round_trips
    from remnant.bench.training import bench_partitions, bench_pool

    for command in (
        bench_engine,
        bench_ingest,
        bench_locomo,
        bench_forgetting,
        bench_privacy,
        bench_assistant,
        bench_extraction,
        bench_pool,
        bench_partitions,
        bench_serve,
        bench_peers,
        bench_round_trips,
    ):
        bench.add_command(command)
    cli.add_command(bench)
    cli.add_command(eval_cmd)


# -- remnant eval -------------------------------------------------------------------------------------
_SUITE_CHOICES = (
    "all",
    "retention",
    "conflict",
    "long_dialogue",
    "long-dialogue",
    "tokens",
    "interference",
    "deletion",
    "retention_curve",
    "retention-curve",
    "supersession",
    "forget_requests",
    "forget-requests",
    "salience",
    "reinforcement",
    "paraphrase",
    "expiry",
    "duplicates",
    "timelines",
    "chitchat",
)


@click.command("eval", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--suite",
    "suites",
    multiple=True,
    default=("all",),
    show_default=True,
    type=click.Choice(_SUITE_CHOICES),
    help="Suite to run (repeat for several).",
)
@click.option(
    "--adapter",
    "adapters",
    multiple=True,
    default=("remnant", "baseline"),
    show_default=True,
    help="Memory system to evaluate (repeat): remnant, remnant-private, baseline (alias bm25), vector-baseline, "
    "never-forgets, forgets-everything.",
)
@click.option("--quick", is_flag=True, help="Small sizes (seconds), for CI.")
@click.option("--seed", type=int, default=7, show_default=True, help="Scenario seed; same seed, same scores.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("eval-report"),
    show_default=True,
    help="Directory for results.json, report.html and the chart PNGs.",
)
@click.option(
    "--png-dir", type=click.Path(file_okay=False, path_type=Path), help="Write chart PNGs here instead."
)
@click.option(
    "--timeout", "timeout_s", type=float, default=300.0, show_default=True, help="Per-case timeout (s)."
)
@click.option(
    "--embedder",
    default="auto",
    show_default=True,
    help="Embedder for Remnant's recall (REMNANT_EMBEDDER): 'none' is lexical recall. 'auto': the product's "
    "embedder (e5-small) for the suites that measure its meaning match (forget_requests, timelines), lexical for the "
    "others, which measure forgetting (recall quality is `remnant bench locomo`; e5-small embeds every "
    "simulated write, much slower).",
)
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A case file (JSON Lines, the suite's schema) in place of the held-out cases; expiry, "
    "forget_requests, supersession, timelines and chitchat only, e.g. tests/extract/dev_expiry.jsonl, "
    "tests/forgetting/dev_forget_requests_3.jsonl, tests/forgetting/dev_supersession_3.jsonl.",
)
def eval_cmd(
    suites: tuple[str, ...],
    adapters: tuple[str, ...],
    quick: bool,
    seed: int,
    out: Path,
    png_dir: Path | None,
    timeout_s: float,
    embedder: str,
    data: Path | None,
) -> None:
    """Prove that memory forgets well: retention, conflicts, long dialogues, tokens, interference, deletion.

    Every suite prints its score with its definition; Remnant and the remember-everything baseline
    run side by side. Exit status 0 even when targets are missed (the report says which).
    """
    from remnant.bench.eval.adapters import EvalError
    from remnant.bench.eval.harness import run_eval
    from remnant.bench.eval.report import verdict, write_report

    if timeout_s <= 0:
        raise click.BadParameter("must be positive", param_hint="--timeout")

    def progress(r: Any) -> None:
        line = f"{r.suite:<16} {r.adapter:<18} {verdict(r):<9} score {_fmt(r.score):>7}  ({r.seconds:.1f} s)"
        if r.failures:
            line += f"  {len(r.failures)} failed case(s): {r.failures[0].error}"
        click.echo(line)

    seen: set[str] = set()
    try:
        run = run_eval(
            list(suites),
            list(adapters),
            seed=seed,
            quick=quick,
            timeout_s=timeout_s,
            progress=progress,
            data=data,
            embedder=embedder,  # REMNANT_EMBEDDER for the Remnant adapters (build_memory reads it)
        )
    except EvalError as exc:
        raise click.UsageError(str(exc)) from exc
    click.echo("")
    for suite, by in run.results.items():
        first = next(iter(by.values()))
        if suite in seen:
            continue
        seen.add(suite)
        click.echo(f"{suite}: {first.definition}. Target: {first.target}.")
        notes: list[str] = []
        for a, r in by.items():
            click.echo(f"  {a:<18} {verdict(r):<9} {_fmt(r.score)}")
            notes += [n for n in r.notes if n not in notes]
        for n in notes:
            click.echo(f"  note: {n}")
    paths = write_report(run, out, png_dir=png_dir)
    click.echo(f"\nreport: {paths['html']}\nresults: {paths['json']}  ({run.meta.get('seconds')} s)")


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.4f}"


# -- remnant bench privacy ----------------------------------------------------------------------------
@click.command("privacy", context_settings=CONTEXT_SETTINGS)
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
@click.option(
    "--heldout",
    "heldout",
    is_flag=True,
    help="Score only the hand-written held-out spelling set (bench/heldout/pii_spellings.jsonl).",
)
@click.option(
    "--heldout-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Another file in the held-out format (one JSON a line: text, pii [{type, value}], category).",
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
    heldout: bool,
    heldout_file: Path | None,
    as_json: bool,
) -> None:
    """Precision/recall per entity type on a generated, labelled corpus (English + Chinese)."""
    from remnant.bench.privacy import TARGETS, evaluate, format_report, per_lang
    from remnant.privacy.corpus import generate_corpus
    from remnant.privacy.detector import Detector
    from remnant.privacy.entities import ALL_ENTITIES
    from remnant.privacy.policy import PrivacyPolicy

    # every type the detector knows, names included (the memory default keeps names)
    detector = Detector(PrivacyPolicy(entities=ALL_ENTITIES, use_presidio=False if no_presidio else "auto"))
    if heldout or heldout_file is not None:
        _bench_heldout(detector, heldout_file, misses, as_json)
        return
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


def _bench_heldout(detector: Any, path: Path | None, misses: int, as_json: bool) -> None:
    """Score the detector on a held-out file (read here only; nothing was tuned on it)."""
    from remnant.bench.privacy import HELDOUT_SPELLINGS, evaluate_heldout, format_heldout, load_heldout

    path = path or HELDOUT_SPELLINGS
    if not path.exists():
        raise click.ClickException(f"no held-out file at {path}")
    cases = load_heldout(path)
    report, by_cat = evaluate_heldout(detector, cases)
    if as_json:
        payload = {
            "file": path.name,
            "lines": len(cases),
            "presidio": detector.uses_presidio,
            "recall": {t.value: round(sc.recall, 4) for t, sc in report.by_type.items() if sc.gold},
            "precision": {
                t.value: round(sc.precision, 4) for t, sc in report.by_type.items() if sc.predicted
            },
            "by_category": {
                name: {
                    "gold": c.gold,
                    "recalled": c.recalled,
                    "predicted": c.predicted,
                    "correct": c.correct,
                    "negatives": c.negatives,
                    "negatives_flagged": c.negatives_flagged,
                }
                for name, c in sorted(by_cat.items())
            },
            "clean_lines_flagged": [report.clean_with_detection, report.clean_sentences],
        }
        click.echo(json.dumps(payload, indent=2))
        return
    click.echo(format_heldout(path, cases, report, by_cat, presidio=detector.uses_presidio))
    for etype, value, sentence in report.misses[:misses]:
        click.echo(f"  miss {etype}: {value!r} in {sentence!r}")
    for etype, value, sentence in report.false_positives[:misses]:
        click.echo(f"  false positive {etype}: {value!r} in {sentence!r}")


# -- remnant bench assistant / extraction --------------------------------------------------------------
def _llm_option(f: Any) -> Any:
    # the same --llm as `remnant chat` (kept here: importing remnant.cli at import time is circular)
    return click.option(
        "--llm",
        "llm_spec",
        envvar="REMNANT_LLM",
        default=None,
        help="Model: none; local (the bundled SmolLM2-135M, a demo: it invents facts, so extraction "
        "stays with the rules); local:<file.gguf>; openai:<model>[@<base_url>] (OpenAI, or a local "
        "Ollama / llama.cpp server / vLLM) [env REMNANT_LLM; default none].",
    )(f)


def _build_llm(spec: str | None) -> Any:
    from remnant.cli.assistant import build_llm

    return build_llm(spec)


@click.command("assistant", context_settings=CONTEXT_SETTINGS)
@click.option("--turns", type=click.IntRange(20, 2000), default=200, show_default=True)
@click.option(
    "--budget", type=click.IntRange(200), default=800, show_default=True, help="Prompt token budget."
)
@click.option("--summary-every", type=click.IntRange(1), default=10, show_default=True)
@_llm_option
@click.option(
    "--no-stale-guard", is_flag=True, help="Ablation: keep summary/turn lines that carry replaced values."
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
def bench_assistant(
    turns: int,
    budget: int,
    summary_every: int,
    llm_spec: str | None,
    no_stale_guard: bool,
    json_path: str | None,
) -> None:
    """Scripted customer conversation with changing facts: prompt tokens with Remnant's context vs the
    full history, and how often the context holds the current value of a changed fact and never a stale one."""
    from remnant.bench.assistant import GAP, run_bench

    click.echo(header("remnant bench assistant " + shlex.join(sys.argv[3:])))
    result = run_bench(
        turns,
        llm=_build_llm(llm_spec),
        budget=budget,
        summary_every=summary_every,
        stale_guard=not no_stale_guard,
    )
    t, p = result["tokens"], result["probes"]
    guard = "on" if result["stale_guard"] else "off (ablation)"
    click.echo(f"model: {result['llm']}; stale guard {guard}; {turns} turns in {result['seconds']} s")
    click.echo(f"prompt tokens per turn   Remnant {t['remnant_mean']:>8}   full history {t['full_mean']:>8}")
    click.echo(
        f"prompt tokens in total   Remnant {t['remnant_total']:>8}   full history {t['full_total']:>8}"
    )
    for n, row in t["at_turn"].items():
        click.echo(f"  at turn {n:>4}: Remnant {row['remnant']:>6}   full history {row['full']:>6}")
    click.echo(
        f"changed-fact probes: {p['changed_fact_probes']}; context holds the current value and no stale one: "
        f"Remnant {p['remnant_current_not_stale']:.1%}, full history {p['full_current_not_stale']:.1%}"
    )
    click.echo(
        "  counting an honest 'that has faded, please tell me again' as correct: "
        f"Remnant {p['remnant_current_or_asked_again_never_stale']:.1%}"
    )
    g = p["after_gap"]
    click.echo(
        f"after the {GAP.days}-day gap: {g['probes']} probes, {g['current']} current, {g['asked_again']} asked again, "
        f"{g['stale']} stale"
    )
    for topic, row in p["by_topic"].items():
        click.echo(
            f"  {topic:<8} {row['remnant_ok']}/{row['probes']} (full history {row['full_ok']}/{row['probes']})"
        )
    if json_path:
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)


@click.command("extraction", context_settings=CONTEXT_SETTINGS)
@_llm_option
def bench_extraction(llm_spec: str | None) -> None:
    """Precision/recall of the rule and LLM fact extractors on the built-in labelled turns (EN + ZH)."""
    from remnant.extract.evaluate import evaluate

    click.echo(header("remnant bench extraction " + shlex.join(sys.argv[3:])))
    for name, row in evaluate(_build_llm(llm_spec)).items():
        if name == "llm_fallbacks":
            click.echo(
                f"model output unusable (rules answered instead): {row['count']} of {row['turns']} turns"
            )
            continue
        click.echo(
            f"{name:<22} precision {row['precision']:.3f}  recall {row['recall']:.3f}  f1 {row['f1']:.3f}  "
            f"({row['true_positives']} of {row['predicted']} predicted, {row['gold']} gold)"
        )


# -- remnant bench serve ------------------------------------------------------------------------------
@click.command("serve", context_settings=CONTEXT_SETTINGS)
@click.option("--clients", default=50, show_default=True, type=click.IntRange(1, 1000))
@click.option("--duration", default=60.0, show_default=True, type=click.FloatRange(1.0), help="Seconds.")
@click.option("--write-ratio", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0))
@click.option(
    "--db",
    "db_opt",
    metavar="PATH|URL",
    help="Database file or postgresql:// URL [default: a temporary SQLite file].",
)
@click.option(
    "--processes",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes on one database, each on its own port; clients are spread over them.",
)
@click.option(
    "--large-writes",
    is_flag=True,
    help="Instead: other tenants' read latency with and without one client writing 100 kB memories "
    "in a loop (--clients readers, --duration seconds per phase).",
)
@click.option("--json", "as_json", is_flag=True)
def bench_serve(
    clients: int,
    duration: float,
    write_ratio: float,
    db_opt: str | None,
    processes: int,
    large_writes: bool,
    as_json: bool,
) -> None:
    """Load the real server on loopback: concurrent clients mixing writes and recalls.

    Starts `remnant serve` in a subprocess (or --processes of them, all on one database) on free
    ports with an API key, runs the clients for the duration, then counts the stored memories to
    check that no write was lost.
    """
    from remnant.bench.serve import run_bench, run_large_writes_bench

    if large_writes:
        mixed = run_large_writes_bench(readers=clients, duration=duration)
        click.echo(json.dumps(mixed, indent=2) if as_json else mixed["text"])
        if mixed["server_errors_5xx"] or mixed["lost_writes"]:
            sys.exit(1)
        return
    result = run_bench(
        clients=clients, duration=duration, write_ratio=write_ratio, db=db_opt, processes=processes
    )
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(result["text"])
    if result["errors"] or result["lost_writes"]:
        sys.exit(1)
