"""What a statement is about: its attribute, its subject and its value (rules and a lexicon, EN/ZH).

"I moved to Paris" and "I live in Berlin" share no content word, yet both set the user's ``city``;
"my sister lives in Rome" sets the sister's. :func:`read` turns one statement into a
:class:`Reading` (``attribute``, ``subject``, ``value`` and a few marks: negated, changed, additive,
context, refinement) and :func:`relate` compares two readings:

- ``supersedes``: the same attribute of the same subject in the same context, and the new value
  differs (or the new statement ends the old value: "no longer at Acme", 离职了);
- ``compatible``: the same attribute but another subject or context, an additive statement
  ("also", 也, a side job), the same value again, or a refinement (city, then a neighbourhood);
- ``unrelated``: two different attributes;
- ``None``: the rules cannot tell (one statement has no known attribute, or the change has no
  value and no change word): the caller should flag rather than supersede.

It is deliberately a closed lexicon: an attribute it does not know is never guessed, so a wrong
supersession needs a wrong rule, not a loose similarity. Single-valued attributes only; things a
person has many of (pets, languages, likes) are left to the contradiction detector.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from remnant.core.memo import text_cache
from remnant.core.text import HAN_CLASS, STOPWORDS, has_han
from remnant.understand import lexicon

Relation = Literal["supersedes", "compatible", "unrelated"]

# --- subjects --------------------------------------------------------------------------------------
_REL_EN: dict[str, str] = lexicon.mapping("attributes", "relations", "en")
_REL_ZH: dict[str, str] = lexicon.mapping("attributes", "relations", "zh")
_REL_EN_RE = "|".join(sorted((re.escape(k) for k in _REL_EN), key=len, reverse=True))
_REL_ZH_RE = "|".join(sorted((re.escape(k) for k in _REL_ZH), key=len, reverse=True))
_SUBJECT_CUE = re.compile(
    rf"\b(?:my|our|the)\s+(?:(?:older|younger|little|big|eldest|oldest|youngest|baby|step|twin)\s+)?"
    rf"(?P<rel>{_REL_EN_RE})(?:'s)?\b"
    r"|\b(?P<self>i|i'm|im|i've|i'd|me|my|we|we're|we've|our|us)\b"
    r"|\b(?P<other>he|she|they|his|her|their|he's|she's|they're)\b"
    rf"|我(?:的|家)?(?P<relzh>{_REL_ZH_RE})|(?P<selfzh>我们|咱们|咱|我)|(?<![吉其])(?P<otherzh>他们|她们|他|她)",
    re.IGNORECASE,
)


def subject_of(prefix: str) -> str:
    """Whose attribute a clause sets, from the words before its predicate: the last cue wins
    ("my wife and I moved" is the user). No cue at all (a dropped subject) is the user."""
    last = None
    for m in _SUBJECT_CUE.finditer(prefix):
        last = m
    if last is None:
        return "user"
    if last.group("rel"):
        return _REL_EN[last.group("rel").lower()]
    if last.group("relzh"):
        return _REL_ZH[last.group("relzh")]
    if last.group("other") or last.group("otherzh"):
        return "other"
    return "user"


# --- value clean-up --------------------------------------------------------------------------------
_EN_END = re.compile(
    r"\s{0,64}(?:[,;!?()~]|:\s|\.(?:\s|$)|\s[-–]\s|\s(?:and|but|because|cause|cuz|so|since|though|which|when|while|"
    r"where|with|for|after|before|until|till|if|as|to|from|instead|rather|lol|lmao|haha|tbh|btw|fyi|"
    r"now|anymore|any more|these days|nowadays|again|already|last|this|next|recently|since|starting|"
    r"from now|yesterday|today|tomorrow|in (?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|spring|summer|autumn|fall|winter)|every|each|on weekdays|on weekends|"
    r"full[- ]time|part[- ]time|at the moment|right now|for now|for good)\b).*$",
    re.IGNORECASE | re.DOTALL,
)
_ZH_END = re.compile(
    r"[，,。！!？?；;、\s（(~～…]|(?:了|啦|呢|吧|哦|呀|哈|嘛|咯|的)+$|(?:以后|之后|了以后).*$"
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some)\s+", re.IGNORECASE)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    v = unicodedata.normalize("NFKC", value).strip()
    if has_han(v[:1]):
        v = re.split(r"[，,。！!？?；;、\s（(~～…]", v, maxsplit=1)[0]
        v = re.sub(r"(?:了|啦|呢|吧|哦|呀|哈|嘛|咯|的|去了|上班|工作|住)+$", "", v)
    else:
        v = _EN_END.sub("", v)
        v = _ARTICLE.sub("", v.strip(" .'\"")).strip(" .'\"")
    v = v.lower().strip()
    return v or None


# --- the lexicon ------------------------------------------------------------------------------------
ValueFn = Callable[[re.Match[str]], str | None]


@dataclass(frozen=True)
class AttrRule:
    """``pattern`` marks a predicate about ``attribute``; the value is the ``val`` group (cleaned),
    ``value`` when given (a string or a function of the match); ``negated`` ends the value."""

    attribute: str
    pattern: re.Pattern[str]
    value: str | ValueFn | None = None
    negated: bool = False
    changed: bool = False


def _v(m: re.Match[str]) -> str | None:
    return _clean(m.groupdict().get("val"))


def _lex(table: dict[str, str]) -> ValueFn:
    """A value from a small synonym table: the first key found in the match."""
    keys = sorted(table, key=len, reverse=True)

    def value(m: re.Match[str]) -> str | None:
        text = m.group(0).lower()
        for k in keys:
            if k in text:
                return table[k]
        return None

    return value


_DIET: dict[str, str] = lexicon.keyed("attributes", "values", "diet")
_COMMUTE: dict[str, str] = lexicon.keyed("attributes", "values", "commute")
_EXERCISE: dict[str, str] = lexicon.keyed("attributes", "values", "exercise_habit")
_DRINK: dict[str, str] = lexicon.keyed("attributes", "values", "drink")
_REL_STATUS: dict[str, str] = lexicon.keyed("attributes", "values", "relationship_status")
_SHIFT: dict[str, str] = lexicon.keyed("attributes", "values", "work_shift")
_WORKPLACE: dict[str, str] = lexicon.keyed("attributes", "values", "work_location")
_SMOKING: dict[str, str] = lexicon.keyed("attributes", "values", "smoking")
_ALCOHOL: dict[str, str] = lexicon.keyed("attributes", "values", "alcohol")
# each lexicon-valued attribute's words for its values (how a text names an old value)
_LEXICONS: dict[str, dict[str, str]] = {
    "diet": _DIET,
    "commute": _COMMUTE,
    "exercise_habit": _EXERCISE,
    "drink": _DRINK,
    "relationship_status": _REL_STATUS,
    "work_shift": _SHIFT,
    "work_location": _WORKPLACE,
    "smoking": _SMOKING,
    "alcohol": _ALCOHOL,
}
# a diet word followed by one of these describes the food, not the speaker's diet ("dairy-free
# desserts", "vegan ice cream", "my vegan diet group")
_DIET_FOODS = (
    "desserts?|treats?|sweets?|flavou?rs?|chocolate|vanilla|ice ?cream|icecream|cakes?|cupcakes?|cookies?|"
    "brownies?|mousse|pies?|crusts?|pastry|pastries|bread|pizza|pasta|dishe?s?|meals?|snacks?|foods?|"
    "versions?|alternatives?|substitutes?|swaps?|products?|margarine|butter|milk|cheese|yogh?urt|frosting|"
    "cream|baking|bakes?|bakery|cooking|cookbook|blog|diet group|group|community|club|"
    "for people|treat"
)
_JOBS_EN = "|".join(lexicon.words("attributes", "jobs", "en"))
_JOBS_ZH = "|".join(lexicon.words("attributes", "jobs", "zh"))
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_VAL_EN = r"(?P<val>[^\n,;!?()]{1,60})"
_VAL_ZH = r"(?P<val>[^，,。！!？?；;、\s]{1,12})"
_TIME_VAL = r"(?P<val>\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight)"
_TIME_VAL_ZH = r"(?P<val>(?:凌晨|早上|上午|中午|下午|晚上|夜里)?[\d一二两三四五六七八九十]{1,3}点(?:半|[\d一二三四五]{1,2}分?)?)"
_ZH_NUM = "[\\d一二两三四五六七八九十]"

# "moved to" + what is not a place ("moved to apple music", "moved to a standing desk", "moved to
# a new job at …"): a switch of something else, not a change of home
_NOT_PLACE = (
    r"(?!(?:[\w'-]+\s+){0,3}?(?:music|spotify|tidal|deezer|youtube|netflix|podcasts?|apps?|platform|service|"
    r"plan|tariff|provider|team|role|job|position|department|desk|chair|keyboard|laptop|phone|iphone|android|"
    r"pixel|mac|linux|windows|tea|coffee|decaf|matcha|bank|account|diet|shifts?|gym|class|course|version|"
    r"model|brand|browser|editor|ide|notion|obsidian|slack|discord|whatsapp|signal|telegram)\b)"
)
R = AttrRule
_f = re.IGNORECASE


def _c(p: str) -> re.Pattern[str]:
    return re.compile(p, _f)


RULES: tuple[AttrRule, ...] = (
    # -- contact and accounts ----------------------------------------------------------------------------
    R("phone_number", _c(r"\b(?:number|phone|cell|mobile)\b[^\d\n]{0,25}(?P<val>\+?\d[\d\s().-]{5,}\d)")),
    R(
        "phone_number",
        re.compile(r"(?:手机号?(?:码)?|电话(?:号码)?|号码)[^\d\n]{0,8}(?P<val>\+?\d[\d\s-]{5,}\d)"),
    ),
    R("email", _c(r"(?<![\w.+-])(?P<val>[\w.+-]++@[\w-]+\.[\w.]+)")),
    # -- where one lives -----------------------------------------------------------------------------
    R(
        "birthplace",
        _c(
            r"\b(?:was|were) born (?:and raised )?in "
            + _VAL_EN
            + r"|\bgrew up in "
            + _VAL_EN.replace("val", "val2")
        ),
    ),
    R(
        "birthplace",
        _c(
            r"出生(?:在|于)"
            + _VAL_ZH
            + r"|(?:在)?"
            + _VAL_ZH.replace("val", "val2")
            + r"出生|老家(?:是|在)"
            + _VAL_ZH.replace("val", "val3")
        ),
    ),
    R(
        "city",
        _c(
            r"\b(?:moved|moving|relocated|relocating|move|relocate)\s+(?:back\s+|over\s+|out\s+)?(?:to|into)\s+"
            + _NOT_PLACE
            + _VAL_EN
        ),
        changed=True,
    ),
    R(
        "city",
        _c(
            r"\b(?:live|living|lives|based|settled|residing|reside|resides|located|staying)\s+(?:now\s+|currently\s+|over\s+|out\s+|full[- ]time\s+)?(?:in|at)\s+(?!fear\b|hope\b|denial\b|peace\b|the moment\b|the past\b|harmony\b|luxury\b|poverty\b|comfort\b|style\b|sin\b|dread\b)"
            + _VAL_EN
        ),
    ),
    R("city", _c(r"\b(?:home|home base)\s+is\s+(?:now\s+)?(?:in\s+)?" + _VAL_EN)),
    R("city", re.compile(r"搬(?:家)?(?:到|去|回|来)(?:了)?" + _VAL_ZH), changed=True),
    R("city", re.compile(r"(?:住在|住到|住进|定居(?:在|于)?|安家(?:在)?|落户(?:在)?)" + _VAL_ZH)),
    # 我住杭州 (住 without 在; not 住院, 住校, 住学校宿舍, 住了…)
    R(
        "city",
        re.compile(
            r"我(?:现在|目前|一直)?住(?![院校学了着得的过不在进到宿酒])(?P<val>[^，,。！!？?；;、\s]{2,12})"
        ),
    ),
    # "send it to my new place: 220 Harbor Road": a new home's address
    R(
        "city",
        _c(
            r"\b(?:my|our)\s+new\s+(?:place|flat|apartment|house|home|address)\b(?:\s+is)?(?:\s+(?:at|in|on))?\s*:?\s*"
            + _VAL_EN
        ),
        changed=True,
    ),
    R(
        "city",
        re.compile(
            r"(?:现在|目前|如今)(?:在|住)(?P<val>(?:(?!上班|工作|上学|打工|实习|读|学|做|当|干|开|公司|店|厂|交|办|买|用)[^，,。！!？?；;、\s]){1,12}?)"
            + r"(?:住|生活|定居)?了?(?=$|[，,。！!？?\s])"
        ),
    ),
    R("city", re.compile(r"在" + _VAL_ZH + r"(?:生活|定居|安家)")),
    # -- getting around --------------------------------------------------------------------------------
    R(
        "commute",
        _c(
            r"\b(?:drive|driving|bike|biking|cycle|cycling|walk|walking|ride|riding|scooter|carpool)\s+(?:my\s+\w+\s+)?(?:to|in to|into)\s+(?:work|the office|school|campus)\b|\b(?:take|taking|catch|catching|ride|riding|hop on)\s+(?:the\s+)?(?:bus|train|subway|metro|tube|tram|ferry|an? uber|a taxi)\s+(?:to|in to|into)\s+(?:work|the office|school|campus)\b|\bcommute\s+(?:is\s+)?(?:by|on)\s+(?:\w+\s+)?(?:bus|train|subway|metro|tube|tram|ferry|bike|car|foot)\b"
        ),
        value=_lex(_COMMUTE),
    ),
    R(
        "commute",
        re.compile(
            r"(?:开车|自驾|骑(?:自行|电动)?车|骑电动车|走路|步行|坐地铁|搭地铁|乘地铁|挤地铁|坐公交|乘公交|打车|坐高铁|坐班车)(?:去)?(?:上班|通勤|去公司|上学)|(?:上班|通勤)(?:都|就|一般|现在)?(?:是|靠|用|改成|换成|改)?(?:开车|自驾|骑(?:自行|电动)?车|骑电动车|走路|步行|坐地铁|地铁|坐公交|公交|打车|高铁|班车)"
        ),
        value=_lex(_COMMUTE),
    ),
    # -- work ------------------------------------------------------------------------------------------
    R(
        "employer",
        _c(r"\b(?:(?:no longer|not)\s+work(?:ing)?\s+(?:at|for)|no longer\s+(?:at|with))\s+" + _VAL_EN),
        negated=True,
    ),
    R(
        "employer",
        _c(
            r"\b(?:left|quit|leaving|quitting)\s+(?:my (?:job|position|role) (?:at|with)\s+)?"
            + r"(?-i:(?P<val>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*))"
        ),
        negated=True,
    ),
    # "left my job at the council": the ending names the employer it ends, in any case
    R(
        "employer",
        _c(r"\b(?:quit|left|leaving|quitting)\s+my\s+(?:job|position|role)\s+(?:at|with)\s+" + _VAL_EN),
        negated=True,
    ),
    R(
        "employer",
        _c(
            r"\b(?:quit|left|lost|leaving|quitting)\s+my\s+(?:job|position|role)\b|\b(?:got|was|been|being)\s+(?:laid off|fired|let go|made redundant|sacked)\b|\bunemployed\b|\bbetween jobs\b|\bout of work\b|\bjob ?hunting\b"
        ),
        value=None,
        negated=True,
    ),
    R(
        "employer",
        _c(r"\b(?:work|working|works|worked)\s+(?:now\s+)?(?:at|for)\s+(?!home\b|myself\b)" + _VAL_EN),
    ),
    R(
        "employer",
        _c(
            r"\b(?:joined|joining|(?:started|starting|start)\s+(?:a\s+new\s+job\s+|a\s+job\s+|work(?:ing)?\s+|my\s+new\s+job\s+)?(?:at|with)|(?:got|landed|took|accepted|have)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|offer|position|role)\s+(?:at|with)|hired\s+(?:at|by)|employed\s+(?:at|by)|new\s+job\s+(?:at|with)|now\s+at|switched\s+(?:jobs|companies)\s+to|moved\s+to\s+a\s+new\s+job\s+at)\s+"
            + _VAL_EN
        ),
        changed=True,
    ),
    R(
        "employer",
        _c(
            r"\b(?:got|have|found|started|start)\s+(?:a|my)\s+new\s+job\b|\bchanged\s+jobs\b|\bswitched\s+jobs\b"
        ),
        value=None,
        changed=True,
    ),
    R(
        "work_location",
        _c(
            r"\b(?:work(?:ing)?|now)\s+(?:from home|remotely|remote|hybrid|in the office|on ?site)\b|\bback (?:to|in) the office\b|\bwfh\b|\bfully remote\b|\bgone remote\b"
        ),
        value=_lex(_WORKPLACE),
    ),
    R(
        "work_location",
        re.compile(r"在家办公|居家办公|远程办公|在家上班|回公司上班|去公司上班|坐班|去办公室上班"),
        value=_lex(_WORKPLACE),
    ),
    # 从阿里离职 / 辞去了阿里的工作: the ending names the employer it ends
    R(
        "employer",
        re.compile(
            r"从(?P<val>[^，,。！!？?；;、\s从]{1,12}?)(?:离职|辞职|跳槽|被裁)|辞去了?(?P<val2>[^，,。！!？?；;、\s]{1,12}?)的(?:工作|职位)"
        ),
        negated=True,
    ),
    R(
        "employer",
        re.compile(r"(?:离职|辞职|被裁|裁员|失业|待业|没工作|丢了工作|不干了)"),
        value=None,
        negated=True,
    ),
    R("employer", re.compile(r"不(?:在|去)" + _VAL_ZH + r"(?:上班|工作|干)了"), negated=True),
    R(
        "employer",
        re.compile(r"(?:去|进)(?P<val>[^，,。！!？?；;、\s]{2,12}?)(?:上班|工作|任职|实习)"),
        changed=True,
    ),
    R(
        "employer",
        re.compile(
            r"(?:跳槽到|跳槽去|入职(?:了)?|加入(?:了)?|换到|调到)"
            + r"(?P<val>[^，,。！!？?；;、\s]{2,12}?)(?:上班|工作|任职|实习|公司|了|$|[，,。！!？?\s])"
        ),
        changed=True,
    ),
    # 现在在字节上班: the 在 of 现在 is not the preposition
    R(
        "employer",
        re.compile(r"(?<!现)在(?!家)(?P<val>[^，,。！!？?；;、\s]{2,12}?)(?:上班|工作|任职|打工|实习)"),
    ),
    # 我在腾讯做运营: where one works, said with the job
    R(
        "employer",
        re.compile(
            r"(?<!现)在(?!家|一家|一个|某)(?P<val>[^，,。！!？?；;、\s]{2,8}?)(?:做|当)(?:一名|一个|个|名)?(?:"
            + _JOBS_ZH
            + r")"
        ),
    ),
    R(
        "employer",
        re.compile(r"(?:换了?(?:个|份)?(?:新)?工作|找到(?:了)?(?:新)?工作|新工作)"),
        value=None,
        changed=True,
    ),
    R(
        "work_shift",
        _c(
            r"\b(?:night|day|early|late|evening|graveyard|rotating)\s+shifts?\b|\bwork(?:ing)?\s+(?:nights|days)\b"
        ),
        value=_lex(_SHIFT),
    ),
    R("work_shift", re.compile(r"夜班|白班|早班|晚班|中班|倒班|三班倒"), value=_lex(_SHIFT)),
    R("occupation", _c(r"\b(?:retired|in retirement)\b"), value="retired"),
    R("occupation", re.compile(r"退休"), value="retired"),
    R(
        "occupation",
        _c(
            r"\b(?:work(?:ing)?|employed|started|hired|job)\s+as\s+(?:an?\s+)?(?P<val>(?:\w+\s+){0,2}?(?:"
            + _JOBS_EN
            + r"))\b"
        ),
    ),
    R(
        "occupation",
        _c(
            r"\b(?:i'm|im|i am|is|she's|he's|became|become|becoming|retrained as|qualified as|now)\s+(?:now\s+)?(?:an?\s+)(?:full[- ]time\s+|part[- ]time\s+|new\s+|qualified\s+|licensed\s+|senior\s+|junior\s+|head\s+)?(?P<val>(?:(?!now\b)\w+\s+)?(?:"
            + _JOBS_EN
            + r"))\b(?!\s+(?:friend|by|in spirit))"
        ),
    ),
    R(
        "occupation",
        re.compile(
            r"(?:是|当(?:了)?|做(?:了)?|干|改行(?:做|当)?|转行(?:做|当)?|成为(?:了)?|成了)(?:一名|一个|一位|个|名)?(?P<val>"
            + _JOBS_ZH
            + r")"
        ),
    ),
    # -- food and drink ------------------------------------------------------------------------------
    R(
        "diet",
        _c(
            r"\b(?:vegetarian|veggie|vegan|pescatarian|pescetarian|keto|paleo|low[- ]carb|gluten[- ]free|dairy[- ]free|carnivore|plant[- ]based|halal|kosher|omnivore|intermittent fasting)\b(?!\s+(?:restaurant|place|option|menu|recipe|friend|sister|brother|cafe|burger|"
            + _DIET_FOODS
            + r"))|\b(?:stopped|quit|gave up)\s+(?:eating\s+)?meat\b|\b(?:don't|dont|no longer)\s+eat\s+meat\b|\b(?:eat|eating)\s+meat\b|\beat\s+(?:pretty much\s+|just about\s+|basically\s+)?(?:everything|anything)\b"
        ),
        value=_lex(_DIET),
    ),
    R(
        "diet",
        re.compile(
            r"什么都吃|不再吃肉|吃素|素食|不吃肉|戒肉|纯素|开荤|生酮|轻断食|断食|低碳饮食|(?:又|开始|恢复)吃肉"
        ),
        value=_lex(_DIET),
    ),
    # quitting a drink ends that drink, not another one ("quit caffeine" says nothing of "I drink
    # tea"): negated, with what was quit as the value
    R(
        "drink",
        _c(
            r"\b(?:quit|gave up|cut out|stopped drinking|no longer drink)\s+(?P<val>coffee|caffeine|tea|decaf|matcha)\b"
        ),
        value=_lex({**_DRINK, "caffeine": "caffeine"}),
        negated=True,
    ),
    R(
        "drink",
        re.compile(r"(?:戒了?|不再喝|不喝)(?:了)?(?:低因)?(?:咖啡|咖啡因|奶茶|绿茶|红茶|茶|豆浆|牛奶)"),
        value=_lex({**_DRINK, "咖啡因": "caffeine"}),
        negated=True,
    ),
    R(
        "drink",
        _c(
            r"\b(?:switched|switching|moved|changed)\s+(?:over\s+)?to\s+(?P<val>decaf|coffee|tea|green tea|black tea|herbal tea|matcha|espresso|oat lattes?|lattes?)\b|\b(?:drink|drinking|have|having|need)\s+(?:\w+\s+){0,3}?(?P<val2>decaf|coffee|espresso|lattes?|cappuccinos?|green tea|black tea|tea|matcha)\b(?!\s+(?:shop|place|with))"
        ),
        value=_lex(_DRINK),
    ),
    R(
        "drink",
        re.compile(
            r"(?:改喝|换成|只喝|每天(?:都)?喝|早上(?:都)?喝|天天喝)(?:了)?(?:低因)?(?:咖啡|奶茶|绿茶|红茶|茶|豆浆|牛奶|白开水)"
        ),
        value=_lex(_DRINK),
    ),
    # -- daily rhythm ----------------------------------------------------------------------------------
    R(
        "wake_time",
        _c(
            r"\b(?:wake|waking|woke|get|getting|got)\s+up\s+(?:at|around|by|before)\s+"
            + _TIME_VAL
            + r"|\balarm\s+(?:is\s+)?(?:set\s+)?(?:for|at)\s+"
            + _TIME_VAL.replace("val", "val2")
        ),
    ),
    R("wake_time", re.compile(_TIME_VAL_ZH + r"(?:左右|多|前)?(?:就)?(?:起床|起)")),
    R(
        "bedtime",
        _c(
            r"\b(?:go|going|get|head|went)\s+to\s+(?:bed|sleep)\s+(?:at|around|by|before)\s+"
            + _TIME_VAL
            + r"|\b(?:in bed|asleep|lights out)\s+(?:at|around|by|before)\s+"
            + _TIME_VAL.replace("val", "val2")
            + r"|\bbedtime\s+is\s+(?:at\s+|around\s+)?"
            + _TIME_VAL.replace("val", "val3")
        ),
    ),
    R("bedtime", re.compile(_TIME_VAL_ZH + r"(?:左右|多|前|以后)?(?:就|才|再)?(?:睡觉|睡|上床)")),
    R(
        "exercise_habit",
        _c(
            r"\b(?:i|we|now|usually|always|often)\s+(?:\w+\s+)?(?:run|jog|swim|lift|cycle|climb|hike|row|box)\b(?!\s+(?:a|an|the|my|our|out|into|late|errands|things|it|low|away|over))|\b(?:go|going|went)\s+(?:to\s+(?:the\s+)?)?(?:gym|yoga|pilates|spin|crossfit|boxing|swimming|running|jogging|climbing|bouldering|hiking)\b|\b(?:do|doing)\s+(?:yoga|pilates|crossfit|weights)\b|\b(?:switched|moved|changed)\s+(?:over\s+)?to\s+(?:running|swimming|yoga|pilates|cycling|the gym|climbing|boxing)\b|\b(?:running|swimming|yoga|pilates|cycling|gym|climbing)\s+(?:every|each|\d+\s*(?:x|times))\b"
        ),
        value=_lex(_EXERCISE),
    ),
    R(
        "exercise_habit",
        re.compile(
            r"(?:每天|天天|每周|每晚|每早|早上|晚上|周末|平时|一般|经常|坚持|开始|改成|换成|改|去)(?:都|会|要|去|在)?(?:跑步|慢跑|夜跑|晨跑|游泳|健身|撸铁|瑜伽|普拉提|骑行|爬山|打羽毛球|羽毛球|打篮球|打网球|跳舞|广场舞|散步|攀岩|跳绳|太极)"
        ),
        value=_lex(_EXERCISE),
    ),
    # -- people ------------------------------------------------------------------------------------------
    R(
        "relationship_status",
        _c(
            r"\b(?:i'm|im|i am|we're|we are|got|getting|just got|now|recently)\s+(?:now\s+)?(?:single|married|engaged|divorced|separated|widowed|dating|seeing someone|in a relationship)\b|\b(?:broke up|split up)\b"
        ),
        value=_lex(_REL_STATUS),
    ),
    R(
        "relationship_status",
        re.compile(r"单身|结婚了|已婚|领证|订婚|离婚|离了婚|分手|分了|脱单|恋爱了|有对象了"),
        value=_lex(_REL_STATUS),
    ),
    # a weight said with its unit or on the scale, before the age rule reads "i'm 92 kilos" as an age
    R(
        "weight",
        _c(
            r"\b(?:i'm|im|i am|i'm now|down to|up to)\s+(?:about\s+|around\s+)?(?P<val>\d{2,3}(?:\.\d)?)\s*(?:kg|kgs|kilos|lbs|pounds)\b"
            r"|\bweigh(?:ed|s)\s+(?:in\s+)?(?:at\s+)?(?:about\s+|around\s+)?(?P<val2>\d{2,3}(?:\.\d)?)"
            r"|\b(?:on|stepped on) the scales?\b[^\d\n]{0,25}(?P<val3>\d{2,3}(?:\.\d)?)\b"
        ),
    ),
    # 我现在130斤, 称了一下112 (not 瘦了10斤, a change by, nor 一袋50斤的米, a sack's weight)
    R(
        "weight",
        re.compile(
            r"(?:我(?:现在|目前)?|现在|目前|已经|只有|才|快|都)(?P<val>\d{2,3}(?:\.\d)?)\s*(?:斤|公斤)|称了?(?:一下|下)?(?:是|有)?(?P<val2>\d{2,3}(?:\.\d)?)"
        ),
    ),
    # pay: "I make about 65k", "I'm on 32k", "paid $18 an hour", 月薪一万二, 到手一万五, 一个小时十八块
    R(
        "salary",
        _c(
            r"\b(?:make|making|earn|earning)\s+(?:about\s+|around\s+|roughly\s+|like\s+)?(?P<val>[$€£]?\d[\d,.]*\s*k)\b"
            r"|\b(?:i'm on|salary is|base is|base salary is)\s+(?:now\s+)?(?:about\s+|around\s+)?(?P<val2>[$€£]?\d[\d,.]*k?)\b"
            r"|\bpaid\s+(?P<val3>[$€£]\d[\d,.]*)\s+(?:an|per|a)\s+(?:hour|year|month)\b"
        ),
    ),
    R(
        "salary",
        re.compile(
            r"(?:月薪|年薪|工资|到手|年包|时薪|底薪)(?:是|有|涨到|现在|大概|差不多|才|能有)?(?P<val>[\d一二两三四五六七八九十百千万.]{2,6}(?:块|元|k|w)?)"
            r"|一个小时(?P<val2>[\d一二两三四五六七八九十]{1,4})块"
        ),
    ),
    R(
        "age",
        _c(
            r"\b(?:i'm|im|i am|is|turned|turning|turns|she's|he's)\s+(?:now\s+|just\s+)?(?P<val>\d{1,3})(?:\s*(?:years?|yrs?)(?:\s+old)?)?(?![\d:.'\u2032\u2033]|\s*(?:am|pm|%|kg|lbs?|k\b|cm|minutes?|mins?|hours?|days?|weeks?|months?))\b"
        ),
    ),
    R("age", re.compile(r"(?:今年|已经|现在|刚满|满)?(?P<val>" + _ZH_NUM + r"{1,3})(?:周)?岁")),
    R(
        "school",
        _c(
            r"\b(?:goes|go|going|started|starts|start|starting|attends|attend|attending|enrolled|transferred|transfers|transferring|switching|switched|moving|moved|changing)\s+(?:schools?\s+)?(?:to|at|in)\s+(?P<val>[^\n,;!?()]{1,50}?\b(?:school|elementary|primary|academy|kindergarten|preschool|pre-k|nursery|daycare|high|college|university|uni|montessori))\b"
        ),
    ),
    R(
        "school",
        re.compile(
            r"(?:在|去|上|读|进|转(?:学)?到|转去|换到|考上了?)(?P<val>[^，,。！!？?；;、\s]{1,12}?(?:小学|中学|初中|高中|幼儿园|托儿所|学校|大学|学院|寄宿学校|国际学校))"
        ),
    ),
    R(
        "grade",
        _c(
            r"\b(?:in|into|starts?|starting|entering|going into)\s+(?P<val>(?:1st|2nd|3rd|\dth|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\s+grade|year\s+\d{1,2}|grade\s+\d{1,2})\b"
        ),
    ),
    R("grade", re.compile(r"(?:上|读|升)(?P<val>(?:小学|初中|高中)?[一二三四五六1-6](?:年级))")),
    R(
        "bank",
        _c(
            r"\b(?:bank|banking)\s+(?:is\s+|with\s+|at\s+)(?:now\s+)?"
            + _VAL_EN
            + r"|\bswitched\s+(?:banks?|my\s+bank(?:ing)?|accounts?)\s+(?:over\s+)?to\s+"
            + _VAL_EN.replace("val", "val2")
            + r"|\bmy\s+(?:main\s+)?bank\s+(?:account\s+)?is\s+(?:now\s+)?(?:with\s+|at\s+)?"
            + _VAL_EN.replace("val", "val3")
        ),
    ),
    R("bank", re.compile(r"(?:用|换到|换成|在)(?P<val>[^，,。！!？?；;、\s]{1,8}银行)")),
    R(
        "phone_model",
        _c(
            r"\b(?:switched|moved|changed)\s+(?:over\s+)?to\s+(?:an?\s+)?(?P<val>iphone|android|pixel|samsung|galaxy)\b|\b(?:use|using|got|have|bought)\s+(?:an?\s+)?(?:new\s+)?(?P<val2>iphone|android phone|pixel|samsung|galaxy)\b"
        ),
    ),
    R(
        "car",
        _c(
            r"\b(?:drive|driving|drove)\s+(?:an?\s+)(?!lot\b|bit\b)(?P<val>[\w-]+(?:\s+[\w-]+)?)|\b(?:bought|got|traded in for|leased)\s+(?:an?\s+)?(?:new\s+|used\s+)?(?P<val2>tesla|toyota|honda|bmw|audi|volvo|ford|kia|hyundai|vw|volkswagen|mazda|subaru|prius|jeep|mini|skoda|nissan|ev|electric car)\b|\bsold\s+(?:my|the)\s+car\b"
        ),
    ),
    R(
        "smoking",
        _c(
            r"\b(?:quit|stopped|gave up)\s+smoking\b|\b(?:don't|dont|no longer)\s+smoke\b|\bnon-smoker\b|\b(?:i|still)\s+smoke\b|\bsmoker\b|\bvap(?:e|ing)\b"
        ),
        value=_lex(_SMOKING),
    ),
    R("smoking", re.compile(r"戒烟|不抽烟|不吸烟|抽烟|吸烟|电子烟"), value=_lex(_SMOKING)),
    R(
        "alcohol",
        _c(
            r"\b(?:quit|stopped)\s+drinking\b|\bsober\b|\bteetotal\b|\bdry january\b|\b(?:don't|dont)\s+drink\b(?!\s+(?:coffee|tea|milk|soda))"
        ),
        value=_lex(_ALCOHOL),
    ),
    R("alcohol", re.compile(r"戒酒|不喝酒"), value=_lex(_ALCOHOL)),
    R(
        "weight",
        _c(
            r"\bweigh(?:ing)?\s+(?:in\s+at\s+)?(?:now\s+)?(?P<val>\d{2,3}(?:\.\d)?\s*(?:kg|kgs|kilos|lbs?|pounds|stone)?)"
        ),
    ),
    R("weight", re.compile(r"体重(?:是|有|现在|已经)?(?P<val>\d{2,3}(?:\.\d)?\s*(?:公斤|斤|kg)?)")),
    R(
        "rent",
        _c(
            r"\brent\s+(?:is|went up to|goes up to|is now|costs?)\s+(?:now\s+)?(?P<val>[$€£]?\s?\d[\d,.]*\s*(?:euros?|dollars?|pounds?|k)?)|\bpay\s+(?P<val2>[$€£]?\s?\d[\d,.]*\s*(?:euros?|dollars?|pounds?|k)?)\s+(?:a month\s+)?(?:in|for)\s+rent\b"
        ),
    ),
    R("rent", re.compile(r"房租(?:是|涨到|降到|现在|每月|一个月)?(?P<val>\d[\d,.]*\s*(?:元|块|k)?)")),
    R(
        "name",
        _c(
            r"\bmy name is\s+"
            + _VAL_EN
            + r"|\b(?:call me|go by)\s+(?!on\b|at\b|back\b|later\b|tomorrow\b|if\b|when\b|anytime\b)"
            + _VAL_EN.replace("val", "val2")
        ),
    ),
    R("name", re.compile(r"(?:我叫|叫我|我的名字是|改名(?:叫|为)?)" + _VAL_ZH)),
    R(
        "favorite",
        _c(
            r"\bfavou?rite\s+(?P<fav>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+(?:now\s+)?"
            + _VAL_EN
            + r"|"
            # the value starts at a word, not at any space of a run (every start read the whole run)
            + r"(?P<val2>[\w'-][\w' -]{0,29}?)\s+is\s+(?:now\s+)?my\s+(?:new\s+)?favou?rite\s+(?P<fav2>[a-z]+)"
        ),
    ),
    R("favorite", re.compile(r"最喜欢的(?P<fav>[^，,。！!？?是]{1,6})(?:是|变成了?|换成了?)" + _VAL_ZH)),
)

_MONTH_NAMES = re.compile(rf"\b(?:{_MONTHS})\b", re.I)
_ADDITIVE = re.compile(
    r"\b(?:also|too|as well|another|second (?:job|home|place|house|flat|apartment)|on the side|side (?:job|gig|hustle)|"
    r"part[- ]time|in addition|plus|besides|sometimes|occasionally)\b|也|另外|兼职|副业|还有|同时|偶尔|有时",
    re.I,
)
_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|switched|switching|changed|changing|new|no longer|anymore|any more|started|starting|"
    r"quit|stopped|gave up|moved|moving|became|turned|since|not .* anymore|used to|instead)\b|现在|改|换|不再|开始|已经|如今|搬|转",
    re.I,
)
_REFINEMENT = re.compile(
    r"\b(?:neighbou?rhood|district|area|part of|side of|near|close to|downtown|uptown|suburbs?|borough|quarter|"
    r"street|avenue|road|block|building|apartment|flat|floor|village)\b|区|附近|小区|那边|一带|街|路|楼|栋|号",
    re.I,
)
_CONTEXT = (
    (
        "weekend",
        re.compile(
            r"\bweekends?\b|\bsaturdays\b|\bsundays\b|\bevery (?:saturday|sunday)\b|周末|周六|周日|星期六|星期天|星期日",
            re.I,
        ),
    ),
    ("weekday", re.compile(r"\bweekdays?\b|\bworkdays?\b|\bschool nights?\b|工作日|上班的时候|平日", re.I)),
    (
        "work",
        re.compile(
            r"\b(?:work|office|business|company)\s+(?:phone|number|email|e-mail|mail|cell|mobile|address|laptop)\b|工作(?:手机|电话|邮箱|号)|公司(?:电话|邮箱|手机)|办公(?:电话|邮箱)",
            re.I,
        ),
    ),
    (
        "personal",
        re.compile(
            r"\b(?:personal|private|own|home)\s+(?:phone|number|email|e-mail|mail|cell|mobile)\b|私人|个人(?:手机|邮箱|电话)",
            re.I,
        ),
    ),
    ("summer", re.compile(r"\bsummers?\b|夏天|暑假", re.I)),
    ("winter", re.compile(r"\bwinters?\b|冬天|寒假", re.I)),
    ("vacation", re.compile(r"\bon (?:holiday|vacation)\b|\bwhile travel+ing\b|度假|旅游的时候|出差", re.I)),
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|would|might|maybe|thinking (?:about|of)|considering|wish|hope to|want to|wanna|planning to|plan to|"
    r"should i|could i|do you|can you|what if|dream of|someday|one day)\b|如果|要是|想要|打算|考虑|也许|可能|希望|吗[？?]?$|[？?]\s*$",
    re.I,
)
_ENDABLE = frozenset({"city", "employer", "school", "bank", "car", "work_location", "work_shift"})
_ENDED = re.compile(
    r"\bno longer\b|\b(?:don't|dont|doesn't|do not|does not)\b.*\b(?:anymore|any more)\b|不再|不(?:在|去)",
    re.I,
)
# an ending anywhere in a statement, for ``Reading.ends_other`` (不…了: 不踢了, 不去了)
_ENDS_ELSEWHERE = re.compile(
    r"\b(?:no longer|not (?:\w+ )?any ?more|quit|left|resigned|laid off|let go|fired|moved out of|"
    r"broke up|split up|gave up|stopped|dropped out)\b|\b(?:don't|dont|doesn't|do not|does not)\b.*\b(?:anymore|any more)\b|"
    r"不再|离职|辞职|辞了|分手|戒了|不干了|搬走|不[^，,。！!？?\s]{1,3}了(?=$|[，,。！!？?\s])",
    re.I,
)
# a shift is often said as part of the job ("我是夜班保安", "在儿科病房，三班倒"): a new one replaces
# the old only with a change cue ("switched to days", 改成晚班了)
_NEEDS_CUE = frozenset({"work_shift"})
# what a value ends, where it ends only some of the old ones
_ENDS_ONLY: dict[tuple[str, str], frozenset[str]] = {
    ("relationship_status", "broken up"): frozenset({"dating", "engaged"}),
}
_CLAUSE = re.compile(r"[.!?;。！？；\n]+\s*|,\s*(?:but|and then|then)\s+|，(?:但是|但|不过|后来)")


@dataclass(frozen=True)
class Reading:
    """One statement's attribute, subject and value, and the marks :func:`relate` needs."""

    attribute: str
    subject: str
    value: str | None
    negated: bool = False
    changed: bool = False
    additive: bool = False
    context: frozenset[str] = frozenset()
    refinement: bool = False
    hypothetical: bool = False
    # the statement's text (lower case) when it also ends something outside what the rule read
    # ("quit Shopify and started at Stripe", 球不踢了，改游泳了): it replaces what it ends, so an
    # old value it does not name is not known to be replaced
    ends_other: str | None = None
    # an exception for a while ("this week I'm staying at my mum's", 这两天只能打车): not a change
    temporary: bool = False


