"""Rule-based fact extraction for English and Chinese: no model, deterministic, precise.

Each rule is a regular expression plus a builder that turns the match into an `ExtractedFact`
with a normalised key. The rules aim at the statements a customer-service conversation turns
into memories: attributes ("my X is Y", 我的X是Y), where the user lives (moves supersede the old
city), likes and dislikes (a later "I don't like X anymore" supersedes "I like X" on the same key),
stated preferences by category (courier, contact channel, colour, payment, language), reminders
and undelivered orders (open issues with a suggested expiry), and orders that have arrived
(which supersede the open issue on the same order key).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

from remnant.core.text import HAN_CLASS, has_han
from remnant.core.text.calendar import WEEKDAYS
from remnant.core.text.numerals import ENGLISH_MONTHS
from remnant.extract.keys import CANONICAL, normalise_key, slug
from remnant.extract.model import ExtractedFact, FactKind
from remnant.understand import attributes

_DATA = Path(__file__).resolve().parent / "data"

# --- value clean-up ---------------------------------------------------------------------------

# An English value ends at clause punctuation, a sentence-final period, or a joining word.
_EN_STOP = re.compile(
    r"\s{0,64}(?:[,;!?()]|\.(?:\s|$)|\s(?:and|but|because|so|since|though|although|which|when|while)\s"
    r"|\s(?:anymore|any more|now|these days|nowadays|last|this|next|recently|yesterday|today|"
    r"tomorrow|already|please|thanks|thank you)\b).*$",
    re.IGNORECASE | re.DOTALL,
)
_ZH_STOP = re.compile(r"[，,。！!？?；;、\s（(].*$", re.DOTALL)
_ZH_TAIL = re.compile(r"(?:了|啦|呢|吧|哦|呀|的)+$")
_TRAILING_DOT = re.compile(r"\.$")


def _clean_en(value: str) -> str:
    value = _EN_STOP.sub("", value.strip())
    return _TRAILING_DOT.sub("", value).strip(" \"'")


def _clean_zh(value: str) -> str:
    value = _ZH_STOP.sub("", value.strip())
    return _ZH_TAIL.sub("", value).strip()


_QUESTION_VALUE = re.compile(r"哪|什么|多少|几|谁|吗|么|\?|？|^(?:what|which|where|who|how|when)\b", re.I)


def _is_question(value: str) -> bool:
    """Values like 哪里 / "what" come from questions ("我的城市是哪里？"), not statements."""
    return bool(_QUESTION_VALUE.search(value))


def _has_cjk(text: str) -> bool:
    # Chinese specifically: it picks the Chinese cleaning and the Chinese content templates
    return has_han(text)


# --- preference categories --------------------------------------------------------------------

_CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    (
        "preferred_courier",
        re.compile(
            r"\b(?:dhl|ups|fedex|usps|courier|sf express|express delivery)\b|顺丰|快递|京东物流|邮政|圆通|中通|申通|韵达|EMS",
            re.I,
        ),
    ),
    (
        "preferred_contact_channel",
        re.compile(
            r"\b(?:e-?mail|by phone|phone calls?|a call|text messages?|sms|whatsapp|wechat|telegram)\b|邮件|短信|电话联系|打电话|微信联系",
            re.I,
        ),
    ),
    (
        "preferred_payment",
        re.compile(
            r"\b(?:paypal|credit card|debit card|cash on delivery|alipay|apple pay)\b|支付宝|微信支付|信用卡|货到付款",
            re.I,
        ),
    ),
    (
        "preferred_language",
        re.compile(
            r"\b(?:in|speak(?:ing)?)\s+(?:english|chinese|mandarin|german|french|spanish|japanese)\b|说中文|用中文|用英文|说英语",
            re.I,
        ),
    ),
    (
        "preferred_color",
        re.compile(
            r"\b(?:red|blue|green|black|white|grey|gray|silver|gold|pink|purple|yellow|orange)\b(?!\s+(?:tea|cheese|wine))|[红蓝绿黑白灰粉紫黄橙金银]色",
            re.I,
        ),
    ),
    (
        "preferred_delivery_time",
        re.compile(r"\b(?:mornings?|afternoons?|evenings?|weekends?)\b|上午|下午|晚上|周末", re.I),
    ),
]


def _category(value: str) -> str | None:
    for key, pattern in _CATEGORIES:
        if pattern.search(value):
            return key
    return None


# --- expiry hints -----------------------------------------------------------------------------

_IN_DAYS = re.compile(r"\bin (\d{1,3}) days?\b|(\d{1,3})\s*天(?:后|之后|以后)", re.I)


def _reminder_expiry(text: str) -> timedelta:
    """Suggested lifetime for a reminder: a day past the time it mentions, else a week."""
    m = _IN_DAYS.search(text)
    if m:
        return timedelta(days=int(m.group(1) or m.group(2)) + 1)
    lowered = text.lower()
    if any(w in lowered for w in ("tonight", "today", "今天", "今晚")):
        return timedelta(days=1)
    if any(w in lowered for w in ("tomorrow", "明天")):
        return timedelta(days=2)
    if any(w in lowered for w in ("next week", "下周", "下星期")):
        return timedelta(days=8)
    if any(w in lowered for w in ("next month", "下个月")):
        return timedelta(days=35)
    return timedelta(days=7)


_TIME_WORDS = re.compile(
    r"\b(?:tomorrow|today|tonight|next (?:week|month)|in \d+ days?|on \w+day|at \d{1,2}(?::\d\d)?\s*(?:am|pm)?)\b"
    r"|明天|今天|今晚|下周|下星期|下个月|\d{1,20}天(?:后|之后|以后)",
    re.I,
)

# --- rules ------------------------------------------------------------------------------------


class MatchLike(Protocol):
    """What builders read from a match: `re.Match` itself, or `_Alias` over alternative groups."""

    def group(self, name: str | int, /) -> Any: ...

    def start(self, name: str | int, /) -> int: ...


Builder = Callable[[re.Match[str], str], ExtractedFact | None]
PartBuilder = Callable[[MatchLike, str], ExtractedFact | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One pattern and how to turn its match (and the whole turn) into a fact."""

    name: str
    pattern: re.Pattern[str]
    build: Builder


