"""Forget requests in natural language: "forget my phone number", "删除我的地址".

:func:`forget_request` parses the request into a :class:`ForgetIntent` (what: keys, kinds, PII
types, free text; hide or delete), finds the user's memories that match (by key, by kind, by the
privacy layer's placeholders such as ``[PHONE_1]`` in the content, by words), and hides or purges
them, all audited under one batch id. ``dry_run`` shows what would go. A request that would take
more than ``confirm_share`` of the user's memories needs ``confirm=True``. Rule-based, English and
Chinese; an LLM can parse instead through :class:`IntentParser` (the rules still do the matching).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from remnant.core.errors import ConfirmationRequired, ValidationError
from remnant.core.model import Kind, MemoryRecord, Status, check_identifier, new_id
from remnant.core.text import has_cjk, has_han, query_terms
from remnant.engine.results import ForgetIntent, ForgetMatch, ForgetResult
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger


@dataclass(frozen=True)
class Topic:
    """A kind of personal detail a user may ask to forget, and how to recognise it."""

    key: str  # canonical memory key
    key_stems: tuple[str, ...]  # a memory key containing one of these matches ("mobile_phone")
    request_words: tuple[str, ...]  # phrases in a request that name the topic (EN and ZH)
    content_words: tuple[str, ...]  # phrases in a memory's content that mark it (kept specific)
    pii_types: tuple[str, ...] = ()  # privacy-layer entity labels, as in [PHONE_1]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "phone_number",
        ("phone", "mobile", "cell", "tel"),
        (
            "phone number",
            "phone",
            "mobile number",
            "mobile",
            "cell phone",
            "cellphone",
            "telephone",
            "电话号码",
            "手机号码",
            "手机号",
            "电话",
            "手机",
            "联系方式",
        ),
        (
            "phone number",
            "mobile number",
            "cell number",
            "telephone number",
            "phone no",
            "电话号码",
            "手机号",
        ),
        ("PHONE",),
    ),
    Topic(
        "address",
        ("address", "addr", "residence"),
        ("home address", "address", "where i live", "家庭住址", "住址", "地址", "住处"),
        ("address", "live at", "住址", "地址"),
        ("ADDRESS",),
    ),
    Topic(
        "email",
        ("email", "e_mail", "mail"),
        ("email address", "e-mail", "email", "mail address", "电子邮件", "电子邮箱", "邮箱"),
        ("email", "e-mail", "邮箱"),
        ("EMAIL",),
    ),
    Topic(
        "birthday",
        ("birthday", "birth", "dob"),
        ("date of birth", "birthday", "birth date", "出生日期", "生日"),
        ("birthday", "born on", "date of birth", "生日", "出生"),
    ),
    Topic(
        "name",
        ("name",),
        ("full name", "real name", "name", "真实姓名", "姓名", "名字"),
        ("my name is", "名字", "姓名"),
        ("NAME",),
    ),
    Topic(
        "credit_card",
        ("card", "credit"),
        ("credit card number", "credit card", "card number", "bank card", "信用卡号", "信用卡", "银行卡"),
        ("credit card", "card number", "信用卡", "银行卡"),
        ("CARD",),
    ),
    Topic(
        "id_number",
        ("id_number", "id_card", "passport", "ssn", "national_id"),
        ("id number", "id card", "passport number", "passport", "身份证号码", "身份证号", "身份证", "护照"),
        ("id number", "passport", "身份证", "护照"),
        ("CN_ID", "PASSPORT"),
    ),
    Topic("password", ("password", "passcode"), ("password", "passcode", "密码"), ("password", "密码")),
)

_KIND_WORDS: dict[Kind, tuple[str, ...]] = {
    Kind.PREFERENCE: ("preferences", "preference", "likes and dislikes", "偏好", "喜好"),
    Kind.OPEN_ISSUE: ("open issues", "open issue", "tickets", "ticket", "工单"),
    Kind.EPISODE: ("conversations", "conversation", "chat history", "chats", "对话记录", "聊天记录", "对话"),
    Kind.SUMMARY: ("summaries", "summary", "摘要", "总结"),
    Kind.FACT: ("facts",),
}
_HARD = re.compile(
    r"\b(delete|erase|purge|remove|wipe|destroy|permanently|for good|completely|get rid of)\b"
    r"|删除|删掉|删了|彻底|永久|清除|抹去|抹掉|销毁"
)
_SOFT = re.compile(
    r"\b(forget|hide|unlearn|stop remembering|don'?t remember)\b|忘记|忘掉|忘了|别记|不要记|隐藏"
)
_EVERYTHING = re.compile(
    r"\b(everything|all (of )?my (memories|data|information|info)|all memories|anything you know|all of it)\b"
    r"|所有|全部|一切"
)
_ABOUT = re.compile(r"\b(about|regarding|related to|concerning|on)\b|关于|有关")
# words of the request that say how, not what
_FILLER_EN = re.compile(
    r"\b(please|pls|can|could|would|you|kindly|forget|hide|delete|erase|purge|remove|wipe|destroy|"
    r"permanently|for good|completely|get rid of|everything|anything|all|memories|memory|data|"
    r"information|info|stuff|things|about|regarding|related to|concerning|that|what|which|i|told|said|"
    r"know|my|mine|me|old|previous|former|past|earlier|the|a|an|of|from|your|remember|it|now)\b"
)
_FILLER_ZH = re.compile(
    r"请|帮我|麻烦|你|忘记|忘掉|忘了|别记|不要记|隐藏|删除|删掉|删了|彻底|永久|清除|抹去|抹掉|销毁|所有|全部|一切|"
    r"关于|有关|我的|我|的|信息|记录|东西|内容|资料|以前|之前|旧|吧|了|吗|把|掉|都|在|去|和"
)
_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]*?)_\d+\]")


@runtime_checkable
class IntentParser(Protocol):
    """Turns a request into a :class:`ForgetIntent` (e.g. with an LLM); ``None`` falls back to the rules."""

    def parse(self, text: str) -> ForgetIntent | None: ...


def _has_phrase(text: str, phrase: str) -> bool:
    if has_cjk(phrase):
        return phrase in text
    return re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", text) is not None


def parse_intent(text: str) -> ForgetIntent:
    """The rule-based parser (English and Chinese)."""
    norm = unicodedata.normalize("NFKC", text).lower().strip()
    rest = norm
    topics: list[Topic] = []
    # longest phrases first, across topics: "email address" is an e-mail, not an address
    for phrase, topic in sorted(
        ((p, t) for t in TOPICS for p in t.request_words), key=lambda pt: len(pt[0]), reverse=True
    ):
        if _has_phrase(rest, phrase):
            if topic not in topics:
                topics.append(topic)
            rest = rest.replace(phrase, " ")
    topics.sort(key=TOPICS.index)
    kinds: list[Kind] = []
    for kind, words in _KIND_WORDS.items():
        for phrase in words:
            if _has_phrase(rest, phrase):
                kinds.append(kind)
                rest = rest.replace(phrase, " ")
                break
    hard = bool(_HARD.search(norm))
    everything = bool(_EVERYTHING.search(norm)) and not topics and not kinds
    rest = _FILLER_ZH.sub(" ", _FILLER_EN.sub(" ", rest))
    terms = tuple(t for t in query_terms(rest) if len(t) > 1 or has_cjk(t)) if rest.strip() else ()
    if everything and terms and _ABOUT.search(norm):
        everything = False  # "everything about my trip": the trip, not everything
    return ForgetIntent(
        hard=hard,
        topics=tuple(t.key for t in topics),
        kinds=tuple(kinds),
        pii_types=tuple(dict.fromkeys(p for t in topics for p in t.pii_types)),
        terms=() if everything else terms,
        everything=everything,
        lang="zh" if has_han(norm) else "en",
    )


def _stem_set(terms: list[str]) -> set[str]:
    return {t[:-1] if len(t) > 3 and t.endswith("s") and not has_cjk(t) else t for t in terms}


def _why(record: MemoryRecord, intent: ForgetIntent, topics: list[Topic]) -> str | None:
    """Why ``record`` matches the intent, or None.

    Every named part must match: a topic (by key, placeholder or a specific phrase in the content)
    and a kind. Free-text terms are required (all of them) only when the request names neither a
    topic nor a kind; otherwise they are leftovers of the phrasing ("…that I gave you yesterday").
    """
    if intent.everything:
        return "everything"
    reasons = []
    if topics:
        key = (record.key or "").lower()
        placeholders = {m.group(1) for m in _PLACEHOLDER.finditer(record.content)}
        content = unicodedata.normalize("NFKC", record.content).lower()
        hit = None
        for topic in topics:
            if key and (key == topic.key or any(stem in key for stem in topic.key_stems)):
                hit = f"key {record.key}"
            elif placeholders & set(topic.pii_types):
                hit = "contains " + "/".join(sorted(placeholders & set(topic.pii_types)))
            elif any(_has_phrase(content, w) for w in topic.content_words):
                hit = f"mentions {topic.key.replace('_', ' ')}"
            if hit:
                break
        if hit is None:
            return None
        reasons.append(hit)
    if intent.kinds:
        if record.kind not in intent.kinds:
            return None
        reasons.append(f"kind {record.kind.value}")
    if intent.terms and not reasons:
        have = _stem_set(query_terms(record.content, drop_stopwords=False))
        if not _stem_set(list(intent.terms)) <= have:
            return None
        reasons.append("text: " + " ".join(intent.terms))
    return ", ".join(reasons) if reasons else None


def forget_request(
    ledger: Ledger,
    text: str,
    *,
    user_id: str,
    hard: bool = False,
    dry_run: bool = False,
    confirm: bool = False,
    actor: str | None = None,
    force: bool = False,
    confirm_share: float = 0.5,
    parser: IntentParser | None = None,
) -> ForgetResult:
    """Carry out a forget request in words for ``user_id``.

    ``hard`` (or a request that says "delete", "permanently", "彻底删除"…) purges; otherwise the
    memories are hidden (restorable). Pinned memories are not purged unless ``force``. A request that
    would take more than ``confirm_share`` of the user's memories raises
    :class:`~remnant.core.errors.ConfirmationRequired` unless ``confirm`` (dry runs never raise).
    """
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("a forget request must be a non-empty text")
    check_identifier(user_id, "user_id")
    if not 0.0 < confirm_share <= 1.0:
        raise ValidationError(f"confirm_share must be in (0, 1], got {confirm_share}")
    intent = (parser.parse(text) if parser is not None else None) or parse_intent(text)
    is_hard = hard or intent.hard
    action: Literal["hide", "purge"] = "purge" if is_hard else "hide"
    outcome = ForgetResult(user_id, intent, action, dry_run)
    statuses = None if is_hard else tuple(s for s in Status if s != Status.HIDDEN)
    flt = MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=statuses)
    outcome.total_memories = ledger.store.count(
        MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=None)
    )
    if intent.empty:
        outcome.message = (
            "could not tell what to forget; name it, e.g. 'forget my phone number' or '忘记我的地址'"
        )
        return outcome
    if intent.kinds and not (intent.topics or intent.terms):
        from dataclasses import replace

        flt = replace(flt, kinds=intent.kinds)  # a kind alone is a plain filter
    topics = [t for t in TOPICS if t.key in intent.topics]
    for record in ledger.store.query(flt):
        why = _why(record, intent, topics)
        if why is not None:
            outcome.matches.append(
                ForgetMatch(
                    record.id,
                    record.kind.value,
                    record.key,
                    record.status.value,
                    record.pinned,
                    why,
                    record.content if dry_run else None,
                )
            )
    redactor = ledger.redactor
    can_forget_pii = bool(intent.pii_types) and hasattr(redactor, "forget_entities")
    if not outcome.matches:
        outcome.message = "nothing matched this request; nothing was forgotten"
    if dry_run:
        if outcome.matches:
            outcome.message = f"would {action} {len(outcome.matches)} of {outcome.total_memories} memories"
        if can_forget_pii:
            outcome.message += f"; would also forget vault entries of type {', '.join(intent.pii_types)}"
        return outcome
    share = len(outcome.matches) / outcome.total_memories if outcome.total_memories else 0.0
    if outcome.matches and share > confirm_share and not confirm:
        raise ConfirmationRequired(
            f"this request matches {len(outcome.matches)} of {outcome.total_memories} memories of "
            f"{user_id!r} ({share:.0%} > {confirm_share:.0%}); repeat it with confirm=True "
            "(or look first with dry_run=True)",
            matched=len(outcome.matches),
            total=outcome.total_memories,
        )
    batch = new_id("forget")
    outcome.batch_id = batch
    who = actor or f"user:{user_id}"
    ids = [m.id for m in outcome.matches]
    if ids:
        if is_hard:
            pinned = {m.id for m in outcome.matches if m.pinned}
            if pinned and not force:
                outcome.skipped_pinned = [i for i in ids if i in pinned]
                ids = [i for i in ids if i not in pinned]
            records = ledger.store.get_many(ids, tenant=ledger.tenant)
            done = ledger.purge(
                records, reason="forget request", actor=who, policy="forget_request", batch_id=batch
            )
            outcome.forgotten = [r.id for r in done]
        else:
            outcome.forgotten = ledger.hide(
                ids, reason="forget request", actor=who, policy="forget_request", batch_id=batch
            )
    if can_forget_pii:
        outcome.vault_entries_forgotten = int(
            redactor.forget_entities(  # type: ignore[union-attr]
                tenant=ledger.tenant, user_id=user_id, entity_types=list(intent.pii_types)
            )
        )
    if outcome.forgotten or outcome.vault_entries_forgotten or outcome.matches:
        verb = "purged" if is_hard else "hid"
        outcome.message = f"{verb} {len(outcome.forgotten)} of {outcome.total_memories} memories"
        if outcome.skipped_pinned:
            outcome.message += f"; kept {len(outcome.skipped_pinned)} pinned (pass force=True to purge them)"
        if outcome.vault_entries_forgotten:
            outcome.message += f"; forgot {outcome.vault_entries_forgotten} vault entries"
    entry = ledger.audit(
        "forget_request",
        "user asked to forget",
        ids=outcome.forgotten,
        user_id=user_id,
        actor=who,
        policy="forget_request",
        batch_id=batch,
        summary=f"{action}: {len(outcome.forgotten)} memories matched "
        + (", ".join(intent.topics + tuple(k.value for k in intent.kinds)) or "free text"),
        details={
            "intent": {**intent.to_dict(), "terms": len(intent.terms)},
            "request_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "skipped_pinned": len(outcome.skipped_pinned),
            "vault_entries_forgotten": outcome.vault_entries_forgotten,
        },
    )
    outcome.audit_seq = entry.seq
    return outcome
