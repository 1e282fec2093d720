"""RemnantMemoryBlock inside LlamaIndex's real ``Memory`` (llama-index-core installed; no mocks, offline)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("llama_index.core.memory")

from llama_index.core.llms import ChatMessage
from llama_index.core.memory import BaseMemoryBlock
from llama_index.core.memory import Memory as ChatMemory

from remnant import ManualClock
from remnant.core.model import Kind, Status
from remnant.engine import Memory
from remnant.engine.options import Draft, Message, Observation
from remnant.integrations.llamaindex import RemnantMemoryBlock, is_forget_request


def words(text: str) -> list[str]:
    return text.split()


def chat_memory(block: RemnantMemoryBlock, session: str = "s1", token_limit: int = 40) -> ChatMemory:
    """A LlamaIndex Memory whose short-term buffer is small, so older turns flush to the block."""
    return ChatMemory.from_defaults(
        session_id=session,
        token_limit=token_limit,
        chat_history_token_ratio=0.5,
        token_flush_size=10,
        tokenizer_fn=words,
        memory_blocks=[block],
    )


def memory_text(messages: list[ChatMessage]) -> str:
    """The text LlamaIndex injected from the memory blocks (the system message's <memory> part)."""
    system = [m for m in messages if m.role == "system"]
    return system[0].content or "" if system else ""


def converse(chat: ChatMemory, clock: ManualClock, turns: list[tuple[str, str]]) -> None:
    for user, assistant in turns:
        chat.put(ChatMessage(role="user", content=user))
        chat.put(ChatMessage(role="assistant", content=assistant))
        clock.advance(days=1)


def test_is_a_memory_block(mem: Memory) -> None:
    block = RemnantMemoryBlock(memory=mem, user_id="ana")
    assert isinstance(block, BaseMemoryBlock)
    assert block.priority == 1 and block.accept_short_term_memory
    assert "memory" not in block.model_dump()  # the engine is not serialised with the block


def test_multi_turn_update_supersedes_and_forgotten_stays_gone(mem: Memory, clock: ManualClock) -> None:
    block = RemnantMemoryBlock(memory=mem, user_id="ana", tokenizer_fn=words)
    chat = chat_memory(block)
    converse(
        chat,
        clock,
        [
            ("Hi, my name is Ana and I live in Lisbon.", "Nice to meet you, Ana."),
            ("My phone number is 555 0101 if the courier needs it.", "Noted."),
            ("My favourite color is green.", "Lovely."),
            ("Big news: I moved to Porto last week.", "Congratulations on the move!"),
            ("Please forget my phone number.", "Done, I no longer have it."),
            ("What should I cook tonight?", "Maybe a soup."),
            ("Thanks, see you tomorrow.", "Bye!"),
        ],
    )
    # the older turns went through the block into Remnant
    facts = {r.key: r for r in mem.list_memories("ana", statuses=["active"], kinds=["fact", "preference"])}
    assert facts["city"].content == "User lives in Porto"
    assert "phone_number" not in facts
    history = mem.history("city", user_id="ana")
    assert [(r.content, r.status) for r in history] == [
        ("User lives in Lisbon", Status.SUPERSEDED),
        ("User lives in Porto", Status.ACTIVE),
    ]
    assert all(r.session_id == "s1" for r in history)
    assert not any(r.status == Status.ACTIVE and "555" in r.content for r in mem.list_memories("ana"))
    assert not any("forget" in r.content.lower() for r in mem.list_memories("ana", statuses=None))

    # recall through LlamaIndex's interface, in a new session
    later = chat_memory(block, session="s2", token_limit=2000)
    text = memory_text(later.get("Where do I live these days? Which city?"))
    assert "<remnant_memory>" in text and "User lives in Porto" in text
    assert "User lives in Lisbon" not in text
    text = memory_text(later.get("What is my phone number 555 0101?"))
    assert "555" not in text
    facts_only = RemnantMemoryBlock(
        memory=mem, user_id="ana", kinds=["fact", "preference"], tokenizer_fn=words
    )
    text = asyncio.run(facts_only.aget([ChatMessage(role="user", content="which city do I live in?")]))
    assert text == "- User lives in Porto"

    # more turns and a sweep do not bring it back
    clock.advance(days=30)
    mem.sweep()
    assert "555" not in memory_text(later.get("phone number 555 0101"))


def test_recall_renders_within_the_token_limit(mem: Memory) -> None:
    for n in range(20):
        mem.remember(f"Ana owns a bicycle number {n} with a basket", user_id="ana", key=f"bike{n}")
    question = [ChatMessage(role="user", content="tell me about the bicycle")]
    wide = RemnantMemoryBlock(memory=mem, user_id="ana", limit=20, token_limit=10_000, tokenizer_fn=words)
    narrow = RemnantMemoryBlock(memory=mem, user_id="ana", limit=20, token_limit=25, tokenizer_fn=words)
    all_lines = asyncio.run(wide.aget(question)).splitlines()
    some = asyncio.run(narrow.aget(question))
    assert len(all_lines) == 20
    assert 0 < len(some.splitlines()) < 20 and len(words(some)) <= 25
    assert some.splitlines() == all_lines[: len(some.splitlines())]  # the most relevant are kept
    assert asyncio.run(narrow.aget([])) == ""
    assert asyncio.run(narrow.aget([ChatMessage(role="user", content="zebra xylophone")])) == ""


def test_truncation_drops_the_least_relevant_lines(mem: Memory) -> None:
    block = RemnantMemoryBlock(memory=mem, user_id="ana", tokenizer_fn=words)
    content = "- one two three\n- four five six\n- seven eight nine"
    assert asyncio.run(block.atruncate(content, 3)) == "- one two three\n- four five six"
    assert asyncio.run(block.atruncate(content, 5)) == "- one two three"
    assert asyncio.run(block.atruncate(content, 100)) is None

    for n in range(10):
        mem.remember(f"Ana keeps a notebook about topic {n} of her garden", user_id="ana", key=f"note{n}")
    chat = ChatMemory.from_defaults(session_id="t", token_limit=60, tokenizer_fn=words, memory_blocks=[block])
    chat.put(ChatMessage(role="user", content="notebook garden"))
    text = memory_text(chat.get())
    full = asyncio.run(block.aget([ChatMessage(role="user", content="notebook garden")]))
    assert 0 < text.count("notebook") < full.count("notebook")  # LlamaIndex cut the block to fit
    never = RemnantMemoryBlock(memory=mem, user_id="ana", priority=0, tokenizer_fn=words)
    chat = ChatMemory.from_defaults(session_id="u", token_limit=60, tokenizer_fn=words, memory_blocks=[never])
    chat.put(ChatMessage(role="user", content="notebook garden"))
    assert memory_text(chat.get()).count("notebook") == full.count("notebook")  # priority 0: never cut


def test_session_scope_and_agent(mem: Memory) -> None:
    block = RemnantMemoryBlock(memory=mem, user_id="ana", agent_id="helper", tokenizer_fn=words)
    asyncio.run(block.aput([ChatMessage(role="user", content="I adopted a cat named Miso")], session_id="a"))
    asyncio.run(block.aput([ChatMessage(role="user", content="My cat Miso likes tuna")], session_id="b"))
    assert {(r.session_id, r.agent_id) for r in mem.list_memories("ana")} == {
        ("a", "helper"),
        ("b", "helper"),
    }
    question = [ChatMessage(role="user", content="what about Miso the cat?")]
    assert len(asyncio.run(block.aget(question, session_id="a")).splitlines()) == 2
    scoped = RemnantMemoryBlock(memory=mem, user_id="ana", session_scoped=True, tokenizer_fn=words)
    assert asyncio.run(scoped.aget(question, session_id="a")).count("said:") == 1
    other_agent = RemnantMemoryBlock(memory=mem, user_id="ana", agent_id="other", tokenizer_fn=words)
    assert asyncio.run(other_agent.aget(question)) == ""


def test_ingest_skips_system_and_tool_messages_and_what_goes_into_the_prompt_is_reinforced(
    mem: Memory,
) -> None:
    block = RemnantMemoryBlock(memory=mem, user_id="ana", tokenizer_fn=words)
    results = block.ingest(
        [
            ChatMessage(role="system", content="You are a helpful assistant."),
            ChatMessage(role="user", content="I work as a nurse in the night shift."),
            ChatMessage(role="tool", content="{'result': 42}"),
            ChatMessage(role="assistant", content="That sounds demanding."),
            ChatMessage(role="user", content="   "),
        ]
    )
    assert [e.content for r in results for e in r.episodes] == [
        "I work as a nurse in the night shift.",
        "That sounds demanding.",
    ]
    fact = mem.current("occupation", user_id="ana")
    assert fact is not None and fact.content.startswith("User works as nurse")
    assert fact.metadata["from_episode"] == results[0].episodes[0].id
    # a bare recall that shares one of the query's two content words is below the recall bar
    assert fact.id in {h.memory.id for h in block.recall("nurse occupation")}
    assert mem.get(fact.id).access_count == 0
    # what the block renders into the prompt is reported with Memory.used, each memory once
    shown = block.fit(block.recall("nurse occupation", touch=False))
    text = asyncio.run(block.aget([ChatMessage(role="user", content="nurse occupation")]))
    assert "- User works as nurse in the night shift" in text.splitlines()
    assert len(text.splitlines()) == len(shown) >= 1
    assert [mem.get(h.memory.id).access_count for h in shown] == [1] * len(shown)
    assert mem.get(fact.id).access_count == 1


class KeyedIngestor:
    """An ingestor that extracts facts itself (as a real one installed on the Memory does)."""

    def observe(self, message: Message, *, recent: Any = ()) -> Observation:
        facts = ()
        if message.role == "user" and message.content.startswith("I live in "):
            city = message.content.removeprefix("I live in ").rstrip(".")
            facts = (Draft(f"User lives in {city}", {"kind": Kind.FACT, "key": "home"}),)
        return Observation(importance=0.6, facts=facts)


def test_a_memory_with_its_own_ingestor_is_not_extracted_twice(db_path: Any, clock: ManualClock) -> None:
    with Memory(db_path, clock=clock, ingestor=KeyedIngestor()) as mem:
        block = RemnantMemoryBlock(memory=mem, user_id="ana", tokenizer_fn=words)
        block.ingest([ChatMessage(role="user", content="I live in Faro.")])
        assert sorted(r.key or "-" for r in mem.list_memories("ana")) == ["-", "home"]  # no rule "city"
        forced = RemnantMemoryBlock(memory=mem, user_id="bo", extract_facts=True, tokenizer_fn=words)
        forced.ingest([ChatMessage(role="user", content="I live in Faro.")])
        assert sorted(r.key or "-" for r in mem.list_memories("bo")) == ["-", "city", "home"]


def test_forget_requests(mem: Memory) -> None:
    for text in (
        "Please forget my phone number",
        "can you delete what I said about my job?",
        "请忘记我的电话",
    ):
        assert is_forget_request(text), text
    for text in ("I forgot my keys", "Don't forget to call me", "remove the onions from the recipe"):
        assert not is_forget_request(text), text
    block = RemnantMemoryBlock(memory=mem, user_id="ana", honour_forget_requests=False, tokenizer_fn=words)
    block.ingest([ChatMessage(role="user", content=f"I went hiking on day {n}") for n in range(8)])
    block.ingest([ChatMessage(role="user", content="My phone number is 555 0101")])
    block.ingest([ChatMessage(role="user", content="Please forget my phone number")])
    assert mem.current("phone_number", user_id="ana") is not None  # switched off: stored as said
    forgotten = block.forget("forget my phone number")
    assert len(forgotten) == 3
    assert mem.current("phone_number", user_id="ana") is None
    # personal data is purged (not hidden), audited with the ids it took
    purges = [e for e in mem.audit_log(user_id="ana") if e.action == "purge"]
    assert len(purges) == 1 and sorted(purges[0].memory_ids) == sorted(forgotten)
    assert not any(e.action == "hide" for e in mem.audit_log(user_id="ana"))
    assert not any("555" in r.content for r in mem.list_memories("ana", statuses=None))
    # a turn that gives the number among other things keeps the rest: it is reported as well
    block.ingest(
        [ChatMessage(role="user", content="My phone number is 555 0199 and I love hiking in the hills")]
    )
    (turn,) = [r for r in mem.list_memories("ana", kinds=["episode"]) if "hills" in r.content]
    forgotten = block.forget("forget my phone number")
    assert turn.id in forgotten
    assert mem.get(turn.id).content == "My phone number is [forgotten] and I love hiking in the hills"
