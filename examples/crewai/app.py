"""CrewAI's memory on Remnant, offline.

CrewAI's unified ``Memory`` with ``RemnantStorage`` as its storage backend. The embedder is a small
bag-of-words one and every ``remember`` names its scope, categories and importance, so CrewAI
needs no LLM and no network. Pass a real embedder (and drop the explicit fields to let CrewAI's LLM
infer them) in an application.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import tempfile
from pathlib import Path

# offline: no telemetry, and CrewAI's trace collector off (it waits seconds for spans per save)
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TESTING", "true")

from crewai import Memory as CrewMemory

from remnant.engine import Engine as Memory  # the bare engine: the crewai environment has no privacy extra
from remnant.integrations.crewai import RemnantStorage


def embed(texts: list[str]) -> list[list[float]]:
    """Each word hashed to one of 64 dimensions, unit length: enough for a demo."""
    out = []
    for text in texts:
        vec = [0.0] * 64
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % 64] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        out.append([v / norm for v in vec])
    return out


def main(db: Path) -> None:
    # the minimal engine: `pip install remnant[crewai]` brings no privacy or retrieval layers
    memory = Memory(db)
    crew_memory = CrewMemory(storage=RemnantStorage(memory, user_id="support-crew"), embedder=embed)
    ana = "/customers/ana"

    def ask(question: str) -> str:
        found = crew_memory.recall(question, scope=ana, depth="shallow", limit=3)
        return found[0].record.content if found else "nothing"

    crew_memory.remember("Ana lives in Berlin", scope=ana, categories=["profile"], importance=0.7, metadata={"key": "city"})  # fmt: skip
    crew_memory.remember("Ana's phone number is 555-0100", scope=ana, categories=["contact"], importance=0.6)
    crew_memory.remember("Bo prefers email", scope="/customers/bo", categories=["profile"], importance=0.5)
    crew_memory.remember("Ana lives in Paris now", scope=ana, categories=["profile"], importance=0.7, metadata={"key": "city"})  # fmt: skip

    print(f"where does Ana live? -> {ask('where does Ana live')}")
    print("city history:")
    for m in memory.history("city", user_id="support-crew"):
        print(f"  {m.status.value}: {m.content}")
    print(f"scopes under /customers: {crew_memory.list_scopes('/customers')}")

    n = crew_memory.forget(scope=ana, categories=["contact"])
    print(f"forgot {n} contact record")
    found = crew_memory.recall("Ana phone number", scope=ana, depth="shallow", limit=5)
    numbers = [m.record.content for m in found if "555-0100" in m.record.content]
    print(f"Ana's phone? -> {numbers[0] if numbers else 'nothing'}")
    print(f"audited purges: {len(memory.audit_log(user_id='support-crew', action='purge'))}")
    crew_memory.close()
    memory.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="the memory database (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        main(args.db or Path(tmp) / "memory.db")
