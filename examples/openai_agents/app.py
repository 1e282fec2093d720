"""An OpenAI Agents SDK agent with Remnant memory, offline.

The agent loop is the SDK's own (``Runner.run``); the model is a small scripted one that reads the
user's last message and decides, by rules, to call Remnant's tools, so no LLM and no network are
needed. Swap ``RuleModel()`` for a real model name to use an LLM.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from remnant.config import build_memory
from remnant.integrations.openai_agents import RemnantSession, remnant_tools

USER = "ana"


class RuleModel(Model):
    """A stand-in for an LLM: one rule per kind of message, tool calls included."""

    def __init__(self) -> None:
        self.calls = 0

    def _id(self, prefix: str) -> str:
        self.calls += 1
        return f"{prefix}_{self.calls}"

    def _say(self, text: str) -> ResponseOutputMessage:
        part = ResponseOutputText(type="output_text", text=text, annotations=[])
        return ResponseOutputMessage(id=self._id("msg"), type="message", role="assistant", status="completed", content=[part])  # fmt: skip

    def _call(self, name: str, **arguments: Any) -> ResponseFunctionToolCall:
        n = self._id("call")
        return ResponseFunctionToolCall(id="fc" + n, call_id=n, type="function_call", name=name, arguments=json.dumps(arguments), status="completed")  # fmt: skip

    def _decide(self, items: list[Any]) -> Any:
        last = items[-1]
        if last.get("type") == "function_call_output":  # a tool answered: say what it found
            out = json.loads(last["output"])
            if "stored" in out:
                return self._say(f"Noted: {out['stored']['content']}")
            if "memories" in out:
                found = out["memories"]
                return self._say(f"I remember: {found[0]['content']}" if found else "I don't know that.")
            return self._say(f"Done: {out.get('message', out)}")
        text = str(last.get("content", ""))
        if m := re.search(r"\b(?:live in|moved to) ([A-Z]\w+)", text):
            return self._call("remember", content=f"The user lives in {m[1]}", key="city")
        if m := re.search(r"phone number is ([\d-]+)", text):
            return self._call("remember", content=f"The user's phone number is {m[1]}", key="phone_number")
        if text.lower().startswith("forget"):
            return self._call("forget", request=text)
        if m := re.search(r"(?:where do i live|what is my (.+?))\?", text.lower()):
            return self._call("recall", query=m[1] or "where the user lives city")
        return self._say("Hello!")

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **_: Any) -> ModelResponse:  # type: ignore[no-untyped-def]  # fmt: skip
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        return ModelResponse(output=[self._decide(items)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def main(db: Path) -> None:
    memory = build_memory(str(db))
    agent = Agent(
        name="assistant",
        instructions="Remember what the user tells you about themselves; recall it when asked.",
        model=RuleModel(),
        tools=remnant_tools(memory, user_id=USER),
    )
    session = RemnantSession("chat-1", memory=memory, user_id=USER)
    config = RunConfig(tracing_disabled=True)
    turns = [
        "Hi! I live in Berlin.",
        "My phone number is 555-0100.",
        "I moved to Paris last week.",
        "Where do I live?",
        "Forget my phone number.",
        "What is my phone number?",
    ]
    for text in turns:
        result = await Runner.run(agent, text, session=session, run_config=config)
        print(f"user: {text}\nagent: {result.final_output}")
    print("\ncity history:")
    for m in memory.history("city", user_id=USER):
        print(f"  {m.status.value}: {m.content}")
    items = await session.get_items()
    print(f"\nsession items: {len(items)}")
    print(f"phone in history: {any('555-0100' in json.dumps(i) for i in items)}")
    memory.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="the memory database (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(args.db or Path(tmp) / "memory.db"))