_NEGATED_BEFORE = re.compile(
    r"(?:n't|\bnot|\bnever|\bno longer|\bwould|'d|\bif)\s*(?:really\s+|really\s+)?$", re.I
)
_BAD_ATTR_VALUE = re.compile(
    r"^(?:not|no|broken|late|missing|wrong|damaged|lost|stuck|delayed|gone|empty|here|there|fine|ok|okay)\b",
    re.I,
)
_BAD_ATTR = re.compile(
    r"\border\b|\bproblem\b|\bissue\b|\bquestion\b|\bguess\b|\bpoint\b|\bbad\b|\bfault\b", re.I
)
_ORDER_ID = r"#?\s*(?P<id>[A-Za-z]{0,6}[-_]?\d[A-Za-z0-9_-]{2,})"


def _order_key(order_id: str) -> str:
    return "order_" + slug(order_id.replace("-", "_"), max_words=3)


# a phone number's exact shape: digits with the separators people type inside one (spaces, dashes,
# dots, brackets, a leading +), full-width digits included; it ends at the last digit
_PHONE = re.compile(r"\+?[(（]?\d(?:[\d\s().（）-]*\d)?")


def phone_value(raw: str) -> str | None:
    """The whole phone number at the start of ``raw`` ("138 1234 5678", "+1 (415) 555-0134"), or None
    when none starts there. A value of an exact shape takes its whole shape, not its first word."""
    m = _PHONE.match(raw.lstrip(" \t:："))
    if m is None:
        return None
    value = re.sub(r"\s+", " ", m.group(0)).strip()
    digits = sum(c.isdigit() for c in value)
    return value if 3 <= digits <= 20 else None


def _attr_en(m: MatchLike, text: str) -> ExtractedFact | None:
    attr = m.group("attr").strip()
    value = _clean_en(m.group("val"))
    if (
        not value
        or _BAD_ATTR.search(attr)
        or _BAD_ATTR_VALUE.match(value)
        or len(value) > 80
        or _is_question(value)
    ):
        return None
    if _RELATION_ATTR.match(attr):
        return None  # "my sister is a nurse" is about the sister: the attribute rule reads it
    key = normalise_key(attr)
    if key in SHAPED:
        value = SHAPED[key](m.group("val"), text) or ""
        if not value:
            return None  # "my phone is broken" is not a phone number, "my name is spelled …" no name
    kind: FactKind = "preference" if key.startswith("preferred_") else "fact"
    if kind == "fact" and key not in KNOWN_ATTRIBUTES:
        if _PROGRESSIVE.match(value) or _remark("en", attr, value, m.group(0)):
            # "my coffee is cold", "my week is crazy", "my laptop is being slow", "my brain is mush
            # today": a remark about a state of the moment (an adjective, a verb in -ing, a verdict,
            # a clause of the moment), not the value of an attribute
            return None
        # an attribute we do not know: kept, but as a weak, short-lived fact
        return ExtractedFact(
            kind,
            key,
            value,
            f"User's {attr.lower()}: {value}",
            0.55,
            0.3,
            expires_in=timedelta(days=30),
            evidence=m.group(0),
        )
    return ExtractedFact(
        kind,
        key,
        value,
        f"User's {attr.lower()}: {value}",
        0.9,
        0.7 if kind == "fact" else 0.6,
        evidence=m.group(0),
    )


# Attribute keys worth a long-lived keyed fact when said as "my X is Y".
KNOWN_ATTRIBUTES = (
    frozenset(CANONICAL.values())
    | frozenset(attributes.CUES)
    | {
        "address",
        "shipping_address",
        "birthday",
        "nickname",
        "username",
        "account_number",
        "employer",
        "company",
        "school",
        "university",
        "major",
        "nationality",
        "pronouns",
        "blood_type",
        "timezone",
        "time_zone",
        "zip_code",
        "postcode",
        "postal_code",
        "website",
        "hobby",
        "diet",
        "allergy",
        "membership_level",
        "plan",
        "subscription",
        "account",
        "passport_number",
        "license_plate",
    }
)
_RELATION_ATTR = re.compile(
    r"^(?:(?:older|younger|little|big|eldest|oldest|youngest|baby|step|twin)\s+)?(?:wife|husband|partner|spouse|"
    r"boyfriend|girlfriend|fiancee?|daughter|son|kids?|child|children|mom|mum|mother|dad|father|parents|sister|"
    r"brother|grandma|grandmother|grandpa|grandfather|friend|best friend|roommate|flatmate|boss|manager|"
    r"colleague|coworker|neighbou?r|cousin|aunt|uncle|niece|nephew|ex)$",
    re.I,
)
_PROGRESSIVE = re.compile(r"^[a-z]+ing\b", re.I)


