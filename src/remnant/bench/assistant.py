"""``remnant bench assistant``: a scripted 200-turn customer conversation with changing facts.

The customer moves twice, changes phone number and preferred courier, reports a missing order that
later arrives and a second one that goes missing, while the product spec changes between versions
(the knowledge base has both, with validity windows). Every few turns a probe asks about one of
the changed facts. For each turn we count the tokens of Remnant's context versus resending the
full history, and at each probe whether the context holds the current value and none of the stale
ones. The clock is simulated (two hours per turn, and a one-year gap before turn 170 after which
unused memories have faded: then a probe is answered correctly by the current value or by
admitting the fact has faded, never by a stale value), so the run is deterministic and offline.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from remnant.assistant.assistant import Assistant
from remnant.assistant.context import SYSTEM_PROMPT, messages_tokens
from remnant.assistant.knowledge import KnowledgeBase, KnowledgeDoc
from remnant.core.clock import ManualClock
from remnant.engine.memory import Memory
from remnant.llm.base import LLM, Message

START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
GAP_AT, GAP = 170, timedelta(days=365)  # the customer comes back after a year: memories have faded
SPEC_CHANGE = START + timedelta(days=8)
USER = "customer-1"

CATALOGUE: tuple[KnowledgeDoc, ...] = (
    KnowledgeDoc(
        "x200-battery",
        "The X200 headphones' battery lasts 10 hours per charge.",
        title="X200 battery life",
        product="X200",
        version="1",
        valid_to=SPEC_CHANGE,
    ),
    KnowledgeDoc(
        "x200-battery",
        "The X200 headphones' battery lasts 12 hours per charge (firmware 2.0).",
        title="X200 battery life",
        product="X200",
        version="2",
        valid_from=SPEC_CHANGE,
    ),
    KnowledgeDoc(
        "returns",
        "Items can be returned within 30 days of delivery for a full refund.",
        title="Return policy",
        version="1",
    ),
    KnowledgeDoc(
        "warranty",
        "All headphones carry a 2-year warranty covering manufacturing defects.",
        title="Warranty",
        version="1",
    ),
    KnowledgeDoc(
        "shipping",
        "Standard shipping takes 3-5 business days; express takes 1-2 days.",
        title="Shipping times",
        version="1",
    ),
    KnowledgeDoc(
        "x200-colours",
        "The X200 comes in black, silver and midnight blue.",
        title="X200 colours",
        product="X200",
        version="1",
    ),
)

FILLER = (
    "What is your return policy?",
    "How long is the warranty on headphones?",
    "How long does standard shipping take?",
    "Which colours does the X200 come in?",
    "Can I pay with a credit card?",
    "Do you ship on weekends?",
    "Is the X200 good for running?",
    "Thanks, that helps.",
    "Can I change the delivery address for a future order?",
    "Do the X200 have noise cancelling?",
    "What does the warranty cover?",
    "OK, great.",
)


@dataclass(frozen=True)
class Probe:
    """A question whose answer is a changed fact: the context must hold `current`, not `stale`."""

    topic: str
    current: str
    stale: tuple[str, ...]


@dataclass
class _Truth:
    city: list[str] = field(default_factory=lambda: ["Munich"])
    phone: list[str] = field(default_factory=lambda: ["0176 5550123"])
    courier: list[str] = field(default_factory=lambda: ["DHL"])
    battery: list[str] = field(default_factory=lambda: ["10 hours"])


def script(turns: int = 200) -> Iterator[tuple[str, Probe | None, timedelta]]:
    """The customer's messages, with a probe where one applies, and the time step before each."""
    t = _Truth()
    events: dict[int, str] = {
        0: "Hi, my name is Laura Chen. I live in Munich.",
        2: "My phone number is 0176 5550123.",
        4: "I prefer DHL for delivery.",
        6: "My order #A77812 hasn't arrived yet.",
        60: "I moved to Berlin last week.",
        80: "Good news: order #A77812 has arrived.",
        90: "My phone number is now 0176 5550999.",
        110: "I prefer UPS for delivery from now on.",
        120: "My order #B5521 hasn't arrived.",
        130: "I moved to Hamburg.",
        GAP_AT: "Hi again, it has been a while.",
    }
    changes = {
        60: ("city", "Berlin"),
        90: ("phone", "0176 5550999"),
        110: ("courier", "UPS"),
        130: ("city", "Hamburg"),
    }
    probes = (
        ("city", "Which city do you have on file for me?"),
        ("phone", "What phone number do you have for me?"),
        ("courier", "Which courier will you use for my parcels?"),
        ("battery", "How long does the X200 battery last?"),
    )
    at = START
    for i in range(turns):
        step = GAP if i == GAP_AT else timedelta(hours=2)
        at += step
        if at >= SPEC_CHANGE and t.battery[-1] != "12 hours":
            t.battery.append("12 hours")
        if i in changes:
            attr, value = changes[i]
            getattr(t, attr).append(value)
        if i in events:
            yield events[i], None, step
        elif i % 5 == 3 and i > 8:
            topic, question = probes[(i // 5) % len(probes)]
            values: list[str] = getattr(t, topic)
            stale = tuple(v for v in values[:-1] if v != values[-1])
            yield question, Probe(topic, values[-1], stale), step
        else:
            yield FILLER[i % len(FILLER)], None, step


_TOPIC_KEYS = {"city": "city", "phone": "phone_number", "courier": "preferred_courier"}


def _holds(text: str, value: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", text, re.IGNORECASE) is not None


@dataclass
class ProbeOutcome:
    turn: int
    topic: str
    changed: bool
    remnant_current: bool
    remnant_stale: bool
    full_current: bool
    full_stale: bool
    asked_again: bool = False  # the context marks this fact as faded, so the answer asks again
    after_gap: bool = False


def run_bench(
    turns: int = 200,
    *,
    llm: LLM | None = None,
    budget: int = 800,
    summary_every: int = 10,
    stale_guard: bool = True,
) -> dict[str, Any]:
    """Run the scripted conversation and return per-turn tokens and probe outcomes."""
    clock = ManualClock(START)
    memory = Memory(":memory:", clock=clock)
    kb = KnowledgeBase(memory)
    kb.add_many(CATALOGUE)
    assistant = Assistant(
        memory, llm, kb=kb, token_budget=budget, summary_every=summary_every, stale_guard=stale_guard
    )
    remnant_tokens: list[int] = []
    full_tokens: list[int] = []
    outcomes: list[ProbeOutcome] = []
    faded_asks = 0
    started = time.perf_counter()
    for i, (message, probe, step) in enumerate(script(turns)):
        clock.advance(step)
        history = assistant.session_turns(USER)
        full_messages: list[Message] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            *history,
            {"role": "user", "content": message},
        ]
        full_text = "\n".join(m["content"] for m in full_messages)
        # The naive app also needs the product documents: give it the same retrieved knowledge.
        knowledge = "\n".join(h.content for h in kb.search(message, limit=assistant.knowledge_k))
        full_tokens.append(
            messages_tokens(full_messages)
            + (messages_tokens([{"role": "system", "content": knowledge}]) if knowledge else 0)
        )
        reply = assistant.reply(USER, message)
        remnant_tokens.append(reply.prompt_tokens)
        faded_asks += bool(reply.context.faded)
        if probe is not None:
            ctx = reply.context.text()
            full = full_text + "\n" + knowledge
            outcomes.append(
                ProbeOutcome(
                    i,
                    probe.topic,
                    bool(probe.stale),
                    _holds(ctx, probe.current),
                    any(_holds(ctx, s) for s in probe.stale),
                    _holds(full, probe.current),
                    any(_holds(full, s) for s in probe.stale),
                    any(h.key == _TOPIC_KEYS.get(probe.topic) for h in reply.context.faded),
                    i > GAP_AT,
                )
            )
    elapsed = time.perf_counter() - started
    changed = [o for o in outcomes if o.changed]

    def rate(items: list[ProbeOutcome], attr_current: str, attr_stale: str) -> float:
        ok = [o for o in items if getattr(o, attr_current) and not getattr(o, attr_stale)]
        return len(ok) / len(items) if items else 1.0

    after_gap = [o for o in outcomes if o.after_gap]
    honest = [o for o in after_gap if not o.remnant_stale and (o.remnant_current or o.asked_again)]

    return {
        "turns": turns,
        "budget": budget,
        "summary_every": summary_every,
        "stale_guard": stale_guard,
        "llm": getattr(llm, "name", None) or "none (offline answers)",
        "seconds": round(elapsed, 2),
        "tokens": {
            "remnant_mean": round(statistics.mean(remnant_tokens), 1),
            "full_mean": round(statistics.mean(full_tokens), 1),
            "remnant_total": sum(remnant_tokens),
            "full_total": sum(full_tokens),
            "remnant_max": max(remnant_tokens),
            "full_max": max(full_tokens),
            "at_turn": {
                str(n): {"remnant": remnant_tokens[n - 1], "full": full_tokens[n - 1]}
                for n in (10, 50, 100, 150, 200)
                if n <= turns
            },
        },
        "probes": {
            "count": len(outcomes),
            "changed_fact_probes": len(changed),
            "remnant_current_not_stale": round(rate(changed, "remnant_current", "remnant_stale"), 3),
            "remnant_current_or_asked_again_never_stale": round(
                sum((o.remnant_current or o.asked_again) and not o.remnant_stale for o in changed)
                / len(changed),
                3,
            )
            if changed
            else 1.0,
            "full_current_not_stale": round(rate(changed, "full_current", "full_stale"), 3),
            "remnant_current_any": round(sum(o.remnant_current for o in outcomes) / max(1, len(outcomes)), 3),
            "remnant_stale_any": sum(o.remnant_stale for o in changed),
            "by_topic": {
                topic: {
                    "probes": len([o for o in changed if o.topic == topic]),
                    "remnant_ok": len(
                        [o for o in changed if o.topic == topic and o.remnant_current and not o.remnant_stale]
                    ),
                    "full_ok": len(
                        [o for o in changed if o.topic == topic and o.full_current and not o.full_stale]
                    ),
                }
                for topic in ("city", "phone", "courier", "battery")
            },
            "after_gap": {
                "probes": len(after_gap),
                "current": sum(o.remnant_current and not o.asked_again for o in after_gap),
                "asked_again": sum(o.asked_again for o in after_gap),
                "stale": sum(o.remnant_stale for o in after_gap),
                "current_or_asked_again_never_stale": round(len(honest) / len(after_gap), 3)
                if after_gap
                else 1.0,
            },
            "failures": [o.__dict__ for o in changed if not (o.remnant_current and not o.remnant_stale)][:10],
        },
        "turns_with_faded_notes": faded_asks,
        "memory": memory.stats(USER)["by_status"],
    }
