"""``remnant eval``: run the forgetting evaluation suites and write a JSON + HTML report.

Heavy imports (the suites, matplotlib) happen inside the command so ``remnant --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

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
)


@click.command("eval")
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
    help="Memory system to evaluate (repeat): remnant, remnant-private, baseline, vector-baseline, "
    "never-forgets, forgets-everything, raises, hangs, malformed.",
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
    default="none",
    show_default=True,
    help="Embedder for Remnant's recall (REMNANT_EMBEDDER): 'none' is lexical recall. These suites measure "
    "forgetting; recall quality is `remnant bench locomo`. e5-small embeds every simulated write (much slower).",
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
    import os

    os.environ["REMNANT_EMBEDDER"] = embedder  # read by build_memory in the Remnant adapters

    def progress(r: Any) -> None:
        line = f"{r.suite:<16} {r.adapter:<18} {verdict(r):<9} score {_fmt(r.score):>7}  ({r.seconds:.1f} s)"
        if r.failures:
            line += f"  {len(r.failures)} failed case(s): {r.failures[0].error}"
        click.echo(line)

    seen: set[str] = set()
    try:
        run = run_eval(
            list(suites), list(adapters), seed=seed, quick=quick, timeout_s=timeout_s, progress=progress
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
