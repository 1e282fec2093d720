"""``remnant chat``, ``remnant kb`` and ``remnant bench assistant`` / ``remnant bench extraction``."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any

import click

from remnant.cli.core import Ctx, errors, user_option


def _llm_option(f: Any) -> Any:
    return click.option(
        "--llm",
        "llm_spec",
        envvar="REMNANT_LLM",
        default=None,
        help="Model: none, local (SmolLM2 in-process), openai:<model>[@<base_url>] [env REMNANT_LLM; default none].",
    )(f)


def _build_llm(spec: str | None) -> Any:
    from remnant.llm.factory import llm_from_config

    try:
        return llm_from_config(spec or "none")
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--llm") from exc


@click.command()
@user_option
@_llm_option
@click.option(
    "--budget", type=click.IntRange(200), default=1000, show_default=True, help="Prompt token budget."
)
@click.option(
    "--summary-every", type=click.IntRange(1), default=10, show_default=True, help="Summarise every N turns."
)
@click.option("--show-context", is_flag=True, help="Print the prompt sent for each message.")
@click.pass_obj
def chat(
    obj: Ctx, user_id: str, llm_spec: str | None, budget: int, summary_every: int, show_context: bool
) -> None:
    """Chat with the memory-aware assistant as USER (type /quit to leave, /memories to inspect).

    Facts you state are remembered (newer values supersede older ones), valid product knowledge
    from `remnant kb import` is used, and faded memories are admitted rather than guessed.
    """
    from remnant.assistant import Assistant

    with errors():
        assistant = Assistant(
            obj.memory(), _build_llm(llm_spec), token_budget=budget, summary_every=summary_every
        )
        click.echo(
            f"Chatting as {user_id} (model: {getattr(assistant.llm, 'name', 'none, offline answers')}). /quit to leave."
        )
        while True:
            try:
                line = click.prompt("you", prompt_suffix="> ", default="", show_default=False)
            except (EOFError, click.Abort):
                break
            line = line.strip()
            if not line:
                continue
            if line in ("/quit", "/exit"):
                break
            if line == "/memories":
                for record, strength in obj.memory().active(
                    user_id, kinds=["open_issue", "preference", "fact"]
                ):
                    click.echo(
                        f"  {record.kind.value:<10} {record.key or '-':<24} {strength:.2f}  {record.content}"
                    )
                continue
            reply = assistant.reply(user_id, line)
            if show_context:
                click.echo(
                    click.style(json.dumps(reply.context.messages, ensure_ascii=False, indent=1), dim=True)
                )
            click.echo(f"assistant> {reply.text}")
            note = f"[{reply.prompt_tokens} prompt tokens; {len(reply.written)} memories written"
            if reply.error:
                note += f"; model problem: {reply.error[:80]}"
            click.echo(click.style(note + "]", dim=True))


@click.group()
def kb() -> None:
    """The product knowledge base: documents with versions and validity windows."""


@kb.command(name="import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.pass_obj
def kb_import(obj: Ctx, file: str) -> None:
    """Import documents from FILE (.jsonl, or Markdown with --- front matter).

    Fields: id (required), content (required), title, product, version, valid_from, valid_to
    (ISO dates; naive ones are UTC). Re-importing an unchanged version does nothing.
    """
    from remnant.assistant import KnowledgeBase, load_documents

    with errors():
        docs = load_documents(file)
        added, unchanged = KnowledgeBase(obj.memory()).add_many(docs)
        click.echo(f"imported {added} document version(s), {unchanged} unchanged, from {file}")


@kb.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_obj
def kb_list(obj: Ctx, as_json: bool) -> None:
    """List every stored document version with its validity window."""
    from remnant.assistant import KnowledgeBase

    with errors():
        docs = KnowledgeBase(obj.memory()).documents()
        if as_json:
            click.echo(json.dumps([d.to_dict() for d in docs], ensure_ascii=False, indent=2))
            return
        for d in docs:
            window = (
                f"{d.valid_from.date() if d.valid_from else '…'} → {d.valid_to.date() if d.valid_to else '…'}"
            )
            click.echo(f"{d.key:<32} {window:<26} {d.content[:60]}")


@kb.command(name="search")
@click.argument("query")
@click.option("-n", "--limit", type=click.IntRange(1, 50), default=3, show_default=True)
@click.pass_obj
def kb_search(obj: Ctx, query: str, limit: int) -> None:
    """Search the documents valid now."""
    from remnant.assistant import KnowledgeBase

    with errors():
        for hit in KnowledgeBase(obj.memory()).search(query, k=limit):
            click.echo(f"{hit.doc_id}@{hit.version}  {hit.content}")


@click.command(name="assistant")
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
    from remnant.assistant.bench import GAP, run_bench
    from remnant.bench import header

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


@click.command(name="extraction")
@_llm_option
def bench_extraction(llm_spec: str | None) -> None:
    """Precision/recall of the rule and LLM fact extractors on the built-in labelled turns (EN + ZH)."""
    from remnant.bench import header
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
