"""The parts of a forget request and of a memory that say exactly what goes (issue 15).

A request is more than its topic: "Delete my mobile number but not Greg's", "门牌号别记了，知道我在张江就行",
"forget my wife's number, I've got it saved now". :func:`split_request` separates the clause that
says what to forget from the clauses that say what stays (the *keep* part) and the ones that only
give a reason (dropped). :func:`value_spans` finds the value of an attribute inside a memory's text
(a name after "called"/叫, a place after "in"/"to", a school, an age, a postcode, a plate, a chat
handle), so a request for one value can remove only that value and keep the rest of the turn.
Rules only, English and Chinese; written against our own dev cases, never the held-out file.
"""

from __future__ import annotations

import re
import unicodedata

from remnant.core.memo import text_cache
from remnant.core.text import HAN_CLASS, has_cjk
from remnant.understand import lexicon

_H = HAN_CLASS

# -- the request: what goes, what stays, what is only a reason --------------------------------------
_KEEP_EN = re.compile(
    r"^(?:please\s+)?(?:but\s+)?(?:you\s+can\s+|can\s+you\s+|just\s+|only\s+|do\s+)?(?:keep|leave|except)\b"
    r"|^but\s+not\b|^not\s+(?:the|my|his|her|their|our)\b|^(?:but\s+)?not\s+[a-z]+(?:'s|s')(?=\W|$)"
    r"|^(?:but\s+)?(?:just|only)\s+(?:the\s+|my\s+)?[\w'-]+(?:\s+one)?$"
    r"|\b(?:is|are|'s|can be|can stay|stays?)\s+(?:fine|ok|okay|alright|good|grand|enough|cool)\b"
    r"|\b(?:fine|ok|okay)\s+to\s+(?:keep|remember|stay)\b"
    r"|\b(?:can|may)\s+(?:stay|remain)\b|\bstill\s+stands\b|\bstays$|\bdoesn'?t\s+matter\b|\bno\s+problem\b"
    r"|\b(?:you\s+can|feel free to)\s+(?:keep|remember)\b"
)
_KEEP_ZH = re.compile(
    r"保留|留着|留下|别删|不要删|不用删|别动|不要动|不用动|可以记|可以留|记着就行|就行|就好|无所谓|没关系|不用管|别管|没事|还在"
)
_REASON_EN = re.compile(
    r"^(?:because|since|as|so|cause|cuz|coz|i've|i have|i've got|i got|i don'?t|i do not|i'm|i am|that's|"
    r"it's|it is|thanks|thank you|no need|not needed|that was|this is|anyway|in case)\b"
)
# a clause that is a statement (a subject and its verb, a negation): said about the request, not
# what to forget ("I overshared", "it got dropped", "haven't even told Carol yet")
_STATEMENT_EN = re.compile(
    r"^(?:and\s+|but\s+|so\s+|honestly\s+|actually\s+)*"
    r"(?:i|i'm|i've|i'd|i'll|im|ive|it|it's|it'd|its|that|that's|this|they|they're|he|she|he's|she's|"
    r"she'd|he'd|you|you're|you'd|there|there's|things|everything's|which|who|if|when|though|although|"
    r"haven'?t|hasn'?t|don'?t|doesn'?t|didn'?t|can'?t|won'?t|wouldn'?t|shouldn'?t|isn'?t|wasn'?t|"
    r"not|no|too|feels?|might|may|maybe|probably|lol|haha|ugh|sorry|dear|hey|oh|well|ok|okay|"
    r"honestly$|actually$|look$|listen$|um+$|hmm+$|hi$|hello$|yo$|so$|right$|"
    r"[a-z]+'s\s+(?:her|his|their)\b)\b"
)
# a later clause that is a statement with its own subject and verb ("my manager is weird about that
# stuff", "insurance is handling it", "my sister uses this app") or one that starts with a past verb
# ("had a weird customer follow me", "paid it already"): a reason, not a second thing to forget. A
# list of things ("alimony, child support, all that") has no verb, so it stays part of the request.
_LATER_STATEMENT_EN = re.compile(
    r"^(?!.*\b(?:said|told|mentioned|thing|things|stuff|part|bit)\b.*\b(?:about|regarding)\b)(?:and\s+|but\s+|so\s+|plus\s+)*(?:"
    r"(?:(?:my|the|his|her|our|their|your|a|an|some|this|that|these|those|[a-z]+'s)\s+)?[a-z'-]+(?:\s+[a-z'-]+)?\s+"
    r"(?:is|are|was|were|has|have|had|uses|used|does|did|got|gets|keeps|kept|wants|wanted|knows|knew|"
    r"says|said|told|tells|thinks|thought|can|could|will|would|might|should|must|sometimes|always|"
    r"need|needs|needed|like|likes|love|loves|hate|hates|want|call|calls|pay|pays|owes|lives|"
    r"never|already|really|still|just|finally|reads|sees|saw|checks|goes|went)\b"
    r"|(?:had|paid|got|found|went|made|took|sorted|lost|left|quit|finished|did|was|were|thats|theyre|"
    r"dont|didnt|cant|wont|isnt|wasnt|doesnt|kinda|lowkey|literally)\b)"
)
# a verb clause with no object of its own ("please forget it", "could you remove both of those?")
_BARE_EN = re.compile(
    r"^(?:(?:please|pls|plz|so|and|just|ok|okay|can you|could you|would you|will you|you can|"
    r"i want you to|i'd like you to)\s+)*"
    r"(?:forget|delete|erase|remove|wipe|drop|scrap|scratch|clear|get rid of|stop remembering)\s+"
    r"(?:it|that|this|them|those|these|about (?:it|that|them)|both|both of those|both of them|all of it|all of that|all that|"
    r"any of (?:it|that))(?:\s+(?:please|pls|for me|now|too|as well|ok))*$"
)
_VERB_ZH = re.compile(
    r"忘|删|别记|不要记|不用记|别再记|别提|不要提|别再提|不用知道|不需要知道|清除|抹|去掉|去了|移除|"
    r"当我没说|当没说|当我没讲|当不知道|别留|不要留|不用留"
)
_VERB_EN = re.compile(
    r"\b(?:forget|forgt|forgte|foget|delete|deleting|erase|remove|wipe|purge|drop|scrub|scrap|scratch|clear|unlearn|un-?remember|"
    r"get rid of|stop remembering|pretend i never said|pretend i didn'?t say|"
    r"(?:don'?t|didn'?t|not|never) (?:need to )?(?:remember|know|keep|store)|"
    r"do not (?:need to )?(?:remember|know|keep)|no need to (?:remember|know))\b"
)
_ZH_FILLER_ONLY = re.compile(
    r"^(?:能不能|可不可以|能否|能|可以|吗|请|帮我|麻烦|你|就|都|全|把|将|给我|我|的|了|吧|哈|啊|呀|嘛|呢|也|再|以后|赶紧|赶快|快|马上|立刻|直接|全部|通通|统统|一起|"
    r"忘记|忘掉|忘了|删掉|删除|删了|别记|不要记|不用记|别再记|清除|掉|记|着|去了|去掉|当我没说|说过|"
    # a pointer back ("这个去掉吧", "之前那条去掉"): the clause before says what
    r"这个|那个|这条|那条|之前那条|之前那个|前面那条|那段|这段|那句|这句)*$"
)