@functools.cache
def _not_values(lang: str) -> dict[str, re.Pattern[str]]:
    """What follows "my X is" / 我的X是 or "I like" without being a lasting value
    (extract/data/not_values.*): each list as one pattern, matched at the start of the value
    (``moment_words`` anywhere in the clause, ``remark_attributes`` as the whole attribute)."""
    data = json.loads((_DATA / f"not_values.{lang}.json").read_text(encoding="utf-8"))
    out: dict[str, re.Pattern[str]] = {}
    for name, words in data.items():
        if name == "about":
            continue
        alt = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))
        if lang == "zh":  # no word boundaries in Chinese: a prefix, or the whole attribute
            out[name] = re.compile(rf"^(?:{alt})$" if name == "remark_attributes" else rf"^(?:{alt})")
        elif name == "moment_words":
            out[name] = re.compile(rf"\b(?:{alt})\b", re.I)
        else:
            out[name] = re.compile(
                rf"^(?:{alt})(?:\b|$)" if name != "remark_attributes" else rf"^(?:{alt})$", re.I
            )
    return out


def _remark(lang: str, attr: str, value: str, clause: str) -> bool:
    """A "my X is Y" of an attribute the rules do not know that remarks on the moment rather than
    gives a value: "my brain is mush today", "my life is a circus", 我的心情很好, 我的电脑是不是坏了."""
    nv = _not_values(lang)
    if nv["remark_attributes"].match(attr.strip()):
        return True
    if any(nv[k].match(value) for k in ("passing_values", "degree_words", "negation_words") if k in nv):
        return True
    # the clause the value is said in, not a later one ("my hair is brown, got it cut today")
    return bool(nv["moment_words"].search(_ONE_CLAUSE.split(clause, maxsplit=1)[0]))


_ONE_CLAUSE = re.compile(r"[,;!?，。！？；]|\.(?:\s|$)|\s(?:and|but|so|because)\s", re.I)


def _deictic(lang: str, obj: str) -> bool:
    """A like whose object is the conversation's here and now ("i love this song", "i like your
    style", 我喜欢你的回答): a reaction, not a lasting preference."""
    pattern = _not_values(lang)["deictic_objects"]
    if lang == "zh":
        return bool(pattern.match(obj))
    return bool(pattern.match(obj)) or bool(re.search(r"\b(?:you|your|u|ur)\b", obj, re.I))


def _attr_zh(m: MatchLike, text: str) -> ExtractedFact | None:
    attr = m.group("attr").strip()
    value = _clean_zh(m.group("val"))
    if not value or ("订单" in attr and "号" not in attr) or len(value) > 40 or _is_question(m.group("val")):
        return None
    key = normalise_key(attr)
    if key not in KNOWN_ATTRIBUTES and _remark("zh", attr, m.group("val"), m.group(0)):
        return None  # 我的脑子是浆糊, 我的心情今天很好: a remark of the moment
    if key in SHAPED:
        value = SHAPED[key](m.group("val"), text) or ""
        if not value:
            return None
    kind: FactKind = "preference" if key.startswith("preferred_") else "fact"
    return ExtractedFact(
        kind, key, value, f"用户的{attr}：{value}", 0.9, 0.7 if kind == "fact" else 0.6, evidence=m.group(0)
    )


@functools.cache
def _not_names(lang: str) -> frozenset[str]:
    """The words that follow "my name is" / 我叫 without being a name (extract/data/not_names.*)."""
    data = json.loads((_DATA / f"not_names.{lang}.json").read_text(encoding="utf-8"))
    return frozenset(w.casefold() for w in data["words"])


_NAME_TOKEN = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.-](?=[^\W\d_]))*\.?")
_HAN_NAME = re.compile(f"[{HAN_CLASS}·]{{1,5}}")