def _value(rule: AttrRule, m: re.Match[str]) -> str | None:
    if callable(rule.value):
        return rule.value(m)
    if isinstance(rule.value, str):
        return rule.value
    groups = m.groupdict()
    for name in ("val", "val2", "val3"):
        if groups.get(name):
            return _clean(groups[name])
    return None


def _attribute(rule: AttrRule, m: re.Match[str]) -> str:
    if rule.attribute != "favorite":
        return rule.attribute
    g = m.groupdict()
    fav = (g.get("fav") or g.get("fav2") or "").strip().lower()
    fav = {"colour": "color", "颜色": "color", "色": "color"}.get(fav, fav)
    return "favorite_" + re.sub(r"\W+", "_", fav).strip("_") if fav else "favorite"


# a Chinese clause whose subject, right before the predicate, is someone else: 王医生退休了,
# 宝宝上周出生了, 我老婆在阿里上班 (a relation word said without 我 is someone else too)
_OTHER_SUBJECT_ZH = re.compile(
    rf"(?:(?<!我)(?<!我的)(?<!我家)(?:{_REL_ZH_RE})|[{HAN_CLASS}]{{1,2}}(?:医生|主任|老师|经理|总|师傅|阿姨|叔叔|大夫|教练|老板|同学)"
    r"|宝宝|孩子|娃|闺女|小孩)(?:上周|昨天|最近|已经|也|都|刚|刚刚|去年|今年|前几天|终于)*$"
)
# "got moved to the cardiac ward", "我们家两个娃，一个五岁": not where the user lives, not their age
_NOT_A_MOVE = re.compile(
    r"\b(?:got|get|gets|been|was|were|being)\s+moved\b|\bmoved\s+to\s+(?:the\s+)?\w+\s+(?:ward|team|department|unit|floor|shift)\b",
    re.I,
)
# 在 before an activity, not a place: 现在在看《漫长的季节》, 在家跟着帕梅拉练, 在学日语
_NOT_A_PLACE_ZH = re.compile(
    r"家(?:$|里|中|跟|练|办|带|待|休|躺)|看|学|追|做|练|读|写|玩|忙|准备|找|吃|喝|听|用|考虑|等"
)
# the past said of the predicate: "used to live in", "back when I worked at", 以前在…, 实习过
_PAST_BEFORE = re.compile(
    r"\b(?:used to|back when|when i was (?:a kid|young|little|a student)|years ago|formerly)\b[^,;]{0,12}$|以前|曾经|小时候|之前(?!的)",
    re.I,
)
_PAST_AFTER = re.compile(r"过(?![来去])")
_DREAM = re.compile(r"\b(?:dreamt|dreamed|had a dream|in my dream)\b|做梦|梦到|梦见|梦里", re.I)
# a few days' exception, in words _TEMPORARY (the pair model's cue) does not have
_FOR_A_WHILE = re.compile(
    r"这两天|这阵子|这段时间|最近几天|\b(?:for a while|for the time being|these few days)\b", re.I
)
# what a person can do otherwise for a few days (not an age turned "today")
_HABITS = frozenset(
    {
        "city",
        "work_location",
        "commute",
        "drink",
        "diet",
        "exercise_habit",
        "work_shift",
        "wake_time",
        "bedtime",
    }
)
_NEW_HOME = re.compile(r"\bnew\s+(?:place|flat|apartment|house|home|address)\b", re.I)
_COUNTED_AGE = re.compile(r"(?:一个|另一个|老大|老二|大的|小的|大宝|二宝)\s*$")


