"""E-mail addresses, internationalised and obfuscated.

A finder rather than one pattern: each ``@`` (or a spelled-out "at": ``(at)``, `` at ``, 艾特) is
expanded to the left over the local part and to the right over domain labels joined by dots
(``.``, ``[dot]``, `` dot ``, 点). Labels stay within one script, so an address glued to the
text around it (``邮箱是ana@example.com谢谢``) ends where the script changes, and an IDN address
(``josé@correo.es``, ``почта@пример.рф``, ``用户@例子.中国``) is found whole.

Spelled-out forms are what people write to dodge scrapers, and also what ordinary prose looks
like ("we met at noon"), so they need more: a known top-level domain, and either a spelled dot,
a bracketed "at", a handle-like local part (a digit, dot, underscore, plus or hyphen in it) or a
word such as "email" just before.
"""

from __future__ import annotations

import re
import unicodedata

from remnant.privacy.entities import Detection, EntityType
from remnant.privacy.lexicon import shared, words

# runs of spaces are bounded ({0,16}): an unbounded one is tried from every space of a long run
_AT = re.compile(
    r"[ ]?@[ ]?"
    r"|[ ]{0,16}[\[(（{<][ ]*at[ ]*[\])）}>][ ]*"
    r"|(?<=[^\s@])[ ]+at[ ]+(?=\S)"
    r"|[ ]{0,16}艾特[ ]*",
    re.IGNORECASE,
)
_DOT = re.compile(
    r"\.|。|[ ]*[\[(（{<][ ]*dot[ ]*[\])）}>][ ]*|[ ]+dot[ ]+|[ ]*[点點][ ]*",
    re.IGNORECASE,
)
_LOCAL_PUNCT = frozenset("._%+-")
_HANDLE_PUNCT = frozenset("._+-")
_CUE = re.compile("(?:" + "|".join(words("emails", "cues")) + r")[^.\n]{0,24}$", re.IGNORECASE)
_NOT_LOCAL = frozenset(words("emails", "not_local_parts"))
_LOCAL_CUES = words("emails", "local_part_cues")