def name_value(raw: str, text: str) -> str | None:
    """The name at the start of ``raw`` (what follows "my name is", "call me", 我叫), or None when it
    does not look like one. A name is a run of word tokens: the first not a function word, time,
    place or adjective of the language's list (extract/data/not_names.*); in English, capitalised
    unless the writer types in lower case (a turn with no capital letter), and a further token joins
    only when capitalised and not in the list ("Ana Lopez", not "Ana tomorrow"). A Chinese name is
    one to four Han characters not starting with a listed word (我叫了外卖, 我叫你)."""
    raw = raw.lstrip(" \t:：'\"“")
    if _has_cjk(raw[:1]):
        m = _HAN_NAME.match(raw)
        if m is None or len(m.group(0)) > 4:
            return None
        value = m.group(0)
        if any(value.startswith(w) for w in _not_names("zh")):
            return None
        return value
    lowercase_writer = not any(c.isupper() for c in text)
    stop = _not_names("en")
    tokens: list[str] = []
    pos = 0
    while len(tokens) < 4:
        m = _NAME_TOKEN.match(raw, pos)
        if m is None:
            break
        token = m.group(0)
        word = token.rstrip(".").casefold()
        capital = token[:1].isupper()
        if word in stop or not (capital or (lowercase_writer and not tokens)):
            break
        tokens.append(token.rstrip(".") if len(word) > 2 else token)
        pos = m.end()
        if raw[pos : pos + 1] != " ":
            break
        pos += 1
    return " ".join(tokens) or None


def _phone(raw: str, text: str) -> str | None:
    return phone_value(raw)


# keys whose value has a shape of its own: the value is that shape read from the text, or nothing
SHAPED: dict[str, Callable[[str, str], str | None]] = {"name": name_value, "phone_number": _phone}

# keys whose value has an exact shape (a number, an address, a date, an identifier): the claim gate
# (remnant.understand.claim_gate) leaves their facts to the rules, which read the shape itself
EXACT_KEYS = frozenset(SHAPED) | {
    "email",
    "birthday",
    "address",
    "shipping_address",
    "zip_code",
    "postcode",
    "postal_code",
    "account_number",
    "passport_number",
    "license_plate",
    "username",
    "website",
}


def keyed(fact: ExtractedFact) -> bool:
    """The fact sets a known attribute of the user (diet, city, employer: a later value supersedes
    it), not a habit, a plan, a like or a copy of a clause under an attribute the rules do not know."""
    return fact.key in KNOWN_ATTRIBUTES and not fact.key.startswith(
        ("habit_", "plan_", "likes_", "preference")
    )


def exact_shape(fact: ExtractedFact) -> bool:
    """The fact's value has a shape of its own (:data:`EXACT_KEYS`), or it is an open issue (an
    order, a reminder): not a generic copy of a clause, so the claim gate does not judge it."""
    return fact.kind == "open_issue" or fact.key in EXACT_KEYS or fact.key.startswith("order_")


def _name(m: MatchLike, text: str) -> ExtractedFact | None:
    value = name_value(m.group("val"), text)
    if not value:
        return None
    return ExtractedFact("fact", "name", value, f"User's name: {value}", 0.9, 0.7, evidence=m.group(0))


def _city(m: MatchLike, text: str) -> ExtractedFact | None:
    raw = m.group("place")
    value = _clean_zh(raw) if _has_cjk(raw) else _clean_en(raw)
    value = re.sub(r"^(?:the city of|the)\s+", "", value, flags=re.I)
    if _is_question(raw[: len(value) + 2]):
        return None
    if not value or len(value) > 40 or (not _has_cjk(value) and not value[:1].isupper()):
        return None  # English place names are capitalised: "I live in fear" is not a city
    content = f"用户住在{value}" if _has_cjk(value) else f"User lives in {value}"
    return ExtractedFact("fact", "city", value, content, 0.85, 0.7, evidence=m.group(0))


def _occupation(m: MatchLike, text: str) -> ExtractedFact | None:
    raw = m.group("val")
    value = _clean_zh(raw) if _has_cjk(raw) else _clean_en(raw)
    if not value or len(value) > 40:
        return None
    content = f"用户的职业：{value}" if _has_cjk(value) else f"User works as {value}"
    return ExtractedFact("fact", "occupation", value, content, 0.8, 0.5, evidence=m.group(0))


def _likes(positive: bool) -> PartBuilder:
    def build(m: MatchLike, text: str) -> ExtractedFact | None:
        raw = m.group("obj")
        zh = _has_cjk(raw)
        value = _clean_zh(raw) if zh else _clean_en(raw)
        if not value or len(value) > 60:
            return None
        if positive and not zh and _NEGATED_BEFORE.search(text[: m.start("verb")]):
            return None  # "I would like…", "I don't like…": handled elsewhere or a request
        if _deictic("zh" if zh else "en", value):
            return None  # "i love this song", 我喜欢你的回答: a reaction to the moment
        category = _category(value)
        if category and positive:
            content = f"用户偏好：{value}" if zh else f"User prefers {value}"
            return ExtractedFact("preference", category, value, content, 0.75, 0.6, evidence=m.group(0))
        key = "likes_" + slug(re.sub(r"^to\s+", "", value, flags=re.I), max_words=4)
        if key == "likes_":
            return None
        if positive:
            content = f"用户喜欢{value}" if zh else f"User likes {value}"
        elif re.search(r"hate|dislike|stand|讨厌", m.group(0), re.I):
            content = f"用户讨厌{value}" if zh else f"User dislikes {value}"
        else:
            content = f"用户不再喜欢{value}" if zh else f"User no longer likes {value}"
        return ExtractedFact(
            "preference", key, "yes" if positive else "no", content, 0.8, 0.5, evidence=m.group(0)
        )

    return build