# the check reads each candidate once per write: the same old texts come back write after write
@text_cache(maxsize=8192)
def read(text: str) -> Reading | None:
    """The statement's reading, or None when no rule knows its attribute (or it is a question,
    a wish or a hypothetical: "if I moved to Paris…" sets nothing)."""
    norm = unicodedata.normalize("NFKC", text).replace("’", "'").strip()
    if not norm:
        return None
    best: tuple[AttrRule, re.Match[str], str] | None = None
    if _DREAM.search(norm):
        return None  # a dream or a memory of one sets nothing
    for clause in _CLAUSE.split(norm):
        for rule in RULES:  # the first rule that knows a clause decides it; the first such clause wins
            m = rule.pattern.search(clause)
            if m is not None:
                if _PAST_BEFORE.search(clause[: m.start()]) or _PAST_AFTER.match(clause[m.end() :]):
                    break  # "I used to live in Portland", 在小米实习过: the past, not what holds now
                best = (rule, m, clause)
                break
        if best is not None:
            break
    if best is None:
        return None
    rule, m, clause = best
    value = _value(rule, m)
    attribute = _attribute(rule, m)
    prefix = clause[: m.start()]
    subject = subject_of(prefix)
    if subject == "user" and re.match(r"\s*(?:is|are|'s)\b", clause[m.start() :], re.I) is None:
        # "Anna moved to Rome": a name right before the predicate is someone else
        name = re.search(r"(?:^|\s)([A-Z][a-z]+)\s+(?:just\s+|recently\s+|finally\s+|now\s+)?$", prefix)
        if name and name.group(1) not in _SENTENCE_OPENERS:
            subject = "other"
    if subject == "user" and has_han(prefix) and "我" not in prefix:
        other = _OTHER_SUBJECT_ZH.search(prefix.strip())
        if other is not None:
            rel = next(
                (w for w in sorted(_REL_ZH, key=len, reverse=True) if other.group(0).startswith(w)), None
            )
            subject = _REL_ZH[rel] if rel is not None else "other"
    if attribute == "city" and (_NOT_A_MOVE.search(clause) or re.match(_NOT_A_PLACE_ZH, value or "")):
        return None  # reassigned at work; 现在在家练 is at home, 现在在看… is doing, not a new city
    if attribute == "city" and re.search(r"把[^，,。！!？?；;、\s]{1,8}$", prefix):
        return None  # 把办公桌搬到窗边: a thing moved, not the home
    if attribute == "birthplace" and value and re.search(r"宝宝|孩子|上周|昨天|刚|月|号", value):
        return None  # 宝宝上周出生了: a birth, not where the user is from
    if attribute == "age" and _COUNTED_AGE.search(prefix):
        return None  # 两个娃，一个五岁一个三岁: the children's ages
    window = clause[max(0, m.start() - 24) : m.end() + 16]
    negated = rule.negated or (
        rule.attribute in _ENDABLE and value is not None and bool(_ENDED.search(window))
    )
    context = frozenset(name for name, pat in _CONTEXT if pat.search(norm))
    rest = norm.replace(clause, clause[: m.start()].rstrip() + " X " + clause[m.end() :].lstrip(), 1)
    ends_other = norm.lower() if _ENDS_ELSEWHERE.search(rest) else None
    return Reading(
        attribute=attribute,
        subject=subject,
        value=value,
        negated=negated,
        changed=rule.changed or bool(_CHANGE.search(norm)),
        additive=bool(_ADDITIVE.search(norm)),
        context=context,
        # a street said as a new home's address is a move, not a part of the old city
        refinement=attribute == "city" and bool(_REFINEMENT.search(norm)) and not _NEW_HOME.search(clause),
        hypothetical=bool(_HYPOTHETICAL.search(norm)),
        ends_other=ends_other,
        temporary=attribute in _HABITS and bool(_TEMPORARY.search(norm) or _FOR_A_WHILE.search(norm)),
    )


