"""A LlamaIndex chat memory with Remnant as its long-term memory block: no LLM, no network.

LlamaIndex's ``Memory`` keeps the latest turns itself and flushes older ones to its memory blocks.
``RemnantMemoryBlock`` stores them in Remnant (each message an episode, plus keyed facts), honours
"please forget ..." requests, and on every ``get`` recalls what is still remembered for the latest
user message. Over a few simulated days Ana moves from Lisbon to Porto and asks to forget her
phone number; a new session a week later sees Porto, not Lisbon, and no phone number.

    .venv/bin/python examples/llamaindex/chat_memory.py     (after scripts/bootstrap)
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory as ChatMemory

from remnant import ManualClock
from remnant.config import build_memory
from remnant.integrations.llamaindex import RemnantMemoryBlock


def chat_memory(block: RemnantMemoryBlock, session: str) -> ChatMemory:
    # a small short-term buffer, so the conversation below reaches the block (LlamaIndex's default
    # flushes only past ~21k tokens)
    return ChatMemory.from_defaults(
        session_id=session,
        token_limit=120,
        chat_history_token_ratio=0.5,
        token_flush_size=30,
        memory_blocks=[block],
    )


def recalled(chat: ChatMemory, question: str) -> str:
    messages = chat.get(question)
    system = next((m.content or "" for m in messages if m.role == "system"), "")
    lines = [line.strip() for line in system.splitlines() if line.strip().startswith("- ")]
    return "\n".join(f"    {line}" for line in lines) or "    (nothing recalled)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", help="SQLite file to keep memories in (default: a temporary one)")
    args = parser.parse_args()
    db = args.db or str(Path(tempfile.mkdtemp(prefix="remnant-li-")) / "memory.db")

    clock = ManualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    memory = build_memory(db, clock=clock)  # the product as the CLI builds it (privacy layer, hybrid recall)
    with memory:
        block = RemnantMemoryBlock(memory=memory, user_id="ana", kinds=["fact", "preference"])
        chat = chat_memory(block, "monday")
        turns = [
            ("Hi, my name is Ana and I live in Lisbon.", "Nice to meet you, Ana."),
            ("My phone number is +351 912 345 678 for the courier.", "Noted, thank you."),
            ("My favourite color is green.", "Green it is."),
            ("Big news: I moved to Porto last week.", "Congratulations on the move!"),
            ("Please forget my phone number.", "Done: I no longer have it."),
            ("Can you recommend a bakery?", "Try the one near the river."),
            ("Thanks, talk soon.", "Bye, Ana!"),
        ]
        for user, assistant in turns:
            chat.put(ChatMessage(role="user", content=user))
            chat.put(ChatMessage(role="assistant", content=assistant))
            print(f"ana: {user}\nbot: {assistant}")
            clock.advance(days=1)

        clock.advance(days=7)
        later = chat_memory(block, "next-week")
        for question in (
            "Which city do I live in?",
            "What is my phone number?",
            "What is my favourite color?",
        ):
            print(f"\nnew session, ana asks: {question}\n  recalled into the system prompt:")
            print(recalled(later, question))
        history = [r.content for r in memory.history("city", user_id="ana")]
        print("\ncity history:", " -> ".join(history))
        print("audit:", ", ".join(sorted({e.action for e in memory.audit_log(user_id="ana")})))


if __name__ == "__main__":
    main()