# For spelled-out forms only: the top-level domains people actually type (see the data).
_COMMON_TLDS = frozenset(shared("emails")["tlds"])
# Chinese- and Japanese-script TLDs, longest first, so 用户@例子.中国谢谢 stops before 谢谢.
_HAN_TLDS = tuple(sorted(shared("emails")["script_tlds"], key=len, reverse=True))
_CJK_HEADS = frozenset({"CJK", "IDEOGRAPHIC", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HALFWIDTH"})
_MAX_LOCAL = 64
_MAX_LABELS = 8


def _script(ch: str) -> str:
    """A coarse script class: LATIN (ASCII letters and Latin with diacritics), CJK, CYRILLIC, ..."""
    if ch.isascii():
        return "LATIN"
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "?"
    head = name.split(" ", 1)[0]
    # Japanese writes one word in kanji and kana together (山田たろう, 例え): one script here
    return "CJK" if head in _CJK_HEADS else head


def _neutral(ch: str) -> bool:
    return ch.isdigit() or ch in _LOCAL_PUNCT


# "ana dot lee at example dot com": a spelled dot inside the local part
_LOCAL_DOT_TAIL = re.compile(
    r"([A-Za-z0-9_%+\-]+)(?:[ ]+dot[ ]+|[ ]*[\[(（{<][ ]*dot[ ]*[\])）}>][ ]*)$", re.IGNORECASE
)


def _spelled_local_start(text: str, start: int) -> int:
    for _ in range(3):
        m = _LOCAL_DOT_TAIL.search(text, max(0, start - 40), start)
        if m is None:
            break
        start = m.start(1)
    return start


def _local_start(text: str, end: int) -> int:
    """Start of the local part that ends at ``end`` (== ``end`` when there is none)."""
    i = end
    script: str | None = None
    while i > 0 and end - i < _MAX_LOCAL:
        ch = text[i - 1]
        if not (ch.isalnum() or ch in _LOCAL_PUNCT or ch == "_"):
            break
        if ch.isalpha():
            s = _script(ch)
            if script is None:
                script = s
            elif s != script:
                break
        i -= 1
    while i < end and text[i] in _LOCAL_PUNCT:  # ".ana" is not a local part
        i += 1
    if script == "CJK" and i < end:
        # a Chinese local part is glued to the sentence: keep what follows the last cue word
        for cue in _LOCAL_CUES:
            k = text.rfind(cue, i, end)
            if k != -1:
                i = k + len(cue)
                break
    return i


def _label_end(text: str, pos: int) -> int:
    """End of a domain label starting at ``pos``: letters and digits of one script, inner hyphens."""
    i = pos
    script: str | None = None
    while i < len(text):
        ch = text[i]
        if ch.isalpha():
            s = _script(ch)
            if script is None:
                script = s
            elif s != script:
                break
        elif not (ch.isdigit() or (ch == "-" and i > pos)):
            break
        i += 1
    while i > pos and text[i - 1] == "-":
        i -= 1
    return i


def _tld_end(text: str, start: int, end: int, spelled: bool) -> int:
    """End of a valid top-level domain within ``text[start:end]``, or -1."""
    label = text[start:end]
    if label.lower().startswith("xn--") and len(label) > 4:
        return end
    if not label.isalpha():
        return -1
    if _script(label[0]) == "CJK":
        for tld in _HAN_TLDS:
            if label.startswith(tld):
                return start + len(tld)
        return -1
    if spelled:
        return end if label.lower() in _COMMON_TLDS else -1
    return end if 2 <= len(label) <= 24 else -1


def find_emails(text: str) -> list[Detection]:
    out: list[Detection] = []
    last_end = 0
    for at in _AT.finditer(text):
        if at.start() < last_end:
            continue
        local_start = _local_start(text, at.start())
        if local_start >= at.start():
            continue
        local_start = _spelled_local_start(text, local_start)
        # domain labels joined by dots
        labels: list[tuple[int, int]] = []
        dots: list[str] = []
        pos = at.end()
        end = _label_end(text, pos)
        if end == pos:
            continue
        labels.append((pos, end))
        while len(labels) < _MAX_LABELS:
            dot = _DOT.match(text, labels[-1][1])
            if dot is None:
                break
            nxt = _label_end(text, dot.end())
            if nxt == dot.end():
                break
            labels.append((dot.end(), nxt))
            dots.append(dot.group())
        found = _accept(text, at.group(), local_start, at.start(), labels, dots)
        if found is not None:
            out.append(found)
            last_end = found.end
    return out


def _accept(
    text: str,
    at: str,
    local_start: int,
    local_end: int,
    labels: list[tuple[int, int]],
    dots: list[str],
) -> Detection | None:
    real_at = "@" in at
    bracketed = any(c in at for c in "[(（{<")
    # try the longest domain first, then shorter ones (a sentence may go on after the address)
    for k in range(len(labels), 1, -1):
        used = dots[: k - 1]
        spelled_dot = any(d != "." for d in used)
        spelled = spelled_dot or not real_at
        start, end = labels[k - 1]
        tld_end = _tld_end(text, start, end, spelled)
        if tld_end == -1:
            continue
        if spelled and not (real_at or bracketed or spelled_dot):
            local = text[local_start:local_end]
            handle = any(c.isdigit() or c in _HANDLE_PUNCT for c in local)
            if not handle and not _CUE.search(text[max(0, local_start - 40) : local_start]):
                continue  # "we met at google.com"
        if not real_at and text[local_start:local_end].lower() in _NOT_LOCAL:
            continue
        score = 1.0 if not spelled else 0.9
        return Detection(EntityType.EMAIL, local_start, tld_end, text[local_start:tld_end], score, "email")
    return None