_ALL_OF_IT = re.compile(r"\b(?:all of it|all of that|all that|everything about it)\b")


def _bare(clause: str) -> bool:
    """A Chinese clause with nothing but the verb and filler in it."""
    return bool(_ZH_FILLER_ONLY.match(clause.replace(" ", "")))


# a run of spaces starts a separator only at its first space, taken whole (possessive): tried from
# every space of a long run, the separators made the readers quadratic
_SPLIT = re.compile(
    r"[,;，；。!！?？()（）…~～]+|(?<!\s)\s++-+\s+|(?<!\bdr)(?<!\bst)(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bprof)\.(?:\s+|$)"
    rf"|(?<=[{_H}])\s+(?=[{_H}])"
)


_SYMBOLS = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]+")  # emoji end a clause too


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _SPLIT.split(_SYMBOLS.sub(",", text)) if c.strip()]


# "that tenant who was behind", "the dog i lost": a noun phrase, though it starts like a statement
_NOUN_PHRASE_EN = re.compile(r"^(?:that|the|this|my)\s+[a-z]+\s+(?:who|which|that|i|you|from|with|at|in)\b")


def _object_before(parts: list[str]) -> dict[int, str]:
    """What a bare English verb clause ("please forget it") refers to among the clauses before it:
    the words after "about" ("I said way too much about my ex"), else the nearest clause that is
    not a statement, else the nearest clause."""
    about = {
        i: m.group(1)
        for i, c in enumerate(parts)
        if (m := re.search(r"\b(?:about|regarding|of)\s+(.+)$", c))
        and not re.search(r"\bof (?:it|that)\b", c)
    }
    if about:
        return about
    plain = [i for i, c in enumerate(parts) if not _STATEMENT_EN.match(c) or _NOUN_PHRASE_EN.match(c)]
    if plain:
        return {plain[-1]: parts[plain[-1]]}
    return {len(parts) - 1: parts[-1]} if parts else {}


