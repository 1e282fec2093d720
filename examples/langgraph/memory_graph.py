"""A LangGraph graph with long-term memory in Remnant: no LLM, no network.

One node answers each user message. It writes what the user states about themselves into the
store the graph was compiled with (``RemnantStore``), deletes what they ask to forget, and answers
questions from what the store still remembers. Over a few simulated days Ana moves from Lisbon to
Porto (the new city supersedes the old one, which Remnant keeps as history) and asks the assistant
to forget her phone number (it stays gone).

    .venv/bin/python examples/langgraph/memory_graph.py     (after scripts/bootstrap)
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from remnant import ManualClock
from remnant.config import build_memory
from remnant.extract import RuleExtractor
from remnant.integrations.langgraph import RemnantStore

EXTRACTOR = RuleExtractor()


class Turn(TypedDict, total=False):
    user: str
    message: str
    reply: str


def assistant(state: Turn, runtime: Runtime[Any]) -> Turn:
    store = runtime.store
    assert store is not None
    namespace = ("memories", state["user"])
    text = state["message"]
    if text.lower().startswith("please forget my "):
        topic = text.lower().removeprefix("please forget my ").rstrip(".!").replace(" ", "_")
        store.delete(namespace, topic)
        return {"reply": f"Forgotten: your {topic.replace('_', ' ')}."}
    facts = EXTRACTOR.extract(text)
    for fact in facts:  # "I moved to Porto" → key "city": a put with the same key supersedes
        store.put(namespace, fact.key, {"text": fact.content, "value": fact.value, "kind": fact.kind})
    if facts:
        return {"reply": "Noted: " + "; ".join(f.content for f in facts) + "."}
    found = store.search(namespace, query=text, limit=2)
    if not found:
        return {"reply": "I don't know that."}
    return {"reply": "From memory: " + "; ".join(item.value["text"] for item in found) + "."}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", help="SQLite file to keep memories in (default: a temporary one)")
    args = parser.parse_args()
    db = args.db or str(Path(tempfile.mkdtemp(prefix="remnant-lg-")) / "memory.db")

    clock = ManualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    memory = build_memory(db, clock=clock)  # the product as the CLI builds it (privacy layer, hybrid recall)
    with RemnantStore(memory, owns_memory=True) as store:
        graph = StateGraph(Turn)
        graph.add_node("assistant", assistant)
        graph.add_edge(START, "assistant")
        graph.add_edge("assistant", END)
        app = graph.compile(store=store)

        conversation = [
            "Hi, my name is Ana and I live in Lisbon.",
            "My favourite color is green.",
            "My phone number is +351 912 345 678.",
            "Which city do I live in?",
            "I moved to Porto last week.",
            "Please forget my phone number.",
            "Which city do I live in?",
            "What is my phone number?",
        ]
        for day, message in enumerate(conversation):
            reply = app.invoke({"user": "ana", "message": message})["reply"]
            print(f"day {day + 1}  ana: {message}\n        bot: {reply}")
            clock.advance(days=1)

        print("\nstore.get city:", store.get(("memories", "ana"), "city").value["value"])  # type: ignore[union-attr]
        print("store.get phone_number:", store.get(("memories", "ana"), "phone_number"))
        print(
            "city history:", " -> ".join(i.value["value"] for i in store.history(("memories", "ana"), "city"))
        )
        print("namespaces:", store.list_namespaces())
        print("audit:", ", ".join(sorted({e.action for e in memory.audit_log(user_id="ana")})))


if __name__ == "__main__":
    main()