def _prefer(m: MatchLike, text: str) -> ExtractedFact | None:
    raw = m.group("obj")
    zh = _has_cjk(raw)
    value = _clean_zh(raw) if zh else _clean_en(raw)
    if not value or len(value) > 60:
        return None
    key = _category(value) or "preference_" + slug(
        re.sub(r"\s+(?:over|to|rather than)\s.*$", "", value), max_words=3
    )
    content = f"用户偏好：{value}" if zh else f"User prefers {value}"
    return ExtractedFact("preference", key, value, content, 0.8, 0.6, evidence=m.group(0))


# "remind me what/who/how …": a wh-clause object asks for something said ("remind me when …" is a
# time and sets a reminder)
_ASKS_WHAT = re.compile(r"(?:what|which|who|whom|whose|how|why|where)\b", re.I)


def _reminder(m: MatchLike, text: str) -> ExtractedFact | None:
    raw = m.group("what")
    zh = _has_cjk(raw)
    value = _ZH_STOP.sub("", raw.strip()) if zh else re.sub(r"^(?:to|about|that)\s+|[.!?]+$", "", raw.strip())
    if not value or (not zh and _ASKS_WHAT.match(value)):
        return None  # "remind me what we talked about?" asks for something said, sets no reminder
    topic = slug(_TIME_WORDS.sub(" ", re.sub(r"^(?:to|about|that)\s+", "", value, flags=re.I)), max_words=4)
    task = re.sub(r"^(?:to|about|that)\s+", "", value, flags=re.I)
    content = f"提醒用户：{value}" if zh else f"Remind the user to {task}"
    return ExtractedFact(
        "open_issue",
        "reminder_" + (topic or "note"),
        value,
        content,
        0.85,
        0.7,
        expires_in=_reminder_expiry(value),
        evidence=m.group(0),
    )


def _order_open(m: MatchLike, text: str) -> ExtractedFact | None:
    order_id = m.group("id")
    status = m.group("status").strip()
    zh = _has_cjk(m.group(0))
    content = f"订单{order_id}：{status}（待解决）" if zh else f"Order {order_id} {status} (open issue)"
    return ExtractedFact(
        "open_issue",
        _order_key(order_id),
        status,
        content,
        0.9,
        0.9,
        expires_in=timedelta(days=30),
        evidence=m.group(0),
    )


def _order_done(m: MatchLike, text: str) -> ExtractedFact | None:
    order_id = m.group("id")
    zh = _has_cjk(m.group(0))
    content = f"订单{order_id}已收到（已解决）" if zh else f"Order {order_id} has arrived (resolved)"
    return ExtractedFact(
        "fact",
        _order_key(order_id),
        "arrived",
        content,
        0.85,
        0.5,
        expires_in=timedelta(days=30),
        evidence=m.group(0),
    )


# --- change, habits, family, plans: what the attribute reader knows ---------------------------


@functools.cache
def _rule_words(lang: str, key: str) -> str:
    """The ``key`` words of extract/data/rules.<lang>.json as one alternation, in the file's order
    (a longer phrasing before a shorter one it starts with)."""
    words: list[str] = json.loads((_DATA / f"rules.{lang}.json").read_text(encoding="utf-8"))[key]
    return "|".join(map(re.escape, words))


# the family words an activity drops before it becomes a key, every language's in order (data)
_RELATION_WORDS = tuple(
    w
    for lang in ("en", "zh")
    for w in json.loads((_DATA / f"rules.{lang}.json").read_text(encoding="utf-8"))["relation_words"]
)
_MONTH = rf"(?:{'|'.join(ENGLISH_MONTHS)})"  # the shared month names (core/text/numerals.py)
_PLAN_TIME = re.compile(
    rf"\bnext\s+(?:{_rule_words('en', 'plan_next')})\b"
    rf"|\bthis\s+(?:coming\s+)?(?:{_rule_words('en', 'plan_this')})\b"
    rf"|\b(?:{_rule_words('en', 'plan_month_leads')})\s+{_MONTH}\b|\bafter the (?:{_rule_words('en', 'plan_after_the')})\b"
    rf"|{_rule_words('zh', 'plan_words')}|(?:[一二三四五六七八九十]{{1,2}}|\d{{1,2}})月(?:份)?(?:起|开始)?",
    re.I,
)
_PLAN_DAYS = (
    (re.compile(r"week|周|星期", re.I), 14),
    (re.compile(r"month|月", re.I), 60),
    (re.compile(r"term|semester|学期|开学|暑假|寒假|summer|winter|spring|fall|autumn", re.I), 200),
)
_HABIT = re.compile(
    rf"\bevery\s+(?:single\s+)?(?:{_rule_words('en', 'habit_every')}|{'|'.join(WEEKDAYS)})\b"
    rf"|\b(?:{_rule_words('en', 'habit_words')})\b|\bmost\s+(?:{_rule_words('en', 'habit_most')})\b"
    rf"|\bon\s+(?:{_rule_words('en', 'habit_on')})\b|{_rule_words('zh', 'habit_words')}",
    re.I,
)
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|we|we're|my|our)\b|我", re.I)
_NOT_A_STATEMENT = re.compile(
    r"[?？]|\b(?:would|could|should|can you|do you|if|maybe|might|wish|hope|please)\b|吗|如果|要是|能不能|可以吗|请",
    re.I,
)
_FILLER_WORDS = re.compile(
    r"\b(?:i|we|my|our|usually|always|normally|typically|generally|every|single|morning|day|night|evening|"
    r"weekday|week|weekend|most|days|mornings|evenings|nights|on|weekdays|weekends|mondays|tuesdays|"
    r"wednesdays|thursdays|fridays|saturdays|sundays|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"next|this|term|semester|month|year|in|from|starting|will|going|to|gonna|be|'ll|'m|are|is|then|also|"
    + _MONTH
    + r")\b|我们|我|每天|每周|每晚|每个?早上|每个?周末|平时|一般|通常|天天|下学期|下个?月|明年|下周|下星期|都|会|要|就|去",
    re.I,
)
_CLAUSE_TEXT = re.compile(r"(?:(?!\s(?:and|but|because|so)\s)[^,;!?，。！？；\n.])+", re.I)