def _named(value: str, attribute: str, text: str) -> bool:
    """Whether ``text`` names ``value`` of ``attribute``: the value itself, or a word of the
    attribute's lexicon that reads as it ("eat meat" for omnivore, 健身 for gym)."""
    if _same_value(value, text) or value.lower() in text:
        return True
    table = _LEXICONS.get(attribute, {})
    return any(v == value and k in text for k, v in table.items())


def _same_value(a: str, b: str) -> bool:
    a, b = a.lower().strip(), b.lower().strip()
    if not a or not b:
        return False
    if (
        a == b
        or re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", b)
        or re.search(rf"(?<![\w-]){re.escape(b)}(?![\w-])", a)
    ):
        return True
    if has_han(a + b) and (a in b or b in a):
        return True
    wa, wb = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    return bool(wa and wb) and bool(wa & wb) and len(wa & wb) >= min(len(wa), len(wb))


def relate(new: Reading | None, old: Reading | None) -> Relation | None:
    """How ``new`` relates to ``old`` (see the module docstring); None when the rules cannot tell."""
    if new is None or old is None or new.hypothetical or old.hypothetical:
        return None
    if new.attribute != old.attribute:
        return "unrelated"
    if new.temporary and not old.temporary:
        return None
    if new.subject != old.subject:
        return "compatible" if "other" not in (new.subject, old.subject) else None
    if new.context != old.context:
        return "compatible" if new.context and old.context else None
    if new.additive:
        return "compatible"
    if (
        new.ends_other is not None
        and old.value is not None
        and not _named(old.value, old.attribute, new.ends_other)
    ):
        return None  # it ends something, and not this: which old value it replaces is unclear
    ended = _ENDS_ONLY.get((new.attribute, new.value or ""))
    if ended is not None and old.value is not None and old.value not in ended:
        return None  # a breakup ends dating, not a marriage: unclear
    if new.negated:
        if old.negated:
            return "compatible"
        if new.value is None or old.value is None or _same_value(new.value, old.value):
            return "supersedes"
        return None  # "no longer at Globex" about an old "Acme": unclear
    if old.negated:
        return "supersedes" if new.value is not None or new.changed else None
    if new.value is not None and old.value is not None:
        if _same_value(new.value, old.value):
            return "compatible"
        if new.refinement and not old.refinement:
            return "compatible"  # the city, then the neighbourhood
        return "supersedes" if new.changed or new.attribute not in _NEEDS_CUE else None
    if new.value is None:
        return "supersedes" if new.changed or new.attribute not in _NEEDS_CUE else None
    return "supersedes" if new.changed or new.attribute not in _NEEDS_CUE else None


