"""How much a conversation turn matters, offline: salience from cues of what people mean to keep.

A turn that discloses something about the speaker (where they live, work, what they are like),
states a plan or a date, names people and relationships, a preference or a habit, a number that
matters, a change of state, scores high; greetings, thanks, acknowledgements, weather and small
talk, and questions to the assistant that reveal nothing about the speaker score low. The score is
a logistic function of weighted cue counts (English and Chinese); :func:`salience` returns it
with the cues that fired, so an inspector can say why. No model, no LLM: deterministic and fast.

The weights were set by hand on the development turns in ``bench/eval/data/salience_dev.jsonl``;
the held-out turns in ``bench/heldout/salience.jsonl`` were written apart and are only read by
``remnant eval --suite salience``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from remnant.core.text import has_han

_I = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself|we|we're|our|us)\b", re.I)
_ZH_I = re.compile(r"我|咱|俺|本人")

# (name, weight, English pattern, Chinese pattern)
_CUES: tuple[tuple[str, float, str, str], ...] = (
    (
        "self_state",
        1.6,
        r"\b(?:i am|i'm|im|i work|i live|i moved|i've been|i have|i got|i was born|i study|i teach|"
        r"i run|i own|i drive|i use|i go to|i started|i quit|i left|i joined|i switched|i became|"
        r"i no longer|i don't \w+ anymore|i stopped|i'm allergic|allergic|diagnosed|pregnant|retired)\b",
        r"我(?:是|在|住|搬|做|当|有|得了|怀孕|退休|离职|辞职|换了|开始|不再|已经|刚|养了|买了|考上|读|上班|工作)",
    ),
    (
        "preference",
        1.4,
        r"\b(?:love|like|likes|liked|enjoy|prefer|favou?rite|hate|can't stand|dislike|allergic|"
        r"vegetarian|vegan|into|fan of|rather|not a fan)\b",
        r"喜欢|爱|讨厌|不喜欢|最爱|偏好|受不了|过敏|吃素|不吃|不喝|偏爱|习惯",
    ),
    (
        "habit",
        1.3,
        r"\b(?:every (?:day|morning|night|evening|week|weekend|monday|tuesday|wednesday|thursday|"
        r"friday|saturday|sunday)|usually|always|never|most days|each (?:day|morning|week)|"
        r"daily|weekly|on weekends|every other|routine)\b",
        r"每天|每周|每晚|每早|每个?月|平时|一般|经常|总是|从不|通常|天天|周末都",
    ),
    (
        "plan_date",
        1.3,
        r"\b(?:next (?:week|month|year|term|semester|monday|tuesday|wednesday|thursday|friday|"
        r"saturday|sunday|summer|spring|fall|autumn|winter)|tomorrow|tonight|this (?:weekend|"
        r"friday|saturday|sunday|summer)|going to|gonna|planning|plan to|will be|starts?|"
        r"deadline|due|appointment|interview|trip|flight|wedding|birthday|anniversary|"
        r"january|february|march|april|may|june|july|august|september|october|november|december|"
        r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{1,2}(?:st|nd|rd|th)\b)\b",
        r"下(?:周|个?月|学期|星期|礼拜)|明天|后天|明年|今年|打算|计划|准备|要去|预约|面试|出差|"
        r"旅行|航班|婚礼|生日|纪念日|[一二三四五六七八九十\d]{1,20}月|周[一二三四五六日末]|星期[一二三四五六日天]",
    ),
    (
        "people",
        1.2,
        r"\b(?:wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|son|daughter|kids?|children|"
        r"child|baby|mom|mum|mother|dad|father|parents?|brother|sister|sibling|grandma|grandpa|"
        r"grandmother|grandfather|aunt|uncle|cousin|niece|nephew|boss|manager|colleague|coworker|"
        r"roommate|neighbou?r|friend|dog|cat|puppy|kitten|pet)\b",
        r"老婆|老公|妻子|丈夫|爱人|对象|男朋友|女朋友|儿子|女儿|闺女|孩子|宝宝|妈妈|爸爸|父母|"
        r"哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表|老板|领导|同事|"
        r"室友|邻居|朋友|狗|猫|宠物",
    ),
    (
        "change",
        1.2,
        r"\b(?:now|anymore|any more|these days|switched|moved|changed|new job|just got|recently|"
        r"no longer|used to|finally|from now on|starting)\b",
        r"现在|不再|改成|换成|搬到|搬家|最近|刚刚|以后|从今天起|终于|已经不",
    ),
    (
        "number",
        0.6,
        r"\b\d[\d,.:]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|"
        r"thirty|forty|fifty|hundred|thousand)\b",
        r"[\d０-９]+|[一二两三四五六七八九十百千万]{1,20}(?:岁|块|元|公斤|斤|米|公里|点|号|个|年)",
    ),
    (
        "name",
        0.5,
        r"(?<=[a-z,;] )[A-Z][a-z]+(?: [A-Z][a-z]+)*",
        r"(?!x)x",  # Chinese names have no capitals; the people and self-state cues cover them
    ),
)

_FILLER: tuple[tuple[str, float, str, str], ...] = (
    (
        "greeting",
        -2.6,
        r"^\W*(?:hi|hey|hello|yo|good (?:morning|afternoon|evening|night)|bye|goodbye|see you|"
        r"thanks?|thank you|thx|ty|ok(?:ay)?|k|cool|nice|great|awesome|sure|yes|yeah|yep|no|nope|"
        r"lol|haha+|hmm+|got it|sounds good|perfect|right|alright|np|you too|same)\b[\W\s]*"
        r"(?:(?:so|very|a lot|much|man|dude|buddy|there|again|bro)\b[\W\s]*)*$",
        r"^\W*(?:你好|您好|嗨|哈喽|早上好|晚上好|晚安|再见|拜拜|谢谢|多谢|感谢|好的|好吧|嗯+|哦+|"
        r"哈哈+|收到|明白|知道了|可以|行|对|是的|没问题|辛苦了)[\W\s啊呀呢吧啦了哈]*$",
    ),
    (
        "weather_smalltalk",
        -1.2,
        r"\b(?:weather|rain(?:ing|y)?|sunny|cloudy|snow(?:ing)?|hot today|cold today|windy|"
        r"what a day|long day|crazy day|lol|haha|lmao)\b",
        r"天气|下雨|好热|好冷|刮风|晴天|阴天|哈哈",
    ),
    (
        "question_to_assistant",
        -1.4,
        r"^\W*(?:what|how|why|who|where|when|which|can you|could you|would you|will you|do you|"
        r"is it|are there|tell me|explain|show me|give me|write|translate|summari[sz]e|help me)\b",
        r"[吗呢？?]\s*$|^(?:请|帮我|能不能|可以|怎么|为什么|什么是|告诉我|解释|翻译|写一)",
    ),
    (
        "meta",
        -1.0,
        r"\b(?:shorter|longer|bullet points|in english|in chinese|rephrase|format|again please|"
        r"never mind|nevermind|just kidding|ignore that)\b",
        r"简短|详细点|换个说法|用英文|用中文|算了|不用了|重新说",
    ),
)

_BIAS = -1.2


@dataclass(frozen=True)
class Salience:
    """A turn's salience in [0, 1] and the cues that decided it."""

    score: float
    cues: tuple[str, ...]


