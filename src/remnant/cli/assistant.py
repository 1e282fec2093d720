"""``remnant chat`` and ``remnant kb`` (an assistant with memory, and its knowledge base)."""

from __future__ import annotations

import json
from typing import Any

import click

from remnant.cli.core import Ctx, errors, user_option


def _llm_option(f: Any) -> Any:
    return click.option(
        "--llm",
        "llm_spec",
        envvar="REMNANT_LLM",
        default=None,
        help="Model: none; local (the bundled SmolLM2-135M, a demo: it invents facts, so extraction "
        "stays with the rules); local:<file.gguf>; openai:<model>[@<base_url>] (OpenAI, or a local "
        "Ollama / llama.cpp server / vLLM) [env REMNANT_LLM; default none].",
    )(f)


def build_llm(spec: str | None) -> Any:
    """The model an --llm value names (also used by the assistant benchmark)."""
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
    from remnant.llm import is_demo

    with errors():
        assistant = Assistant(
            obj.memory(create=True), build_llm(llm_spec), token_budget=budget, summary_every=summary_every
        )
        click.echo(
            f"Chatting as {user_id} (model: {getattr(assistant.llm, 'name', 'none, offline answers')}). /quit to leave."
        )
        if is_demo(assistant.llm):
            click.echo(
                "note: the bundled SmolLM2-135M is a demo; its answers may be invented and facts are "
                "extracted by the rules. Use --llm openai:<model>@<url> for a real model.",
                err=True,
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
        added, unchanged = KnowledgeBase(obj.memory(create=True)).add_many(docs)
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
        for hit in KnowledgeBase(obj.memory()).search(query, limit=limit):
            click.echo(f"{hit.doc_id}@{hit.version}  {hit.content}")
