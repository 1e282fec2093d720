"""The OpenAI Agents SDK integration, through the SDK's own runner: ``Runner.run`` drives a real
agent loop against a scripted model (a ``Model`` that answers from a script, no network), with a
``RemnantSession`` as its session and Remnant's tools as its tools."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Model, ModelResponse, RunConfig, Runner, SQLiteSession, Usage
from agents.memory.session import Session
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from remnant import ManualClock, Status
from remnant.engine import Memory
from remnant.engine.options import Draft, Message, Observation
from remnant.extract import RuleExtractor
from remnant.integrations.openai_agents import RemnantSession, remnant_tools

# -- a scripted model: each call answers with the next step of the script ---------------------------
Step = Callable[[list[Any]], list[Any]] | list[Any]
_ids = itertools.count(1)


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_" + hashlib.sha1(text.encode()).hexdigest()[:12],
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def call(name: str, **arguments: Any) -> ResponseFunctionToolCall:
    n = next(_ids)
    return ResponseFunctionToolCall(
        id=f"fc_{n}",
        call_id=f"call_{n}",
        type="function_call",
        name=name,
        arguments=json.dumps(arguments),
        status="completed",
    )


class ScriptedModel(Model):
    """Answers each model call with the next step; a step is the output items, or a function of
    the input items that returns them. Records every input it was given."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.inputs: list[list[Any]] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **_: Any) -> ModelResponse:  # type: ignore[no-untyped-def]  # fmt: skip
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        self.inputs.append(items)
        if not self.steps:
            raise AssertionError("the model was called more often than the script says")
        step = self.steps.pop(0)
        output = step(items) if callable(step) else step
        return ModelResponse(output=list(output), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model does not stream")


def last_tool_output(items: list[Any]) -> dict[str, Any]:
    outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return json.loads(outputs[-1]["output"])


class RulesIngestor:
    """An ingestor for the tests: the rule extractor's facts as keyed drafts."""

    def __init__(self) -> None:
        self.rules = RuleExtractor()

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        facts = [
            Draft(f.content, {"kind": f.kind, "key": f.key, "importance": f.importance, "source": "rules"})
            for f in (self.rules.extract(message.content) if message.role == "user" else [])
        ]
        return Observation(importance=0.6 if facts else 0.2, facts=facts)


@pytest.fixture
def memory(tmp_path: Path, clock: ManualClock) -> Any:
    with Memory(tmp_path / "agents.db", clock=clock, ingestor=RulesIngestor()) as m:
        yield m


def run(agent: Agent[Any], text: str, session: Session) -> str:
    result = asyncio.run(
        Runner.run(agent, text, session=session, run_config=RunConfig(tracing_disabled=True))
    )
    return str(result.final_output)


def texts(items: list[Any]) -> list[str]:
    out = []
    for i in items:
        content = i.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(p["text"] for p in content if "text" in p)
    return out


def test_the_session_is_a_session_and_gives_back_what_the_sdk_stored(memory: Memory, tmp_path: Path) -> None:
    """Same script, same runner: RemnantSession hands back exactly what the SDK's own SQLiteSession
    does, in order, and the model sees the history on the next turn."""
    session = RemnantSession("chat-1", memory=memory, user_id="ana")
    assert isinstance(session, Session)
    reference = SQLiteSession("chat-1", str(tmp_path / "sdk.db"))
    for s in (session, reference):
        model = ScriptedModel([[say("Hello Ana.")], [say("You said hi before.")]])
        agent = Agent(name="assistant", instructions="Be brief.", model=model)
        assert run(agent, "Hi, I am Ana", s) == "Hello Ana."
        assert run(agent, "What did I say?", s) == "You said hi before."
        assert texts(model.inputs[1]) == ["Hi, I am Ana", "Hello Ana.", "What did I say?"]
    mine, theirs = asyncio.run(session.get_items()), asyncio.run(reference.get_items())
    assert mine == theirs and len(mine) == 4
    assert asyncio.run(session.get_items(limit=2)) == theirs[-2:]
    # each turn is an episode of the user's memory, in the session's scope
    episodes = memory.list_memories("ana", kinds=["episode"], newest_first=False)
    assert [e.content for e in episodes] == texts(mine)
    assert {e.session_id for e in episodes} == {"chat-1"}


def test_pop_and_clear(memory: Memory) -> None:
    session = RemnantSession("chat-2", memory=memory, user_id="ana")
    items = [
        {"role": "user", "content": "I live in Berlin"},
        {"role": "assistant", "content": "Noted."},
        {"type": "function_call", "call_id": "c1", "name": "recall", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "{}"},
    ]
    asyncio.run(session.add_items(items))
    assert asyncio.run(session.get_items()) == items
    assert asyncio.run(session.pop_item()) == items[-1]
    # the call whose output is gone is the trailing item, waiting: it stays
    assert asyncio.run(session.get_items()) == items[:3]
    asyncio.run(session.add_items([{"role": "user", "content": "thanks"}]))
    # now a call without its output sits in the middle: the model's API would refuse it
    assert asyncio.run(session.get_items()) == [*items[:2], {"role": "user", "content": "thanks"}]
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    assert asyncio.run(session.pop_item()) is None
    # the fact drawn from the first message is long-term memory: clearing the history keeps it
    current = memory.current("city", user_id="ana")
    assert current is not None and current.content == "User lives in Berlin"


def test_a_moved_user_and_a_forgotten_phone_through_the_agent_loop(
    memory: Memory, clock: ManualClock
) -> None:
    """Four turns through Runner.run: facts come from the session's ingest path, a new city
    supersedes the old one, the agent recalls with its tool, forgets with its tool, and what it
    forgot stays gone: from recall, from the session's history and from a new session."""
    seen: dict[str, Any] = {}

    def answer_city(items: list[Any]) -> list[Any]:
        seen["recall"] = last_tool_output(items)
        return [say(seen["recall"]["memories"][0]["content"])]

    def confirm_forget(items: list[Any]) -> list[Any]:
        seen["forget"] = last_tool_output(items)
        return [say(seen["forget"]["message"])]

    def answer_phone(items: list[Any]) -> list[Any]:
        seen["phone"] = last_tool_output(items)
        numbers = [m for m in seen["phone"]["memories"] if "555-0100" in m["content"]]
        return [say(f"{len(numbers)} memories with the number")]

    model = ScriptedModel(
        [
            [say("Noted: Berlin, and your number.")],
            [say("Paris it is.")],
            [call("recall", query="where does the user live city")],
            answer_city,
            [call("forget", request="forget my phone number")],
            confirm_forget,
            [call("recall", query="phone number")],
            answer_phone,
        ]
    )
    agent = Agent(name="assistant", model=model, tools=remnant_tools(memory, user_id="ana"))
    session = RemnantSession("chat-3", memory=memory, user_id="ana")

    run(agent, "I live in Berlin. My phone number is 555-0100", session)
    clock.advance(days=3)
    assert run(agent, "I moved to Paris", session) == "Paris it is."
    history = memory.history("city", user_id="ana")
    assert [(m.content, m.status) for m in history] == [
        ("User lives in Berlin", Status.SUPERSEDED),
        ("User lives in Paris", Status.ACTIVE),
    ]

    assert run(agent, "Where do I live now?", session) == "User lives in Paris"
    recalled = [m["content"] for m in seen["recall"]["memories"]]
    assert "User lives in Paris" in recalled and "User lives in Berlin" not in recalled

    run(agent, "Please forget my phone number", session)
    assert seen["forget"]["forgotten"], seen["forget"]
    assert memory.current("phone_number", user_id="ana") is None

    assert run(agent, "What is my phone number?", session) == "0 memories with the number", seen["phone"]
    # gone from the history the model is given, and from what a fresh session can recall
    assert not any("555-0100" in t for t in texts(model.inputs[-1]))
    fresh = RemnantSession("chat-4", memory=memory, user_id="ana")
    assert asyncio.run(fresh.get_items()) == []
    assert all("555" not in h.memory.content for h in memory.recall("phone 555-0100", user_id="ana").hits)


def test_tools_are_bound_to_their_user(memory: Memory) -> None:
    bob = memory.remember("Bob's secret", user_id="bob")
    model = ScriptedModel(
        [
            [call("remember", content="The user likes tea", key="drink", kind="preference")],
            [call("forget", request=bob.id)],
            [call("recall", query="secret tea")],
            lambda items: [say(json.dumps(last_tool_output(items)))],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=remnant_tools(memory, user_id="ana"))
    out = json.loads(run(agent, "go", RemnantSession("chat-5", memory=memory, user_id="ana")))
    assert [m["content"] for m in out["memories"]] == ["The user likes tea"]
    assert memory.get(bob.id).status == Status.ACTIVE  # ana's agent could not forget bob's memory
    tool_texts = texts(model.inputs[2])
    assert tool_texts  # the conversation went on
    outputs = [i["output"] for i in model.inputs[2] if i.get("type") == "function_call_output"]
    assert outputs[-1].startswith("error: no memory")


def test_erasing_the_user_erases_the_history(memory: Memory) -> None:
    session = RemnantSession("chat-6", memory=memory, user_id="ana")
    asyncio.run(session.add_items([{"role": "user", "content": "I live in Berlin"}]))
    memory.erase_user("ana")
    assert asyncio.run(session.get_items()) == []
