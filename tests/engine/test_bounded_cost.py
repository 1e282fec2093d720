"""Bounded cost: every reader of what a person said is linear in its input.

Each reader (fact rules, the attribute reader, the expiry and salience readers, the forget-request
parser, its value spans and parts, the time resolver, the recall query analysis, the PII detector)
gets the documented maximum, :data:`~remnant.core.limits.MAX_CONTENT_CHARS` (100,000 characters),
of the shapes that made the rules quadratic: one run of digits, of spaces, of CJK numerals, and a
mix of digits, spaces and CJK numerals, each inside a sentence that gives the rules something to
start on ("I paid $… for the car").

The forget-request parser gets its own documented maximum,
:data:`~remnant.core.limits.MAX_REQUEST_CHARS` (a longer chat message is not a request:
``is_forget_request`` says no, ``Memory.forget`` refuses it), and the query analysis
:data:`~remnant.core.limits.MAX_QUERY_CHARS`.

Budget: **3 seconds per reader per input** on the project's shared 2-core machine under load (a
linear reader takes tens to a few hundred milliseconds there; the number recogniser on digits
and spaces about 1.5-2.5 s; before the fix a reader took minutes: ``attributes.read`` needed
4.8 s for 4,000 spaces and four times that per doubling, about 50 minutes at the limit). The end-to-end writes and requests through ``Memory(path)`` get 20 seconds each: they
embed and store the text too. A budget here is a ceiling for a stall, not a speed claim.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from remnant.core.limits import MAX_CONTENT_CHARS, MAX_QUERY_CHARS, MAX_REQUEST_CHARS

READER_BUDGET_S = 3.0
ENGINE_BUDGET_S = 20.0

# two runs: one bare ("I paid 111… for the car", the red team's memory) and one after a currency sign
_HEAD, _MIDDLE, _TAIL = "I paid ", " or $", " for the car. 我的工资是"


def _worst(run: str, size: int = MAX_CONTENT_CHARS) -> str:
    body = size - len(_HEAD) - len(_MIDDLE) - len(_TAIL)
    fill = (run * (body // len(run) + 1))[:body]
    half = body // 2
    return _HEAD + fill[:half] + _MIDDLE + fill[half:] + _TAIL


SHAPES: dict[str, str] = {
    "digits": "1",
    "spaces": " ",
    "newlines": "\n",
    "cjk_numerals": "一二三四五六七八九十百千万两",
    "digits_spaces": "12 345  6 ",
    "mixed": "1 一 23 二十 $4,5.6 三百 7k ",
}


def _readers() -> dict[str, Callable[[str], object]]:
    from remnant.core.durations import parse_duration
    from remnant.extract.expiry import expiry_in_words
    from remnant.extract.rules import RuleExtractor
    from remnant.extract.salience import salience
    from remnant.privacy import Detector
    from remnant.retrieval import query
    from remnant.understand import attributes, request_parts, requests, timeexpr

    def durations(text: str) -> object:
        try:
            return parse_duration(text)
        except ValueError:
            return None

    def value_spans(text: str) -> object:
        return [request_parts.value_spans(kind, text) for kind in set(request_parts.VALUE_KINDS.values())]

    def measures(text: str) -> object:
        return [request_parts.measure_spans(kind, text) for kind in ("weight", "height", "pay", "duration")]

    def forget_target(text: str) -> object:
        # the learned forget-target matcher's features of one candidate memory (vectors aside)
        import numpy as np

        from remnant.core.model import MemoryRecord
        from remnant.understand import forget_model

        intent = requests.parse_intent("forget how much I paid for the car")
        vec = np.ones(384) / np.sqrt(384)
        scope = forget_model.Scope("how much I paid for the car", intent, vec, {"m": 0.8}, False, 1)
        record = MemoryRecord(id="m", user_id="u", content=text)
        return forget_model.features(scope, record, vec, None, None)

    ref = date(2026, 3, 14)
    return {
        "forget_target": forget_target,
        "facts": RuleExtractor().extract,
        "attributes": attributes.read,
        "attribute_cues": attributes.cues,
        "relation": lambda t: attributes.relation(t, "I paid $30,000 for the car"),
        "expiry": expiry_in_words,
        "salience": salience,
        "durations": durations,
        "forget_request": lambda t: requests.parse_intent("forget " + t[: MAX_REQUEST_CHARS - 7]),
        "is_forget_request": lambda t: requests.is_forget_request("please forget " + t),
        "core_request": lambda t: requests.core_request(t[:MAX_REQUEST_CHARS]),
        "value_spans": value_spans,
        "measure_spans": measures,
        "parts": request_parts.parts,
        "time": lambda t: timeexpr.resolve(t, ref),
        "query": lambda t: query.analyze(t[:MAX_QUERY_CHARS]),  # a longer query is refused
        "detector": Detector().detect,
    }


READERS = _readers()


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_reader_is_bounded_at_the_content_limit(reader: str, shape: str) -> None:
    text = _worst(SHAPES[shape])
    assert len(text) == MAX_CONTENT_CHARS
    start = time.perf_counter()
    READERS[reader](text)
    took = time.perf_counter() - start
    assert took <= READER_BUDGET_S, f"{reader} took {took:.2f} s on {MAX_CONTENT_CHARS:,} chars of {shape}"


@pytest.fixture(scope="module")
def product(tmp_path_factory: pytest.TempPathFactory) -> object:
    from remnant import Memory

    mem = Memory(str(Path(tmp_path_factory.mktemp("bounded")) / "m.db"))
    yield mem
    mem.close()


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


# every shape, CJK numeral runs included: the embedder reads at most its window of 512 tokens
# (a 2,000-character run of CJK numerals was ~1,600 tokens and took 17 s under load before)
PRODUCT_SHAPES = sorted(SHAPES)


@pytest.mark.parametrize("shape", PRODUCT_SHAPES)
def test_product_paths_are_bounded_at_the_limits(product: object, shape: str) -> None:
    """Through the product: write the worst text, ingest it as a chat turn, then a dry-run forget
    request that reads every stored memory's values and a recall with the longest query."""
    mem = product
    user = f"u-{shape}"
    text = _worst(SHAPES[shape])
    took = {
        "remember": _timed(lambda: mem.remember(text, user_id=user)),  # type: ignore[attr-defined]
        "add": _timed(lambda: mem.add([text], user_id=user)),  # type: ignore[attr-defined]
        "forget": _timed(
            lambda: mem.forget("forget how much I paid for the car", user_id=user, dry_run=True)  # type: ignore[attr-defined]
        ),
        "forget_zh": _timed(
            lambda: mem.forget("忘掉我三天前说的工资", user_id=user, dry_run=True)  # type: ignore[attr-defined]
        ),
        "recall": _timed(
            lambda: mem.recall(_worst(SHAPES[shape], MAX_QUERY_CHARS), user_id=user)  # type: ignore[attr-defined]
        ),
    }
    slow = {k: round(v, 2) for k, v in took.items() if v > ENGINE_BUDGET_S}
    assert not slow, f"over {ENGINE_BUDGET_S} s on {shape}: {slow}"
