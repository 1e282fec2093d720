"""A hand-written development set for semantic supersession of unkeyed facts, and its scoring.

Written by the engineer who wrote :mod:`remnant.understand.attributes`, so it is the
*development* figure: the held-out figure comes from ``remnant eval --suite supersession`` on a set
written by someone else. Each pair is (old, new, label) with label ``supersedes`` (the new statement
replaces the old value of the same attribute of the same subject), ``compatible`` (both can hold:
another person, another context, an addition, a refinement, the same value) or ``unrelated``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from remnant.engine.forgetting.contradictions import ContradictionPolicy

PairLabel = Literal["supersedes", "compatible", "unrelated"]


@dataclass(frozen=True)
class DevPair:
    old: str
    new: str
    label: PairLabel
    lang: str


def _p(lang: str, label: PairLabel, *rows: tuple[str, str]) -> list[DevPair]:
    return [DevPair(o, n, label, lang) for o, n in rows]


DEV_PAIRS: tuple[DevPair, ...] = tuple(
    _p(
        "en",
        "supersedes",
        ("I live in Leeds", "we just moved to Bristol"),
        ("I'm based in Toronto", "relocated to Vancouver last month"),
        ("I work for Northwind", "started working at Contoso on Monday"),
        ("I work at a bakery downtown", "I no longer work at a bakery downtown"),
        ("I work at Initrode", "got laid off last week"),
        ("I'm a paralegal", "I'm a lawyer now, passed the bar"),
        ("I work as a barista", "these days I work as a graphic designer"),
        ("I eat pretty much everything", "I'm vegan since January"),
        ("I'm vegetarian", "started eating meat again, I'm an omnivore now"),
        ("I bike to work", "I drive to work these days"),
        ("I take the bus to work", "I walk to work now that we moved"),
        ("I get up at 5:30", "I get up at 7 now"),
        ("I go to bed at 10pm", "lately I go to bed at midnight"),
        ("I go to the gym every morning", "switched to swimming"),
        ("I do yoga every evening", "I go climbing every evening instead"),
        ("I'm single", "just got married!"),
        ("I'm engaged", "we got divorced last year"),
        ("I'm 41", "turned 42 on Sunday"),
        ("My son goes to Pinewood Primary", "my son starts at Hillcrest Academy in September"),
        ("my daughter is in 2nd grade", "my daughter is going into 3rd grade"),
        ("I drink coffee all day", "I switched to green tea"),
        ("I bank with Barclays", "moved my money, I bank with Starling now"),
        ("I work nights", "I'm on day shifts now"),
        ("I work from home", "back in the office full time"),
        ("I smoke", "I quit smoking in March"),
        ("my phone number is 0161 555 0101", "my new number is 0161 555 0199"),
        ("my wife works at the hospital", "my wife works at a law firm now"),
        ("I drive a Civic", "I drive a Model 3 now"),
        ("I weigh 90 kg", "I weigh 82 kg after the diet"),
        ("rent is 1200 a month", "rent went up to 1350"),
        ("my favourite band is Muse", "my favourite band is Idles now"),
        ("call me Liz", "please call me Beth from now on"),
    )
    + _p(
        "en",
        "compatible",
        ("I live in Leeds", "my brother lives in York"),
        ("I live in Chicago", "I live in Chicago, in Logan Square neighborhood"),
        ("I work at Contoso", "I also work at a bar on the side"),
        ("I'm a nurse", "I'm a nurse at St Mary's"),
        ("I get up at 6", "on weekends I get up at 9"),
        ("I go to bed at 11", "on weekends I go to bed at 1"),
        ("my work number is 555 0111", "my personal number is 555 0123"),
        ("I work at Contoso", "my husband works at Fabrikam"),
        ("I'm vegetarian", "my daughter is vegan"),
        ("I drive to work", "my partner takes the train to work"),
        ("I live in Oslo", "I was born in Bergen"),
        ("I'm 30", "my son is 4"),
        ("I go running every morning", "I also do yoga on Sundays"),
        ("I live in Paris", "I live in Paris"),
        ("I'm single", "my sister got married"),
        ("I drink tea", "I drink tea with honey"),
        ("my son goes to Pinewood Primary", "my daughter goes to Oakfield High School"),
        ("I work from home", "my wife works in the office"),
    )
    + _p(
        "en",
        "unrelated",
        ("I live in Leeds", "I work at Contoso"),
        ("I switched to decaf", "I switched banks to Monzo"),
        ("I run every morning", "I run a pottery studio"),
        ("I'm 35", "I have 35 houseplants"),
        ("I'm vegetarian", "I bike to work"),
        ("I get up at 6", "I go to bed at 11"),
        ("I drive a Civic", "I drive to work"),
        ("I'm a teacher", "I live in Madrid"),
        ("I'm married", "I work nights"),
        ("my son goes to Pinewood Primary", "my son is 7"),
        ("I bank with Barclays", "I work at Barclays"),
        ("I smoke", "I drink coffee every morning"),
    )
    + _p(
        "zh",
        "supersedes",
        ("我住在南京", "我们搬到苏州了"),
        ("我在杭州生活", "现在住上海了"),
        ("我在美团上班", "我跳槽到拼多多了"),
        ("我在银行工作", "我已经离职了"),
        ("我是一名会计", "我现在当老师了"),
        ("我是程序员", "我转行做产品经理了"),
        ("我什么都吃", "我现在吃素了"),
        ("我每天开车上班", "现在改成骑电动车上班了"),
        ("我坐公交上班", "现在坐地铁上班"),
        ("我七点起床", "现在六点就起床了"),
        ("我一般十一点睡觉", "最近十二点半才睡"),
        ("我每天跑步", "现在改成游泳了"),
        ("我单身", "我结婚了"),
        ("我今年28岁", "我29岁了"),
        ("我女儿在实验小学", "下学期我女儿转到外国语学校"),
        ("我儿子上二年级", "我儿子升三年级了"),
        ("我每天早上喝咖啡", "我改喝茶了"),
        ("我上白班", "改成夜班了"),
        ("我在家办公", "现在每天去公司上班"),
        ("我抽烟", "我戒烟了"),
        ("我的手机号是13800001111", "我的手机号换成了13900002222"),
        ("我老公在国企上班", "我老公跳槽到外企了"),
        ("我体重70公斤", "我体重现在65公斤"),
        ("我最喜欢的歌手是周杰伦", "我最喜欢的歌手变成了陈奕迅"),
    )
    + _p(
        "zh",
        "compatible",
        ("我住在北京", "我妹妹住在天津"),
        ("我住在北京", "我住在北京海淀区"),
        ("我在腾讯上班", "我周末还兼职做家教"),
        ("我七点起床", "周末我九点起床"),
        ("我开车上班", "我老婆坐地铁上班"),
        ("我吃素", "我女儿不吃素"),
        ("我住在成都", "我出生在重庆"),
        ("我30岁", "我儿子5岁"),
        ("我每天跑步", "我也去游泳"),
        ("我是老师", "我是小学老师"),
        ("我单身", "我哥哥结婚了"),
        ("我女儿在实验小学", "我儿子在阳光幼儿园"),
    )
    + _p(
        "zh",
        "unrelated",
        ("我住在南京", "我在美团上班"),
        ("我35岁", "家里养了35条金鱼"),
        ("我每天跑步", "我开车上班"),
        ("我吃素", "我十一点睡觉"),
        ("我是程序员", "我住在深圳"),
        ("我单身", "我上夜班"),
        ("我戒烟了", "我每天早上喝咖啡"),
        ("我女儿在实验小学", "我女儿8岁"),
    )
)


@dataclass(frozen=True)
class SupersessionScore:
    n: int
    precision: float
    recall: float
    confusion: dict[str, dict[str, int]]  # truth -> action (supersede/flag/none) -> count
    misses: list[tuple[str, str, str, str]]  # (label, action, old, new) where the answer was wrong

    def to_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "confusion": self.confusion,
        }


def evaluate_policy(
    pairs: tuple[DevPair, ...] | list[DevPair] = DEV_PAIRS, policy: ContradictionPolicy | None = None
) -> SupersessionScore:
    """Precision/recall of "supersedes" for the policy's decision (``auto`` mode by default): a pair
    counts as predicted positive when the policy would supersede the old statement."""
    pol = policy or ContradictionPolicy()
    confusion: dict[str, Counter[str]] = {}
    misses: list[tuple[str, str, str, str]] = []
    tp = fp = fn = 0
    for p in pairs:
        action, _ = pol.decide(p.new, p.old)
        got = action or "none"
        confusion.setdefault(p.label, Counter())[got] += 1
        positive = p.label == "supersedes"
        if action == "supersede":
            tp += positive
            fp += not positive
        elif positive:
            fn += 1
        if (action == "supersede") != positive:
            misses.append((p.label, got, p.old, p.new))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return SupersessionScore(
        len(pairs), precision, recall, {k: dict(v) for k, v in confusion.items()}, misses
    )