def relation(new_text: str, old_text: str) -> Relation | None:
    """:func:`relate` on two statements; where the rules cannot tell, an ending that names what
    the old statement is about ("cancelled Netflix", 可乐戒掉了) or a role's new holder supersedes it
    (:func:`ends_named`, :func:`next_in_role`)."""
    new = read(new_text)
    if new is not None and new.hypothetical:
        return None  # what relate() answers whatever the old one says: spare reading it
    rel = relate(new, read(old_text)) if new is not None else None
    if (
        rel != "supersedes"
        and rel != "compatible"
        and (ends_named(new_text, old_text) or next_in_role(new_text, old_text))
    ):
        return "supersedes"
    return rel


# --- an ending that names its object -----------------------------------------------------------------
# "cancelled Netflix", "kicked the Diet Coke habit", "Greece is off", 可乐戒掉了, 把氨氯地平停了: the
# thing named is over, whatever attribute it was the value of. Only the thing named is ended, so in
# a crowd it retires only the statements that name it.
_END_VERB_EN = (
    r"quit|quitting|cancel+ed|cancel+ing|ditched|dropped|sold|gave up(?: on)?|given up(?: on)?|got rid of|"
    r"kicked|turned in|closed|deleted|uninstalled|unsubscribed from|tapered (?:me )?off|came off|"
    r"stopped (?:using|checking|taking|going to|drinking|eating|playing|seeing|watching)|stopped(?= (?:the|my|our) )|"
    r"no longer (?:use|using|take|taking|go to|drink|eat|play|have|check)|"
    r"no more|done with|moved (?:everything )?off(?: of)?|switched (?:away )?from|(?:cut|given|gave) up|"
    r"swapped|traded in|replaced|upgraded from|moved on from|got off|came off"
)
_ENDS_THING_EN = re.compile(
    rf"\b(?:{_END_VERB_EN})\s+(?:(?:the|my|our|all|of|both|that|this|those|old)\s+)*(?P<obj>[\w.+&'-]{{1,64}}(?:\s+[\w.+&'-]{{1,64}}){{0,2}})"
    r"|\b(?:the\s+|my\s+|our\s+)?(?P<obj2>[\w.+&'-]{1,64}(?:\s+[\w.+&'-]{1,64})?)\s+(?:is|are|'s)\s+(?:off|over|dead|gone|history|done)\b"
    # "i don't even drink tea anymore", "can't do black coffee any more", "the elm road flat isn't mine anymore"
    r"|\b(?:don't|dont|do not|can't|cant|can not|won't)\s+(?:even\s+|really\s+)?(?:\w+\s+)(?P<obj3>[\w.+&'-]{1,64}(?:\s+[\w.+&'-]{1,64})?)\s+any ?more\b"
    r"|\b(?:the\s+|my\s+)?(?P<obj4>[\w.+&'-]{1,64}(?:\s+[\w.+&'-]{1,64}){0,2})\s+(?:isn't|is not|aren't)\s+(?:mine|ours)\s+any ?more\b",
    re.I,
)
# words that frame a thing rather than name it ("the Diet Coke habit", "my Wells accounts")
_FRAME_WORDS = frozenset(lexicon.words("attributes", "frame_words"))
_CHAT_WORDS = frozenset(lexicon.words("attributes", "chat_words"))
_END_VERB_ZH = (
    r"戒了|戒掉了?|卖了|卖掉了?|送人了|取消了?|停了|停掉了?|不用了|不去了|不戴了|不喝了|不吃了|不玩了|"
    r"分了|分手了|不听了|不看了|不练了|不学了|不打了|不踢了|退役了|放下了|放弃了|没续|不续了|到期了?|散了|退了|退掉了?|注销了?|"
    r"处理掉了?|扔了|报废了?"
)
_ENDS_THING_ZH = re.compile(
    rf"(?P<obj>[^，,。！!？?；;、\s]{{2,12}}?)(?:{_END_VERB_ZH})(?=[了啦呀哈嘛呢]*$)"
    # 不追湖人了, 现在不开车了, 不再去教会: the verb and its object
    r"|不再?(?P<obj2>(?:追|开|用|喝|吃|去|玩|看|戴|抽|信|听|练|学|打|踢|跑|做|干|送|坐|骑|住)[^，,。！!？?；;、\s了]{1,6}?)(?:了|$)"
    # 取消大小周了, 把咖啡换成茶, 停了氨氯地平: the verb before what it ends
    r"|(?:取消了?|停了|停掉了?|戒掉了?|注销了?)(?P<obj3>[^，,。！!？?；;、\s了]{2,8}?)(?:了|$)"
    r"|把(?P<obj4>[^，,。！!？?；;、\s]{2,8}?)换(?:成|掉)"
)
_ZH_FILLER = re.compile(
    r"(?:我们|我|都|也|就|已经|彻底|先|终于|早就|全|给|被|基本|现在|再|那个|这个|那张|那|这)+$"
)
_ZH_LEAD = re.compile(r"^.*?(?:把|跟|和|对)|^(?:我们|我的|我|那个|这个|之前的|以前的|原来的)+")