def split_request(norm: str) -> tuple[str, str, str]:
    """(what to forget, what stays, what was only a reason) of a normalised request.

    English: the clause with the forget verb is the request; a later clause (or a "but not …" part)
    that says keep / is fine / not Greg's names what stays; other clauses are reasons ("I've got it
    saved now"). Chinese: the same by clause, and a verb clause that holds nothing but the verb
    ("昨天说的那两件事，帮我忘掉") takes the clause before it as its object.
    """
    text = norm.strip()
    m = re.search(r"(?<!\s)\s++but\s+(?=not\b|keep\b|leave\b|you can\b|please keep\b|do keep\b)", text)
    tail_but = ""
    if m:
        text, tail_but = text[: m.start()], text[m.end() :]
    parts = _clauses(text)
    if not parts:
        return norm, tail_but, ""
    zh = has_cjk(text)
    keep: list[str] = [tail_but] if tail_but else []
    reason: list[str] = []
    main: list[str] = []

    def keepish(c: str) -> bool:
        if has_cjk(c):
            # "QQ号删了就行": deleting is all it takes, a verb clause, not what stays
            marks = {m.group(0) for m in _KEEP_ZH.finditer(c)}
            return bool(marks) and not (marks <= {"就行", "就好"} and bool(_VERB_ZH.search(c)))
        return bool(_KEEP_EN.search(c))

    verbs = [i for i, c in enumerate(parts) if (_VERB_ZH.search(c) if zh else _VERB_EN.search(c))]
    verb_at = next((i for i in verbs if not keepish(parts[i])), verbs[0] if verbs else 0)
    bare_verb = _bare(parts[verb_at]) if zh else bool(_BARE_EN.match(parts[verb_at]))
    # "煤球上个月送人了，把它名字去了吧": a pronoun in the verb clause points at the clause before
    points_back = zh and bool(re.search(r"[它他她]", parts[verb_at])) and verb_at > 0
    before = _object_before(parts[:verb_at]) if bare_verb and not zh else None
    for i, c in enumerate(parts):
        if i == verb_at:
            if before is not None and not keepish(c):
                c = _ALL_OF_IT.sub("it", c)  # "wedding's off. forget all of it": all of that, not everything
            (keep if keepish(c) else main).append(c)
        elif keepish(c):
            keep.append(c)
        elif zh and i + 1 < len(parts) and keepish(parts[i + 1]) and _bare(_KEEP_ZH.sub("", parts[i + 1])):
            keep.append(c)  # "我老公的电话，别删": a bare "keep" is about the clause before it
        elif before is not None and i < verb_at:
            (main if i in before else reason).append(before.get(i, c))
        elif i < verb_at and (bare_verb or (points_back and i == verb_at - 1)):
            main.append(c)  # "我的电话，还有邮箱，都删了"
        elif i < verb_at and not zh:
            # "my phone number, please forget it"; "it's all fine now, so please forget …" is a reason
            (reason if _STATEMENT_EN.match(c) else main).append(c)
        elif not zh and (_REASON_EN.search(c) or _STATEMENT_EN.match(c) or _LATER_STATEMENT_EN.match(c)):
            reason.append(c)
        elif zh:
            reason.append(c)  # "这个别跟别人说": said about the request, not what to forget
        else:
            main.append(c)  # "wipe the divorce stuff. alimony, child support, all that"
    if not main:
        main = [parts[verb_at]]
    return " , ".join(main), " , ".join(keep), " , ".join(reason)


