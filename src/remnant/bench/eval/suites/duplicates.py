"""Duplicates: a turn said again reinforces the memory already kept instead of storing a second copy.

Each case is a turn said twice by its own user through the conversation path (``observe``:
``Memory.add`` for Remnant), written here (EN/ZH):

* **duplicates**: the same words again at once, the same words with another case, extra spaces or
  other punctuation, and the same fact said again a week later. Right when the second mention
  stores nothing new (the user's stored memories, ``memory_texts``, are as many as after the first)
  *and* reinforces what is kept: a week after the last mention the strongest memory holding the
  turn is stronger (``strength``) than the same turn said once at that last mention by a control
  user (one for each wording, the stronger counts), so it decays slower than a single mention
  would;
* **near-misses**: the same words with another number, a negation or another person. Right when
  both turns are stored, each as its own memory (a later value may still supersede the earlier
  one; it must not be merged into it).

The clock moves with ``wait`` (no maintenance), so nothing is evicted between the mentions and the
measurement. The suite can fail both ways: a store that keeps everything stores a second copy and
reinforces nothing; one that forgets everything does too, and recalls none of it.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext

NAME = "duplicates"
DEFINITION = (
    "turns said twice (EN/ZH): share of duplicates (exact, case/space/punctuation variants, again a week "
    "later) stored once and reinforced (a week on, stronger than a single mention), and share of near-misses "
    "(another number, a negation, another person) kept as two memories"
)
TARGET = "duplicates stored once and reinforced >= 0.90 and near-misses kept apart >= 0.90"
THRESHOLD = 0.90
MARGIN = 0.005  # strength above the single mention's that counts as reinforced (not rounding noise)
WEEK = 7.0

# (id, lang, kind, first, second, days between the mentions); kind: duplicate or near_miss
CASES: tuple[tuple[str, str, str, str, str, float], ...] = (
    ("d-en-exact-1", "en", "duplicate", "I'm allergic to peanuts.", "I'm allergic to peanuts.", 0),
    (
        "d-en-exact-2",
        "en",
        "duplicate",
        "My daughter's school play is on Friday at six.",
        "My daughter's school play is on Friday at six.",
        0,
    ),
    (
        "d-en-case",
        "en",
        "duplicate",
        "I work night shifts at the hospital.",
        "i work NIGHT shifts at the hospital.",
        0,
    ),
    ("d-en-space", "en", "duplicate", "My cat is called Biscuit.", "  My cat  is called   Biscuit. ", 0),
    ("d-en-punct", "en", "duplicate", "I'm vegetarian now.", "I'm vegetarian now!!", 0),
    (
        "d-en-punct-2",
        "en",
        "duplicate",
        "we're moving to Leeds in March",
        "We're moving to Leeds in March.",
        0,
    ),
    (
        "d-en-week-1",
        "en",
        "duplicate",
        "I'm training for the Berlin marathon in September.",
        "I'm training for the Berlin marathon in September.",
        WEEK,
    ),
    (
        "d-en-week-2",
        "en",
        "duplicate",
        "my favourite tea is genmaicha",
        "My favourite tea is genmaicha.",
        WEEK,
    ),
    ("d-zh-exact-1", "zh", "duplicate", "我对花生过敏。", "我对花生过敏。", 0),
    ("d-zh-exact-2", "zh", "duplicate", "我女儿下学期要去上钢琴课。", "我女儿下学期要去上钢琴课。", 0),
    ("d-zh-punct", "zh", "duplicate", "我每天早上跑步。", "我每天早上跑步！", 0),
    ("d-zh-punct-2", "zh", "duplicate", "我住在杭州，", "我住在杭州。", 0),
    ("d-zh-space", "zh", "duplicate", "我的猫叫年糕", " 我的猫叫年糕 ", 0),
    ("d-zh-week-1", "zh", "duplicate", "我在准备九月的雅思考试。", "我在准备九月的雅思考试。", WEEK),
    ("d-zh-week-2", "zh", "duplicate", "我在学日语", "我在学日语。", WEEK),
    ("n-en-number-1", "en", "near_miss", "I run 5 km every morning.", "I run 10 km every morning.", 0),
    ("n-en-number-2", "en", "near_miss", "My flight leaves at 7:40.", "My flight leaves at 9:40.", 0),
    ("n-en-negation-1", "en", "near_miss", "I like horror films.", "I don't like horror films.", 0),
    ("n-en-negation-2", "en", "near_miss", "I'm vegetarian.", "I'm not vegetarian.", 0),
    ("n-en-person-1", "en", "near_miss", "My sister lives in Lyon.", "My brother lives in Lyon.", 0),
    ("n-en-person-2", "en", "near_miss", "Anna is allergic to cats.", "Tom is allergic to cats.", 0),
    ("n-zh-number", "zh", "near_miss", "我每周游泳三次。", "我每周游泳两次。", 0),
    ("n-zh-number-2", "zh", "near_miss", "我的航班七点四十起飞。", "我的航班九点四十起飞。", 0),
    ("n-zh-negation", "zh", "near_miss", "我喜欢吃辣。", "我不喜欢吃辣。", 0),
    ("n-zh-person", "zh", "near_miss", "我哥哥住在成都。", "我姐姐住在成都。", 0),
    ("n-zh-person-2", "zh", "near_miss", "小王对猫过敏。", "小李对猫过敏。", 0),
)


def same_words(text: str) -> str:
    """A turn's words with case, spacing and punctuation set aside (how the suite matches a memory)."""
    kept = "".join(" " if unicodedata.category(c)[0] in "PZ" else c for c in text.casefold())
    return " ".join(kept.split())