_ZH_REL_START = re.compile(rf"(?:{_REL_ZH_RE})")
_ZH_LONGER = re.compile(r"[师员店馆厅厂商]")
_QUALIFIED = re.compile(
    r"\b[\w.+&'-]{1,64}\s+(?=(?:insurance|loan|payments?|parking|park|seat|wash|charger|case|cover|repairs?|shop|store|"
    r"club|fans?|teacher|lessons?|classes|tickets?|dealer|dealership)\b)"
)
_ZH_SPAN = re.compile(r"(?:个月|年|天|星期|礼拜|小时|分钟|阵子)$|^好几")
_A_NOT_A = re.compile(rf"([{HAN_CLASS}])不\1")  # 续不续: a question, not an ending


# a write's own text is asked once per candidate (twenty a write): read it once
@text_cache(maxsize=1024)
def _ended_things(text: str) -> tuple[tuple[str, str], ...]:
    """What ``text`` says is over, as the words or characters that name it (EN/ZH), each with whose
    it is (the last subject cue before the ending: "moved to monzo and closed the barclays account,
    their app …" is the user's)."""
    norm = unicodedata.normalize("NFKC", text).replace("’", "'")
    out: list[tuple[str, str]] = []
    # a plan or a question in one clause does not hide an ending in another
    # ("日语先放下了，现在主攻雅思，打算出国")
    pieces = [
        p for p in re.split(r"[,，!?;。！？；\n]+|\.(?:\s|$)", norm) if p and not _HYPOTHETICAL.search(p)
    ]
    for piece, m in ((p, m) for p in pieces for m in _ENDS_THING_EN.finditer(p)):
        obj = m.group("obj") or m.group("obj2") or m.group("obj3") or m.group("obj4") or ""
        words = []
        for w in re.findall(r"[\w.+&'-]+", obj.lower()):
            if w in STOPWORDS or w in _CHAT_WORDS:
                break  # the object ends at the first function word ("japanese tbh", "netflix since")
            if w not in _FRAME_WORDS and len(w) >= 2:
                words.append(w)
        if words:
            out.append((" ".join(words), subject_of(piece[: m.start()])))
    for clause in (c for p in pieces for c in re.split(r"[、\s]+", p)):
        for m in _ENDS_THING_ZH.finditer(clause):
            obj = (
                m.group("obj2")
                or m.group("obj3")
                or m.group("obj4")
                or _ZH_LEAD.sub("", _ZH_FILLER.sub("", m.group("obj")))
            )
            rel = _ZH_REL_START.match(obj)
            if rel is not None:  # 儿子游泳不学了: the son's swimming, not the user's
                obj = "\x00" + rel.group(0) + "\x00" + obj[rel.end() :]
            if m.group("obj2"):  # a verb and its object: the old statement must name more than half
                obj = "\x01" + obj
            if _ZH_SPAN.search(obj):
                continue  # 好几个月没…了: how long, not what
            if len(obj) >= 2:
                out.append((obj, subject_of(clause[: m.start()] + (m.group("obj") or ""))))
    return tuple(out)