# -- values inside a memory's text -------------------------------------------------------------------
_MONTHS = "|".join(lexicon.words("request_parts", "months"))
_WEEKDAYS = "|".join(lexicon.words("request_parts", "weekdays"))
_NOT_PLACE = frozenset(
    [*_MONTHS.split("|"), *_WEEKDAYS.split("|"), *lexicon.words("request_parts", "not_place")]
)
_CAP_SEQ = r"(?:St\.?\s+)?[A-Z][\w'&-]*(?:\.[A-Za-z]+)*(?:\s+(?:of\s+|de\s+|la\s+)?[A-Z][\w'&-]*(?:\.[A-Za-z]+)*){0,3}"
_PLACE_EN = re.compile(rf"\b(?:in|to|from|at|near|around|outside|visit(?:ing)?)\s+({_CAP_SEQ})")
_PLACE_ZH = re.compile(rf"[{_H}]{{2,5}}?(?:市|区|县|镇|省)")
_NAME_EN = re.compile(
    rf"\b(?:called|named|name is|name's|names are|goes by)\s+({_CAP_SEQ}(?:\s*(?:,|and|&)\s*{_CAP_SEQ})*)"
)
_NAME_ZH = re.compile(
    rf"(?:名叫|名字叫|名字是|叫做|叫)\s*([{_H}A-Za-z]{{1,6}}?)(?=[，。,.!！\s的]|一只|一个|$)"
)
_RELATION_EN = (
    r"wife|husband|partner|girlfriend|boyfriend|fiance|fiancee|spouse|son|daughter|kid|child|baby|brother|"
    r"sister|mum|mom|mother|dad|father|friend|mate|boss|manager|colleague|coworker|roommate|flatmate|"
    r"landlord|cousin|aunt|uncle|niece|nephew|grandson|granddaughter|grandma|grandpa|dog|cat|puppy|kitten|"
    r"pet|ex|advisor|therapist|doctor|dentist|trainer|neighbou?r|assistant|twins?|kids|sons|daughters"
)
_NAME_AFTER_RELATION_EN = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)\s+(?:(?:own|best|younger|older|little|big|eldest|youngest|new|"
    rf"late|ex-|step)\s*)*(?:{_RELATION_EN})(?:'s)?\s+(?:is\s+)?((?:Dr\.?\s+)?[A-Z][a-z'-]+)(?![\w'])"
    r"|\b(?:married to|engaged to|dating|with my \w+)\s+([A-Z][a-z'-]+)"
)
_RELATION_ZH = (
    "老婆|老公|媳妇|妻子|丈夫|爱人|对象|男朋友|女朋友|男友|女友|前男友|前女友|前任|儿子|女儿|闺女|孩子|宝宝|"
    "哥哥|姐姐|弟弟|妹妹|我妈|我爸|妈妈|爸爸|闺蜜|朋友|兄弟|同事|老板|室友|表哥|表姐|表弟|表妹|孙子|孙女|外孙|"
    "导师|师兄|师姐|狗|猫|橘猫|黑猫|白猫|狗狗|猫咪"
)
_NAME_AFTER_RELATION_ZH = re.compile(
    rf"(?:{_RELATION_ZH})(?:叫|名叫|名字叫|是)?\s*([{_H}]{{2,3}}?)(?=[，。,.!！、\s]|今年|是|在|[一二三四五六七八九十\d]|$)"
)
_NICK_EN = re.compile(r"\b(?:call(?:s)? me|nickname is|nickname's|known as)\s+([A-Z][\w'-]*)")
_NICK_ZH = re.compile(
    rf"(?:叫我|小名叫?|外号叫?|昵称叫?|绰号叫?)\s*(?:是)?\s*([{_H}A-Za-z]{{1,4}}?)(?=[，。,.\s]|$)"
)
_COMPANY_EN = re.compile(
    rf"\b(?:work(?:ing|ed|s)?\s+(?:at|for)|employed\s+(?:at|by)|job\s+at|joined|run\s+the\s+\w+\s+at)\s+"
    rf"(?:a\s+\w+\s+(?:place|company|firm)\s+called\s+)?({_CAP_SEQ})"
)
_COMPANY_ZH = re.compile(
    rf"叫([{_H}A-Za-z]{{2,8}}?)的(?:公司|单位|店|餐厅|医院)|叫([{_H}A-Za-z]{{2,8}}?)(?=[，。,.\s]|$)"
)
_SCHOOL_EN = re.compile(
    r"\b((?:[A-Z][\w'.-]*\s+){1,4}(?:School|Primary|Elementary|Academy|College|University|High|Kindergarten|"
    r"Preschool|Nursery|Montessori)(?:\s+School)?)\b"
    r"|\b((?:University|College|School|Academy)\s+of\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})"
)
_SCHOOL_ZH = re.compile(
    rf"[{_H}A-Za-z\d]{{2,10}}?(?:幼儿园|小学|中学|大学|学院|学校|一中|二中|三中|七中|附中)"
    # the grade and class said with it (…学校读三年级三班): where in the school, the same value
    r"(?:\s*[读上念]?\s*[一二三四五六七八九十\d]{1,2}\s*年级(?:\s*[一二三四五六七八九十\d]{1,2}\s*班)?)?"
)
_AGE_EN = re.compile(
    r"\b\d{1,3}\s*(?:years?|yrs?)(?:\s*old)?\b|(?<=\bi'm )\d{1,3}\b(?!\s*(?:%|kg|kilos|cm|m\b|weeks|days))"
    r"|(?<=\bi am )\d{1,3}\b|\b(?:age|aged)\s+\d{1,3}\b|(?<=\bturn )\d{1,3}\b|(?<=\bturning )\d{1,3}\b|(?<=\bturned )\d{1,3}\b",
    re.I,
)
_AGE_ZH = re.compile(
    r"[一二三四五六七八九十两百\d]{1,4}\s*(?:周岁|岁)|(?<=今年)\s*[一二三四五六七八九十\d]{1,3}(?=\s*了)"
)
_DATE_EN = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})[a-z]*\.?(?:,?\s+\d{{4}})?"
    rf"|\b(?:{_MONTHS})[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?",
    re.I,
)
_DATE_ZH = re.compile(r"(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号]")
_POSTCODE = re.compile(
    r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b|(?:zip(?:\s*code)?|postcode|邮编)\s*[:：]?\s*\d{5,6}(?:-\d{4})?"
)
_PLATE = re.compile(
    rf"[{_H}][A-Z][·•.\s-]?[A-Z0-9]{{5,6}}(?![A-Za-z0-9])"
    r"|\b(?:plate|reg(?:istration)?)\s*(?:number|no\.?)?\s*(?:is|:)?\s*([A-Z0-9]{2,4}[ -]?[A-Z0-9]{2,4})\b"
)
_HANDLE = re.compile(
    r"(?:qq|QQ|微信号?|wechat|discord|instagram|insta|ig|telegram|snapchat|twitter|tiktok|抖音|handle|username)"
    # a handle in Chinese characters only after 是 / is / a colon: "QQ群我是群主" holds none
    r"\s*(?:号|id|ID|name)?\s*(?:(?:是|is|:|：)\s*([\w@.\-]{3,})|([A-Za-z0-9@_.\-][\w@.\-]{2,}))"
)