def _body(cases: tuple[tuple[str, str, str, str, str, float], ...]) -> Any:
    def body(a: MemoryAdapter) -> dict[str, Any]:
        observe = getattr(a, "observe", None)
        texts = getattr(a, "memory_texts", None)
        if not callable(observe) or not callable(texts):
            raise NotImplementedError("the adapter has no conversation path (observe/memory_texts)")
        strength = getattr(a, "strength", None)
        wait = getattr(a, "wait", None) or a.advance_time

        def holding(user: str, *turns: str) -> dict[str, list[str]]:
            want = {same_words(t): t for t in turns}
            out: dict[str, list[str]] = {t: [] for t in turns}
            for mid, text in texts(user).items():
                if same_words(text) in want:
                    out[want[same_words(text)]].append(mid)
            return out

        def strongest(user: str, turn: str) -> float:
            ids = holding(user, turn)[turn]
            return max((float(strength(i)) for i in ids), default=0.0) if callable(strength) else 0.0

        out: dict[str, dict[str, Any]] = {}
        before: dict[str, int] = {}
        for cid, _, _, first, _, gap in cases:  # the week-apart first mentions come first
            if gap:
                observe(f"dup-{cid}", first)
        wait(WEEK)
        for cid, _, _, first, _, gap in cases:
            if not gap:
                observe(f"dup-{cid}", first)
        for cid, _, kind, first, second, _ in cases:
            user = f"dup-{cid}"
            before[cid] = len(texts(user))
            observe(user, second)
            after = len(texts(user))
            if kind == "duplicate":
                # the controls: each wording said once, at the same moment (a wording's own
                # salience must not pass for reinforcement)
                observe(f"ctl-a-{cid}", first)
                observe(f"ctl-b-{cid}", second)
                out[cid] = {"single": bool(before[cid]) and after == before[cid]}
            else:
                held = holding(user, first, second)
                out[cid] = {"apart": after > before[cid] and all(held[t] for t in (first, second))}
        wait(WEEK)
        for cid, _, kind, first, _, _ in cases:
            if kind == "duplicate":
                mine = strongest(f"dup-{cid}", first)
                control = max(strongest(f"ctl-a-{cid}", first), strongest(f"ctl-b-{cid}", first))
                out[cid]["reinforced"] = mine > control + MARGIN
                out[cid]["strength"] = [round(mine, 4), round(control, 4)]
        return out

    return body


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    return run_cases(factory, ctx, CASES)


def run_cases(
    factory: AdapterFactory, ctx: SuiteContext, cases: tuple[tuple[str, str, str, str, str, float], ...]
) -> SuiteResult:
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    outcome = run_case("turns", factory, _body(cases), timeout_s=ctx.timeout_s)
    result.cases.append(outcome)
    got = outcome.value if outcome.ok else {}
    for scope in ("all", "en", "zh"):
        mine = [c for c in cases if scope == "all" or c[1] == scope]
        dups = [got.get(c[0], {}) for c in mine if c[2] == "duplicate"]
        near = [got.get(c[0], {}) for c in mine if c[2] == "near_miss"]
        suffix = "" if scope == "all" else f" ({scope})"
        single = sum(bool(v.get("single")) for v in dups)
        reinforced = sum(bool(v.get("reinforced")) for v in dups)
        right = sum(bool(v.get("single")) and bool(v.get("reinforced")) for v in dups)
        result.metrics[f"duplicates stored once{suffix}"] = round(ratio(single, len(dups)), 4)
        result.metrics[f"duplicates reinforced{suffix}"] = round(ratio(reinforced, len(dups)), 4)
        result.metrics[f"duplicates right{suffix}"] = round(ratio(right, len(dups)), 4)
        result.metrics[f"near-misses kept apart{suffix}"] = round(
            ratio(sum(bool(v.get("apart")) for v in near), len(near)), 4
        )
    result.metrics["duplicate cases"] = sum(c[2] == "duplicate" for c in cases)
    result.metrics["near-miss cases"] = sum(c[2] == "near_miss" for c in cases)
    right, apart = result.metrics["duplicates right"], result.metrics["near-misses kept apart"]
    result.score = round(min(right, apart), 4)
    result.passed = right >= THRESHOLD and apart >= THRESHOLD and not result.failures
    result.series = {"bars": {"duplicates right": right, "near-misses kept apart": apart}}
    return result