def _names_thing(thing: str, old: str) -> bool:
    if thing.startswith("\x00"):  # someone's thing (儿子游泳): the old statement must be about them too
        _, who, thing = thing.split("\x00", 2)
        if who not in old:
            return False
    elif has_han(thing) and _ZH_REL_START.search(old):
        return False  # 钢琴不学了 says nothing of 闺女在学钢琴
    strict = thing.startswith("\x01")
    thing = thing.lstrip("\x01")
    if has_han(thing):
        # at least half the thing's characters, in runs of two or more the old statement has
        # ("电信合约" / 电信, not "腾讯视频会员" / 腾讯); a word inside a longer one is not named
        # (咖啡 in 咖啡师, a barista)
        covered: set[int] = set()
        for k in range(len(thing) - 1):
            for m in re.finditer(re.escape(thing[k : k + 2]), old):
                if k + 2 == len(thing) and _ZH_LONGER.match(old, m.end()):
                    continue
                covered |= {k, k + 1}
                break
        return len(covered) * 2 > len(thing) if strict else len(covered) * 2 >= len(thing)
    # "sold the car" does not name "my car insurance": there the word only qualifies another noun
    words = set(re.findall(r"[\w.+&'-]+", _QUALIFIED.sub(" ", old.lower())))
    parts = thing.split()
    named = [w for w in parts if w in words or w.rstrip("s") in words]
    return len(named) == len(parts)  # every word: "home pc" does not name "I work from home"