# codes (a flight, an employee or a booking number, an ID): letters and digits, or a long number
_CODE = re.compile(r"(?<![\w@.])(?:[A-Z]{1,4}[ -]?\d{2,}[A-Z\d]*|\d*[A-Z]+\d[A-Z\d]*|\d{5,})(?![\w@])")
# amounts of money: £38,000, $1.4 million, 52k, 一万八, 八万块, 两百
# an amount's digits are bounded (40): an unbounded run is read again from each of its digits
_AMOUNT = re.compile(
    r"(?:[£$€¥]|rmb\s?|usd\s?)\s?\d[\d,.]{0,40}(?:\s?(?:k|m|million|grand|bn))?\b"
    r"|\b\d[\d,.]{0,40}\s?(?:grand|quid|bucks|dollars|pounds|euros)\b"
    r"|[\d一二三四五六七八九十两]{1,40}(?:\.\d{1,40})?\s*[万千百](?:[一二三四五六七八九])?(?:块钱|块|元|多)?"
    r"|\d{1,40}(?:\.\d{1,40})?\s*(?:块钱|块|元)",
    re.I,
)
# medicines: "put me on metformin and lisinopril", "吃一片氨氯地平"
_MED_EN = re.compile(
    r"\b(?:on|taking|take|takes|prescribed|started)\s+((?:[a-z]{5,}(?:\s*(?:,|and)\s*|\s+))*?[a-z]{5,})"
    r"(?=\s*(?:,|\.|and i|every|daily|twice|for|since|$))"
)
_MED_ZH = re.compile(rf"(?:吃|服用|在吃)(?:[一两二三\d]+[片粒颗支])?([{_H}]{{2,6}}?)(?=[，。,、在]|$)")
_NOT_NAME_ZH = frozenset(lexicon.words("request_parts", "not_name"))

# a value said right after the words that name it: "my Steam name is VoidWalker99", "航班是MU5401"
_AFTER_EN = re.compile(
    r"^(?:'s)?(?:\s+[\w'-]+){0,4}?\s*(?:\bis\b|\bwas\b|\bare\b|:|=)\s*"
    r"((?:[A-Z]{1,4}[ -]?)?\d[\w@.+#/-]*|[\w.+-]+@[\w.-]+|@?[\w]*[_\d][\w.]*|[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})"
)
_AFTER_ZH = re.compile(
    rf"^[^，。,；;！!？?]{{0,6}}?(?:是|叫|为|:|：)\s*([A-Za-z0-9_@.\-]+|[{_H}A-Za-z0-9]{{1,8}}?)(?=[，。,.；;！!\s]|$)"
)


def value_after(text: str, ends: list[int]) -> list[tuple[int, int]]:
    """The value said right after the words that name it (each of ``ends`` is where such words
    end in ``text``): "my Steam name is VoidWalker99", "健身房是乐刻", "flight … is AC 865"."""
    out = []
    for end in ends:
        rest = text[end : end + 80]
        # an apposition in brackets right after the words is their value: "a studio (unit 3B)"
        b = re.match(r"^\s*[(（]([^()（）]{1,30})[)）]", rest)
        if b:
            out.append((end + b.start(1), end + b.end(1)))
            continue
        m = (_AFTER_ZH if has_cjk(rest[:4]) or has_cjk(text[max(0, end - 1) : end]) else _AFTER_EN).match(
            rest
        )
        if m and m.group(1).strip(" .,"):
            val = m.group(1).rstrip(" .,")
            out.append((end + m.start(1), end + m.start(1) + len(val)))
    return out


def _group_spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in pattern.finditer(text):
        groups = [i for i in range(1, (pattern.groups or 0) + 1) if m.group(i)]
        if groups:
            out.extend(m.span(i) for i in groups)
        else:
            out.append(m.span())
    return out