def _plan_expiry(when: str) -> timedelta:
    for pat, days in _PLAN_DAYS:
        if pat.search(when):
            return timedelta(days=days)
    return timedelta(days=365)


_MY_X_IS_Y = re.compile(
    rf"\bmy\s+(?P<attr>[a-z][a-z' -]{{1,30}}?)\s+(?:{_rule_words('en', 'my_x_is_verbs')})\s+(?P<val>[^\n]+)",
    re.I,
)
_MY_X_IS_Y_ZH = re.compile(
    rf"我的(?P<attr>[^，,。！!？?是的]{{1,12}})(?:{_rule_words('zh', 'my_x_is_verbs')})(?P<val>[^，,。！!？?]+)"
)


def _a_remark(clause: str) -> bool:
    """The clause is a "my X is Y" that remarks on the moment (:func:`_remark`): no other rule reads
    it as a habit or a plan either ("my timing is perfect as always")."""
    en, zh = _MY_X_IS_Y.search(clause), _MY_X_IS_Y_ZH.search(clause)
    if en and normalise_key(en.group("attr")) not in KNOWN_ATTRIBUTES:
        return _remark("en", en.group("attr"), _clean_en(en.group("val")), en.group(0))
    if zh and normalise_key(zh.group("attr")) not in KNOWN_ATTRIBUTES:
        return _remark("zh", zh.group("attr"), zh.group("val"), zh.group(0))
    return False


def _about(m: MatchLike, text: str) -> ExtractedFact | None:
    """A clause no other rule took: a change of state, a habit, a family member's attribute or a
    plan, keyed by the attribute it is about ("I'm vegetarian now" → diet, 我女儿下学期转到实验小学
    → daughter_school) or, for habits and plans the reader does not know, by its activity."""
    clause = m.group(0).strip(" \t'\"")
    if len(clause) < 4 or len(clause) > 160 or _NOT_A_STATEMENT.search(clause) or _a_remark(clause):
        return None
    zh = _has_cjk(clause)
    content = f"用户：{clause}" if zh else f"User: {clause}"
    plan = _PLAN_TIME.search(clause)
    reading = attributes.read(clause)
    if reading is not None:
        if reading.hypothetical or reading.subject == "other" or reading.additive or reading.temporary:
            return None  # "this week I'm staying at my mum's in Kent" sets no city
        if reading.value is None and not reading.negated:
            return None
        if (
            reading.attribute in ("city", "employer")
            and not zh
            and reading.value
            and not re.search(r"\b" + re.escape(reading.value[:1].upper()), clause)
        ):
            return None  # English place and company names are capitalised: "I live in fear of …"
        key = reading.attribute if reading.subject == "user" else f"{reading.subject}_{reading.attribute}"
        value = reading.value or ("没有" if zh else "none")
        if key in SHAPED:
            # the value's own shape decides, not the attribute reader's span ("call me there")
            start = clause.find(value) if reading.value else -1
            shaped = SHAPED[key](clause[start:], text) if start >= 0 else None
            if not shaped:
                return None
            value = shaped
        return ExtractedFact("fact", key, value, content, 0.75, 0.6, evidence=clause)
    if not _SPEAKER.search(clause):
        return None  # "the trains run every hour": not about the user
    habit = _HABIT.search(clause)
    if habit is None and plan is None:
        return None
    subject = attributes.subject_of(clause)
    if subject == "other":
        return None
    activity = re.sub(r"\s+", " ", _FILLER_WORDS.sub(" ", clause)).strip(" ，,的了")
    for rel in _RELATION_WORDS:
        activity = activity.replace(rel, " ")
    topic = slug(activity, max_words=3)[:12].strip("_") if zh else slug(activity, max_words=3)
    if not topic:
        return None
    who = "" if subject == "user" else f"{subject}_"
    if habit is not None:
        return ExtractedFact(
            "fact", f"{who}habit_{topic}", activity or clause, content, 0.7, 0.5, evidence=clause
        )
    assert plan is not None
    when = plan.group(0)
    return ExtractedFact(
        "fact",
        f"{who}plan_{slug(when, max_words=3)}_{topic}",
        clause,
        content,
        0.7,
        0.6,
        expires_in=_plan_expiry(when),
        evidence=clause,
    )


