"""Entity survival of the summarisers on a few short customer conversations (EN and ZH).

Reports, per summariser, the share of regex-found entities (order numbers, dates, amounts, codes)
that appear verbatim in the summary; for the LLM one both before the entity guard (what the model
kept) and after it (what is stored).
"""

from __future__ import annotations

from typing import Any

from remnant.llm.base import Message
from remnant.summarize.entities import entity_survival
from remnant.summarize.extractive import ExtractiveSummarizer
from remnant.summarize.llm import LLMSummarizer


def _conv(*pairs: tuple[str, str]) -> list[Message]:
    return [{"role": r, "content": c} for r, c in pairs]  # type: ignore[typeddict-item]


CONVERSATIONS: tuple[list[Message], ...] = (
    _conv(
        ("user", "My order #A77812 from 2024-05-03 hasn't arrived. I paid $129.99."),
        ("assistant", "Sorry! Order A77812 shipped with tracking SF1234567890."),
        ("user", "I moved to Munich. Please email me."),
    ),
    _conv(
        ("user", "The X200 I bought on March 3rd, 2024 stopped charging."),
        ("assistant", "The X200 has a 2-year warranty. I opened case RMA-5521."),
        ("user", "Thanks. Can I get a replacement instead of a refund of €89?"),
    ),
    _conv(
        ("user", "订单号20240517还没收到，金额299元。"),
        ("assistant", "抱歉，订单20240517已于5月18日发出。"),
        ("user", "我喜欢用顺丰快递，下次请用顺丰。"),
    ),
    _conv(
        ("user", "I was charged twice for order 88213: $45.00 on 2024-06-01 and again on 2024-06-02."),
        ("assistant", "I see both charges of $45.00 for order 88213. I will refund one."),
        ("user", "Great, please refund to my credit card."),
    ),
)


def evaluate(llm: Any = None) -> dict[str, Any]:
    """Mean entity survival per summariser over `CONVERSATIONS`."""
    rows: dict[str, list[float]] = {"extractive": []}
    fallbacks = 0
    if llm is not None:
        rows["llm_raw"] = []
        rows["llm_guarded"] = []
    for turns in CONVERSATIONS:
        texts = [t["content"] for t in turns]
        rows["extractive"].append(
            entity_survival(texts, ExtractiveSummarizer().summarize(turns).render()).rate
        )
        if llm is not None:
            run = LLMSummarizer(llm, max_tokens=200).run(turns)
            if run.source != "llm" or run.raw_survival is None:
                fallbacks += 1
                rows["llm_raw"].append(0.0)  # the model produced nothing usable
            else:
                rows["llm_raw"].append(run.raw_survival.rate)
            rows["llm_guarded"].append(entity_survival(texts, run.summary.render()).rate)
    out: dict[str, Any] = {name: round(sum(v) / len(v), 3) for name, v in rows.items()}
    out["conversations"] = len(CONVERSATIONS)
    if llm is not None:
        out["llm_fallbacks"] = fallbacks
    return out


if __name__ == "__main__":  # python -m remnant.summarize.evaluate [local|openai:...]
    import json
    import sys

    from remnant.llm.factory import llm_from_config

    print(json.dumps(evaluate(llm_from_config(sys.argv[1]) if len(sys.argv) > 1 else None), indent=2))