def _split_names(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A list of names ("Ella, 9, and Finn") is one span per name, so the numbers between stay."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        for m in re.finditer(_CAP_SEQ, text[s:e]):
            out.append((s + m.start(), s + m.end()))
    return out


def _places(text: str) -> list[tuple[int, int]]:
    out = []
    for s, e in _group_spans(_PLACE_EN, text):
        words = text[s:e].split()
        if words and words[0].lower().strip(".,") in _NOT_PLACE:
            continue
        # "to Cornwall in August": a month or a weekday ends the place
        while words and words[-1].lower().strip(".,") in _NOT_PLACE:
            words.pop()
        if words:
            out.append((s, s + len(" ".join(words))))
    out += [m.span() for m in _PLACE_ZH.finditer(text)]
    return out


VALUE_KINDS: dict[str, str] = {
    "salary": "amount",
    "id_number": "code",
    "passport": "code",
    "city": "place",
    "postcode": "postcode",
    "license_plate": "plate",
    "handle": "handle",
    "school": "school",
    "nickname": "nickname",
    "company": "company",
    "age": "age",
    "birthday": "date",
    "name": "name",
    "pet": "name",
    "partner": "name",
    "children": "name",
}


def value_spans(kind: str, text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that hold a value of ``kind`` (see :data:`VALUE_KINDS`), in order."""
    text = unicodedata.normalize("NFC", text)
    if kind == "place":
        spans = _places(text)
    elif kind == "name":
        spans = _split_names(text, _group_spans(_NAME_EN, text)) + _group_spans(_NAME_ZH, text)
        spans += _group_spans(_NAME_AFTER_RELATION_EN, text)
        spans += [
            (s, e) for s, e in _group_spans(_NAME_AFTER_RELATION_ZH, text) if text[s:e] not in _NOT_NAME_ZH
        ]
    elif kind == "code":
        spans = [m.span() for m in _CODE.finditer(text)]
    elif kind == "amount":
        spans = [m.span() for m in _AMOUNT.finditer(text)]
    elif kind == "med":
        spans = _group_spans(_MED_EN, text) + _group_spans(_MED_ZH, text)
    elif kind == "nickname":
        spans = _group_spans(_NICK_EN, text) + _group_spans(_NICK_ZH, text)
    elif kind == "company":
        spans = _group_spans(_COMPANY_EN, text) + _group_spans(_COMPANY_ZH, text)
    elif kind == "school":
        spans = _group_spans(_SCHOOL_EN, text) + [m.span() for m in _SCHOOL_ZH.finditer(text)]
    elif kind == "age":
        spans = [m.span() for m in _AGE_EN.finditer(text)] + [m.span() for m in _AGE_ZH.finditer(text)]
    elif kind == "date":
        spans = [m.span() for m in _DATE_EN.finditer(text)] + [m.span() for m in _DATE_ZH.finditer(text)]
    elif kind == "postcode":
        spans = [m.span() for m in _POSTCODE.finditer(text)]
    elif kind == "plate":
        spans = _group_spans(_PLATE, text)
    elif kind == "handle":
        spans = _group_spans(_HANDLE, text)
    else:
        spans = []
    spans = [(s, e) for s, e in spans if e > s and text[s:e].strip()]
    merged: list[tuple[int, int]] = []
    for s, e in sorted(set(spans)):
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


# someone else's clause: a named possessive ("Greg's cell is …") or a third person (他/她, his/her)
_OTHER_EN = re.compile(
    r"\b(?:[A-Z][a-z]+(?:'s|’s)|his|her|he's|she's|he|she|their|they)\b"
    r"|\bmy\s+[a-z]+(?:'s|’s)(?=\s)"  # "my cofounder's twitter", "my boss's number"
)
_OTHER_ZH = re.compile(r"他|她|它")
# "经理的电话", "张浩妈妈的电话": someone's personal data; 我的, 自己的, 我家的, 公司的 are the user's
_WHOSE_ZH = re.compile(rf"([{_H}]{{1,4}})的(?:电话|手机|号码|邮箱|地址|微信|身份证|生日|工资|车牌)")
_SELF_OWNER_ZH = lexicon.words("request_parts", "self_owners")
# capitalised words that open a sentence, not a name ("My Monzo")
_SENTENCE_OPENERS = frozenset(lexicon.words("request_parts", "sentence_openers"))
_NAME_OPENERS = frozenset(lexicon.words("request_parts", "name_openers"))


# the matcher asks this of the clause around each value it finds, and a turn without punctuation
# is one clause: without the cache a long turn with many values was read once per value
@text_cache(maxsize=256)
def names_someone_else(clause: str) -> bool:
    """Whether a clause is about another person by a name or a pronoun (``"Greg's cell is …"``)."""
    if _OTHER_ZH.search(clause):
        return True
    if any(not m.group(1).endswith(_SELF_OWNER_ZH) for m in _WHOSE_ZH.finditer(clause)):
        return True
    for m in _OTHER_EN.finditer(clause):
        w = m.group(0)
        if w[0].isupper() and w.lower().startswith(("i'", "my", "user'", "user’")):
            continue  # "User's phone number: …" is how the assistant's notes name the user
        return True
    return False


def possessive_names(text: str) -> set[str]:
    """The people a request names by a possessive (``"not Greg's"`` -> {"greg"})."""
    return {m.group(1).lower() for m in re.finditer(r"\b([A-Za-z][a-z]+)(?:'s|’s)(?=\W|$)", text)}


# -- which part of a turn holds the value: parts said side by side -----------------------------------
# a turn says several things side by side: clauses, list items, brackets, "and" / 还有 between them
_PART_SPLIT = re.compile(
    r"[,;，；。!！?？()（）、…:：]+|(?<!\s)\s++-+\s+|(?<!\s)\s++(?:and|but|while|whereas|plus|or)\s+"
    r"|还有|而且|但是|不过|另外"
)
_PERSON_WORD_EN = re.compile(rf"\b({_RELATION_EN})s?\b", re.I)
_PERSON_WORD_ZH = re.compile(
    rf"({_RELATION_ZH}|老大|老二|老三|老幺|我姐|我哥|我弟|我妹|小舅子|领导|医生|邻居)"
)
_SELF_EN = re.compile(r"\b(?:I|I'm|I've|I'd|me)\b")


def parts(text: str) -> list[tuple[int, int]]:
    """The parts of ``text`` said side by side (clauses, list items, brackets), as spans."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in [*_PART_SPLIT.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            out.append((start + lead, start + len(piece.rstrip())))
        if m is not None:
            start = m.end()
    return out


def person_words(text: str) -> set[str]:
    """The relation words a text says (``"my son Leo"`` -> {"son"}, 老二在… -> {"老二"})."""
    return set(_person_words(text))


# asked of the part around each value the matcher finds (see names_someone_else)
@text_cache(maxsize=256)
def _person_words(text: str) -> frozenset[str]:
    found = {m.group(1).lower() for m in _PERSON_WORD_EN.finditer(text)}
    found |= {m.group(1).removeprefix("我") for m in _PERSON_WORD_ZH.finditer(text)}
    return frozenset(found)


def says_self(text: str) -> bool:
    """Whether a part is about the speaker ("I work at …", 我在琴行上班)."""
    if has_cjk(text):
        return "我" in text and not person_words(text)
    return bool(_SELF_EN.search(text))


_NUMBER = re.compile(
    r"(?:[£$€¥]\s?)?(?<![A-Za-z0-9.])[A-Za-z]{0,3}\d[A-Za-z0-9:.,/-]*(?:\s?(?:lbs?|kg|公斤|斤|岁|块|元|k))?(?![A-Za-z0-9])"
    r"|[A-Z]\d[A-Z\d]*|\d+[A-Z]+\b|[A-Z]区\d+|\d+(?:\.\d+)?\s*(?:岁|公斤|斤|块钱|块|元)"
)
_CAPS = re.compile(rf"(?<![\w'])({_CAP_SEQ})")
# a Chinese value said after 在 / 是 / 叫: 我女朋友在字节跳动, 在阿里上班
_ZH_AFTER = re.compile(
    rf"(?:在|是|叫|去|到)([{_H}A-Za-z0-9]{{2,8}}?)(?=上班|工作|实习|读书|读|上学|上课|做|当|$)"
)


def plain_values(text: str, start: int, end: int, skip: set[str]) -> list[tuple[int, int]]:
    """Values by shape alone in ``text[start:end]``: numbers and codes first, then names by their
    capital (not the words in ``skip``, not the first word of a sentence, not a name right after a
    relation word, which says whose the value is), then a Chinese value after 在 / 是 / 叫."""
    piece = text[start:end]
    nums = [(start + m.start(), start + m.end()) for m in _NUMBER.finditer(piece)]
    if nums:
        return nums
    whose = {s for s, _ in _group_spans(_NAME_AFTER_RELATION_EN, text)}
    caps = []
    for m in _CAPS.finditer(piece):
        s, e = start + m.start(1), start + m.end(1)
        words = m.group(1).split()
        if s in whose or m.group(1).lower() in skip or words[0] in _SENTENCE_OPENERS:
            continue
        if s == 0 or text[:s].rstrip().endswith((".", "!", "?")):
            continue
        caps.append((s, e))
    if caps:
        return caps
    return [(start + m.start(1), start + m.end(1)) for m in _ZH_AFTER.finditer(piece)]


def named_value(text: str, start: int, end: int, term: str) -> list[tuple[int, int]]:
    """A name that holds the request's own word ("staying at the Hotel Edison" for "the hotel")."""
    out = []
    for m in _CAPS.finditer(text[start:end]):
        words = m.group(1).split()
        if words and words[0] in _NAME_OPENERS:
            continue  # "My Monzo": a sentence's first word, not part of the name
        if len(words) > 1 and any(w.lower().rstrip("s'") == term.rstrip("s") for w in words):
            out.append((start + m.start(1), start + m.end(1)))
    return out


# -- measured attributes: a value known by its unit or by the label said before it ------------------
# "多少斤那个别记了，身高无所谓" names a weight and keeps a height; the memory says 一米六，一百三十斤
# with neither word: the unit says which value is which. Each entry: the words that name the
# attribute in a request, and the value's shapes in a memory (a labelled number counts too).
_ZH_NUM = "0-9一二两三四五六七八九十百千零〇点"
_MEASURES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "weight": (
        re.compile(r"\bweigh(?:t|ts|s|ing)?\b|\bhow heavy\b|\blbs\b|\bkilos\b|体重|斤|多重|公斤"),
        re.compile(
            rf"\b\d{{2,3}}(?:\.\d+)?\s?(?:lbs?|pounds?|kg|kgs|kilos?)(?![a-z])|[{_ZH_NUM}]{{1,6}}(?:斤|公斤|千克)"
            r"|(?<=体重)\s*\d{2,3}(?:\.\d+)?|\bweigh(?:s|t is)?\s+(\d{2,3})\b"
            # a goal weight: "get down to 150", 瘦到55
            rf"|\b(?:get|got|getting|come|go)\s+down\s+to\s+(\d{{2,3}})\b|(?<=[瘦减降]到)[{_ZH_NUM}]{{2,5}}(?![{_ZH_NUM}年月])"
        ),
    ),
    "height": (
        re.compile(r"\bheight\b|\bhow tall\b|\btall\b|身高|多高|个子|个头"),
        re.compile(
            r"\b\d\s?'\s?\d{1,2}(?:\"|'')?|\b\d\s?(?:foot|feet|ft)(?:\s?\d{1,2})?(?:\s?(?:in|inches)\b)?"
            r"|\b\d{3}\s?cm\b|\b1\.\d{1,2}\s?m\b|一米[一二三四五六七八九零〇]{1,2}|1米\d{1,2}|\d{3}(?:厘米|公分)"
            r"|(?<=身高)\s*\d{3}"
        ),
    ),
    "blood_pressure": (
        re.compile(r"\bbp\b|\bblood pressure\b|血压"),
        re.compile(r"(?<![\d/])\d{2,3}/\d{2,3}(?![\d/])"),
    ),
    "heart_rate": (
        re.compile(r"\bheart ?rate\b|\bpulse\b|心率|心跳"),
        re.compile(r"(?:heart rate|pulse|心率|心跳)\D{0,8}?(\d{2,3})(?![\d/])", re.I),
    ),
    "blood_sugar": (
        re.compile(r"\bblood sugar\b|\bglucose\b|\ba1c\b|血糖"),
        re.compile(r"(?:blood sugar|glucose|a1c|血糖)\D{0,10}?(\d{1,2}(?:\.\d)?)(?![\d/])", re.I),
    ),
    "body_fat": (
        re.compile(r"\bbody ?fat\b|体脂"),
        re.compile(r"(?:body ?fat|体脂率?)\D{0,8}?(\d{1,2}(?:\.\d)?\s?%?)", re.I),
    ),
    "pay": (
        re.compile(
            r"\b(?:pay|salary|salaries|wage|wages|income|earn|earns|paycheck|make|makes|bonus|bonuses|commission)\b|工资|月薪|年薪|薪水|薪资|收入|挣"
        ),
        re.compile(
            _AMOUNT.pattern + r"|\b\d+(?:\.\d+)?k\b|\b\d+(?:\.\d+)?%(?=\s+(?:bonus|raise|commission))",
            re.I,
        ),
    ),
    "duration": (
        re.compile(r"\bhow long\b|多久|多长时间|几年了"),
        re.compile(
            rf"\b\d{{1,2}}\s?(?:years?|yrs?|months?)\b|[{_ZH_NUM}]{{1,3}}(?:年多|年|个月)(?=了|$|[，。,])"
        ),
    ),
}
# "I'm 5'11, 190": a bare number right after a height is the weight
_WEIGHT_AFTER_HEIGHT = re.compile(r"^\s*(?:,|and)\s*(\d{2,3})\b(?!\s*(?:/|%|cm|years?))")


# measures whose value alone does not say the attribute (an amount may be rent or pay): they
# choose the value inside a memory the rules matched, never match a memory by themselves
BY_LABEL_ONLY = frozenset({"pay", "duration"})


def measures_named(text: str) -> tuple[str, ...]:
    """The measured attributes a request names (``"my weight"`` -> weight, 身高 -> height)."""
    return tuple(k for k, (words, _) in _MEASURES.items() if words.search(text))


def measure_spans(kind: str, text: str) -> list[tuple[int, int]]:
    """Where a value of the measured attribute ``kind`` sits in ``text``, by its unit or its label."""
    spans = [(s, e) for s, e in _group_spans(_MEASURES[kind][1], text) if text[s:e].strip()]
    spans = [(s + len(text[s:e]) - len(text[s:e].lstrip()), e) for s, e in spans]
    if kind == "weight":
        for _s, e in measure_spans("height", text):
            m = _WEIGHT_AFTER_HEIGHT.match(text[e:])
            if m:
                spans.append((e + m.start(1), e + m.end(1)))
    return sorted(set(spans))


def measure_said(kind: str, text: str) -> bool:
    """Whether ``text`` names the measured attribute ``kind`` by its word ("weighs", 血压)."""
    return bool(_MEASURES[kind][0].search(text.lower()))