_I = r"\b(?:I|i)"
RULES: tuple[Rule, ...] = (
    # --- open issues first: they must win over generic "my X is Y" ---
    Rule(
        "order_not_arrived",
        re.compile(
            r"\border\s*(?:number|no\.?|id)?\s*[:#]?\s*" + _ORDER_ID + r"\b[^.!?]*?"
            r"(?P<status>(?:still\s+)?(?:hasn't|has not|hasnt|didn't|did not|never|haven't|have not|not yet)\s+"
            r"(?:been\s+)?(?:arrived|arrive|come|shown up|show up|been delivered|delivered|shipped|received)"
            r"|(?:arrived|came|is|was)\s+(?:damaged|broken|late|wrong|incomplete|missing)|(?:is|was)\s+(?:lost|missing|delayed|stuck))",
            re.I,
        ),
        _order_open,
    ),
    Rule(
        "order_not_arrived_zh",
        re.compile(
            r"订单(?:号)?\s*[:：#]?\s*" + _ORDER_ID + r"[^。！？]*?"
            r"(?P<status>还没(?:有)?(?:到|收到|发货|送到|送达)|没(?:有)?收到|未收到|一直没(?:有)?到|还没到货|(?:坏了|破损|丢了|少了|发错了))"
        ),
        _order_open,
    ),
    Rule(
        "order_arrived",
        re.compile(
            r"\border\s*(?:number|no\.?|id)?\s*[:#]?\s*"
            + _ORDER_ID
            + r"\b\s+(?:has\s+|have\s+)?(?:finally\s+)?"
            r"(?:arrived|came|been delivered|was delivered|showed up)",
            re.I,
        ),
        _order_done,
    ),
    Rule(
        "order_arrived_zh",
        re.compile(
            r"订单(?:号)?\s*[:：#]?\s*" + _ORDER_ID + r"\s*(?:已经|终于)?(?:收到了|到了|送到了|已送达|已签收)"
        ),
        _order_done,
    ),
    Rule("reminder", re.compile(_I + r"?\s*(?:please\s+)?remind me (?P<what>[^\n]+)", re.I), _reminder),
    Rule("reminder_zh", re.compile(r"(?:请)?提醒我(?P<what>[^。！？\n]+)"), _reminder),
    # --- where the user lives ---
    Rule(
        "moved_to",
        re.compile(
            _I
            + r"(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\s+(?P<place>[^\n]+)"
        ),
        _city,
    ),
    Rule(
        "live_in",
        re.compile(
            _I + r"(?:\s+(?:now|currently|still))?\s+live\s+in\s+(?P<place>[^\n]+)"
            r"|\bI'm\s+(?:now\s+)?(?:based|living)\s+in\s+(?P<place2>[^\n]+)"
        ),
        lambda m, t: _city(_Alias(m, "place", "place2"), t),
    ),
    Rule(
        "moved_to_zh",
        re.compile(r"我[^，,。！!？?搬]{0,6}?搬(?:家)?(?:到|去)了?(?P<place>[^，,。！!？?\s]+)"),
        _city,
    ),
    Rule("live_in_zh", re.compile(r"我(?:现在|目前)?住在(?P<place>[^，,。！!？?\s]+)"), _city),
    Rule(
        "work_as",
        re.compile(
            r"\bI\s+(?:work|am working)\s+as\s+(?:a|an)\s+(?P<val>[^\n]+)|我是(?:一名|一个|一位)(?P<val2>[^，,。！!？?\s]{1,8})"
        ),
        lambda m, t: _occupation(_Alias(m, "val", "val2", group="val"), t),
    ),
    # --- dislikes before likes (same key, later one supersedes) ---
    Rule(
        "no_longer_like",
        re.compile(
            _I
            + r"\s+(?:don't|do not|dont)\s+(?P<verb>like|love|enjoy|want)\s+(?P<obj>.+?)\s+(?:anymore|any more|any longer)\b"
            r"|\bI\s+no\s+longer\s+(?P<verb2>like|love|enjoy|want)\s+(?P<obj2>[^\n]+)"
            r"|\bI\s+(?:stopped|quit)\s+(?P<verb3>liking|loving|enjoying)\s+(?P<obj3>[^\n]+)"
            r"|\bI\s+(?P<verb4>hate|dislike|can't stand|cannot stand)\s+(?P<obj4>[^\n]+)",
            re.I,
        ),
        lambda m, t: _likes(False)(_Alias(m, "obj", "obj2", "obj3", "obj4"), t),
    ),
    Rule(
        "no_longer_like_zh",
        re.compile(
            r"我(?:已经)?不再(?P<verb>喜欢|爱)(?P<obj>[^，,。！!？?]+)|我(?:已经|现在)?不(?P<verb2>喜欢|爱)(?P<obj2>[^，,。！!？?]+?)了|我(?P<verb3>讨厌)(?P<obj3>[^，,。！!？?]+)"
        ),
        lambda m, t: _likes(False)(_Alias(m, "obj", "obj2", "obj3"), t),
    ),
    Rule(
        "prefer",
        re.compile(r"\bI(?:'d| would)?\s+(?:really\s+)?(?P<verb>prefer|rather)\s+(?P<obj>[^\n]+)", re.I),
        _prefer,
    ),
    Rule(
        "prefer_zh",
        re.compile(
            r"我(?:更|比较)?(?P<verb>偏好|更喜欢|比较喜欢|倾向于|希望用|喜欢用)(?P<obj>[^，,。！!？?]+)"
        ),
        _prefer,
    ),
    Rule(
        "like",
        re.compile(
            r"\bI\s+(?:really\s+|also\s+|just\s+)?(?P<verb>like|love|enjoy|adore)\s+(?P<obj>[^\n]+)", re.I
        ),
        _likes(True),
    ),
    Rule(
        "like_zh",
        re.compile(
            r"我(?P<neg>不)?(?:很|非常|也|特别|真的|一直|还是)?(?P<verb>喜欢|爱)(?P<obj>[^，,。！!？?的]+)"
        ),
        lambda m, t: None if m.group("neg") or m.group("obj").endswith("了") else _likes(True)(m, t),
    ),
    # --- attributes ---
    Rule(
        "name",
        re.compile(
            r"\bmy name is (?P<val>[^\n]+)|\bcall me (?P<val2>[A-Z][^\n]*)|我叫(?P<val3>[^，,。！!？?\s]+)",
            re.I,
        ),
        lambda m, t: _name(_Alias(m, "val", "val2", "val3", group="val"), t),
    ),
    Rule(
        "my_x_is_y",
        _MY_X_IS_Y,
        _attr_en,
    ),
    Rule(
        "my_x_is_y_zh",
        _MY_X_IS_Y_ZH,
        _attr_zh,
    ),
    Rule(
        "favorite_zh",
        re.compile(r"我最喜欢的(?P<attr>[^，,。！!？?是]{1,8})是(?P<val>[^，,。！!？?]+)"),
        lambda m, t: _attr_zh(_Alias(m, "attr", group="attr", prefix="最喜欢的"), t),
    ),
    # --- last: a clause no rule above took, read for its attribute, habit or plan ---
    Rule("about", _CLAUSE_TEXT, lambda m, t: _about(m, t)),
)