def _count(pattern: str, text: str, flags: int = re.I) -> int:
    return len(re.findall(pattern, text, flags))


def salience(text: str, *, role: str = "user") -> Salience:
    """How much ``text`` matters for a month (see the module docstring). Assistant turns score
    lower: what the assistant said is recoverable; what the user disclosed is not."""
    stripped = text.strip()
    if not stripped:
        return Salience(0.0, ())
    z = _BIAS
    cues: list[str] = []
    zh = has_han(stripped)
    first_person = bool((_ZH_I if zh else _I).search(stripped)) or bool(_ZH_I.search(stripped))
    for name, weight, en, zh_pat in _CUES:
        # capitals carry the meaning of the name cue: matched case-sensitively
        n = _count(en, stripped, 0 if name == "name" else re.I) + _count(zh_pat, stripped, 0)
        if n:
            # a cue about someone else (plans, people) still matters; about nothing in particular less
            z += weight * min(n, 2) ** 0.5
            cues.append(name)
    for name, weight, en, zh_pat in _FILLER:
        if re.search(en, stripped, re.I) or re.search(zh_pat, stripped):
            z += weight
            cues.append(name)
    if first_person:
        z += 0.8
        cues.append("first_person")
    words = len(stripped.split()) if not zh else len(stripped) / 2
    if words <= 2 and "greeting" not in cues:
        z -= 0.8
        cues.append("very_short")
    if role != "user":
        z -= 1.5
        cues.append("assistant_turn")
    return Salience(1.0 / (1.0 + math.exp(-z)), tuple(cues))