# one person at a time in a role of the user's life: "my landlord is …", 我领导姓刘, "my GP is Dr. …"
_ROLES_EN = (
    r"landlord|landlady|manager|boss|supervisor|doctor|gp|dentist|therapist|psychiatrist|counsellor|counselor|"
    r"girlfriend|boyfriend|partner|fiance|fiancee|husband|wife|coach|trainer|tutor|teacher|hairdresser|barber|"
    r"accountant|lawyer|vet|dog|cat|puppy|kitten"
)
_ROLES_ZH = r"房东|领导|老板|上司|主管|经理|医生|主治医生|大夫|女朋友|男朋友|对象|老公|老婆|教练|老师|班主任|导师|狗|猫|柯基"
_ROLE_EN = re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?P<role>{_ROLES_EN})s?\b", re.I)
_ROLE_ZH = re.compile(rf"我(?:的|家|们)?(?:养了?(?:一|两)?(?:只|条)?)?(?P<role>{_ROLES_ZH})")
# the next holder of a role: "my new landlord", 新来的领导, 现在的女朋友
_NEW_ROLE = re.compile(
    rf"\b(?:new|current)\s+(?P<role>{_ROLES_EN})\b|(?:新来的|新的|新|现在的|换了个|换了)(?P<rolezh>{_ROLES_ZH})",
    re.I,
)
# someone leaves a role: "Linda left the company", "Dr. Huang retired", 王医生退休了, 豆豆走了
_LEAVES = re.compile(
    r"\b(?P<who>(?i:dr\.?\s+\w+)|[A-Z][a-z]+)\s+(?:has\s+|just\s+|finally\s+)?(?:left|retired|quit|moved away|passed away|died)\b"
    rf"|(?:had to |we )?put (?P<who2>[A-Z]?[a-z]+) down\b"
    r"|\b(?P<who3>[A-Za-z]+) and [iI] (?:broke up|split(?: up)?|separated|divorced)\b"
    r"|\b(?:broke up|split up|things ended|it's over|it ended) with (?P<who4>[A-Za-z]+)\b"
    rf"|(?:跟|和)(?P<whozh2>[{HAN_CLASS}]{{2,3}}?)(?:已经|早就)?(?:分手了|分了|掰了|散了)"
    rf"|(?P<whozh>[{HAN_CLASS}]{{2,4}}?)(?:去年|上个月|前阵子|前几天|已经|也)?(?:冬天|夏天)?(?:退休了|离职了|调走了|辞职了|走了|去世了|没了)"
)


def _role_of(old: str) -> str | None:
    m = _ROLE_EN.search(old) or _ROLE_ZH.search(old)
    return m.group("role").lower() if m else None


def next_in_role(new_text: str, old_text: str) -> bool:
    """Whether ``new_text`` gives the user's role a new holder ("my new landlord", 新来的领导) or
    says the old holder named in ``old_text`` left it ("Linda left", 王医生退休了)."""
    new = unicodedata.normalize("NFKC", new_text).replace("’", "'")
    old = unicodedata.normalize("NFKC", old_text).replace("’", "'")
    role = _role_of(old)
    if role is None or cues(new_text).hypothetical:
        return False
    m = _NEW_ROLE.search(new)
    if m is not None and (m.group("role") or m.group("rolezh") or "").lower() == role:
        return True
    for m in _LEAVES.finditer(new):
        who = m.group("who") or m.group("who2") or m.group("who3") or m.group("who4") or ""
        who = who or m.group("whozh") or m.group("whozh2") or ""
        who = re.sub(r"^(?:dr\.?\s+)", "", who, flags=re.I)
        if (
            who.startswith("我")
            or re.fullmatch(rf"(?:{_REL_ZH_RE}|{_ROLES_ZH})", who)
            or who.lower() in _REL_EN
            or re.fullmatch(_ROLES_EN, who, re.I)
        ):
            continue  # 我老婆辞职了: the partner's own job, not a role of the user's life left empty
        if len(who) >= 2 and who.lower() not in _NOT_NAMES and re.search(re.escape(who), old, re.I):
            return True
    return False


def ends_named(new_text: str, old_text: str) -> bool:
    """Whether ``new_text`` ends something ``old_text`` names, said by the same person (the user,
    both times), not as a plan, a question or for a while."""
    things = _ended_things(new_text)
    if not things:
        return False
    cn, co = cues(new_text), cues(old_text)
    if _A_NOT_A.search(new_text) or cn.temporary or cn.named_subject or co.named_subject:
        return False
    old = unicodedata.normalize("NFKC", old_text).replace("’", "'")
    return any(who == co.subject and _names_thing(t, old) for t, who in things)


# The words an attribute is stated with: a second keyword query finds an old statement that shares
# no word with the new one ("moved to Paris" / "live in Berlin").
CUES: dict[str, tuple[str, ...]] = lexicon.grouped("attributes", "cue_words")
_FAVORITE_CUES = lexicon.words("attributes", "favorite_cues")


def cue_words(attribute: str) -> tuple[str, ...]:
    """Words to search the keyword index with for earlier statements about ``attribute``."""
    if attribute.startswith("favorite"):
        return _FAVORITE_CUES
    return CUES.get(attribute, ())


def unread_relation(new_text: str, old_text: str) -> Relation | None:
    """How two statements relate when a classifier (not these rules) says they set the same
    attribute: the subject, context, addition and hypothetical marks still decide. The subject is
    the first cue of the first clause ("my sister moved …" is the sister's); ``None``: a
    hypothetical, where nothing should change."""

    def marks(text: str) -> tuple[str, frozenset[str], bool, bool]:
        norm = unicodedata.normalize("NFKC", text).replace("’", "'").strip()
        first = _CLAUSE.split(norm)[0] if norm else ""
        cue = _SUBJECT_CUE.search(first)
        subject = subject_of(first[: cue.end()]) if cue is not None else "user"
        context = frozenset(name for name, pat in _CONTEXT if pat.search(norm))
        return subject, context, bool(_ADDITIVE.search(norm)), bool(_HYPOTHETICAL.search(norm))

    new, old = marks(new_text), marks(old_text)
    if new[3] or old[3]:
        return None
    if new[0] != old[0] or new[1] != old[1] or new[2]:
        return "compatible"
    return "supersedes"


# --- cues for the pair model (remnant.understand.pair_model) ---------------------------------
# An ending said without the old value ("I left Acme", 辞职了): the old value of an endable
# attribute is over, whatever it was.
_ENDING = re.compile(
    r"\b(?:no longer|not (?:\w+ )?any ?more|quit|left|resigned|retired|laid off|let go|fired|moved out|"
    r"broke up|split up|divorced|gave up|stopped|ended|sold (?:my|the|our)|dropped out|graduated)\b|"
    r"不再|离职|辞职|辞了|退休|分手|离婚|戒了|不干了|卖了|搬走|毕业了|不.{0,3}了$",
    re.I,
)
# an exception in time, not a change ("this week I'm working from home", 这周出差)
_TEMPORARY = re.compile(
    r"\b(?:this (?:week|weekend|month|morning|evening|time)|today|tonight|for now|temporarily|for a (?:few|couple)|"
    r"just for|until (?:next|the end)|while (?:i'm|we're|the)|on (?:holiday|vacation|a trip)|visiting|"
    r"for the (?:week|weekend|holidays|summer))\b|这周|这个月|今天|今晚|暂时|临时|这几天|出差|旅游|度假",
    re.I,
)


# "Anna moved to Rome", "Tom's vegan now": a capitalised first word before a verb is someone else
_NAMED = re.compile(
    r"\s*([A-Z][a-z]+)(?:\s+and\s+[A-Z][a-z]+)?(?:'s\s|\s+(?:just\s+|now\s+|finally\s+|also\s+|still\s+)?"
    r"(?:is|was|has|had|got|gets|works|worked|lives|lived|moved|started|quit|left|became|goes|went|"
    r"drives|takes|eats|drinks|[a-z]+ed)\b)"
)
_NOT_NAMES = frozenset(lexicon.words("attributes", "not_names"))
# capitalised words right before a predicate that open a sentence, not someone's name ("So moved …")
_SENTENCE_OPENERS = frozenset(lexicon.words("attributes", "sentence_openers"))


@dataclass(frozen=True)
class Cues:
    """Surface cues of one statement, read without knowing its attribute."""

    subject: str  # the first subject cue of the first clause ("user" when none)
    named_subject: bool  # a capitalised name right before the first verb ("Anna moved to Rome")
    context: frozenset[str]
    changed: bool
    additive: bool
    ended: bool
    temporary: bool
    hypothetical: bool
    refinement: bool


@text_cache(maxsize=8192)
def cues(text: str) -> Cues:
    """The change, addition, ending, context, subject and hypothetical cues of ``text`` (EN/ZH)."""
    norm = unicodedata.normalize("NFKC", text).replace("’", "'").strip()
    first = _CLAUSE.split(norm)[0] if norm else ""
    cue = _SUBJECT_CUE.search(first)
    subject = subject_of(first[: cue.end()]) if cue is not None else "user"
    named = _NAMED.match(first)
    named_subject = named is not None and cue is None and named.group(1).lower() not in _NOT_NAMES
    return Cues(
        subject=subject,
        named_subject=named_subject,
        context=frozenset(name for name, pat in _CONTEXT if pat.search(norm)),
        changed=bool(_CHANGE.search(norm)),
        additive=bool(_ADDITIVE.search(norm)),
        ended=bool(_ENDING.search(norm) or _ENDED.search(norm)),
        temporary=bool(_TEMPORARY.search(norm)),
        hypothetical=bool(_HYPOTHETICAL.search(norm)),
        refinement=bool(_REFINEMENT.search(norm)),
    )