class _Alias:
    """Expose whichever of several alternative named groups matched under one name.

    Alternations in one pattern cannot reuse a group name, so builders read `obj`/`place`/`val`
    through this thin view. Also used to prefix a group ("最喜欢的" + attr).
    """

    def __init__(self, m: re.Match[str], *names: str, group: str | None = None, prefix: str = "") -> None:
        self._m = m
        self._group = group or names[0]
        self._names = names
        self._prefix = prefix

    def _chosen(self) -> str:
        for n in self._names:
            if self._m.group(n) is not None:
                return n
        return self._names[0]

    def group(self, name: str | int, /) -> Any:
        if name == self._group:
            return self._prefix + (self._m.group(self._chosen()) or "")
        if name == "verb":
            for n in ("verb", "verb2", "verb3", "verb4"):
                if n in self._m.re.groupindex and self._m.group(n) is not None:
                    return self._m.group(n)
        return self._m.group(name) or ""

    def start(self, name: str | int, /) -> int:
        if name == "verb":
            for n in ("verb", "verb2", "verb3", "verb4"):
                if n in self._m.re.groupindex and self._m.group(n) is not None:
                    return self._m.start(n)
        return self._m.start(name)


_CLAUSE_END = re.compile(r"[,;!?，。！？；\n]|\.(?:\s|$)|\s(?:and|but|because|so)\s", re.I)


def _clause_end(text: str, start: int, end: int) -> int:
    # Skip the first few characters so a terminator inside an order id or email ("a.b@c") at the very
    # start does not make the claim empty.
    m = _CLAUSE_END.search(text, start + 3, end)
    return m.start() if m else end


class RuleExtractor:
    """Extract facts from a turn with `RULES`; overlapping matches go to the earlier rule.

    Only user turns carry facts about the user: `extract(text, role="assistant")` returns [].
    Within one turn the last fact per key wins ("I like tea. Actually I don't like tea anymore").
    """

    name = "rules"

    def __init__(self, rules: tuple[Rule, ...] = RULES) -> None:
        self.rules = rules

    def _matches(self, text: str) -> Iterator[tuple[int, int, ExtractedFact]]:
        claimed: list[tuple[int, int]] = []
        for rule in self.rules:
            for m in rule.pattern.finditer(text):
                # A match claims only its own clause, so "I live in Berlin and I like jazz" yields two.
                start, end = m.start(), _clause_end(text, m.start(), m.end())
                if any(s < end and start < e for s, e in claimed):
                    continue
                fact = rule.build(m, text)
                if fact is None:
                    continue
                claimed.append((start, end))
                yield start, end, fact

    def extract(self, text: str, *, role: str = "user") -> list[ExtractedFact]:
        if role != "user" or not text.strip():
            return []
        found = sorted(self._matches(text), key=lambda t: t[0])
        by_key: dict[str, ExtractedFact] = {}
        for _, _, fact in found:
            by_key.pop(fact.key, None)
            by_key[fact.key] = fact
        return list(by_key.values())
