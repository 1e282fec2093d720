"""LoCoMo retrieval benchmark: load the data, run retrieval backends, compute LoCoMo's metrics.

Each conversation is one scope; each turn is a memory (with speaker and session date); each
question is asked against its own conversation. Metrics follow issue 3:

* turn-level Recall@k (LoCoMo's definition: per question, the share of its evidence turns
  among the top k, averaged over questions), categories 1-4 pooled and each category, the
  adversarial category 5 apart; any@5 (at least one evidence turn in the top 5) and all@5;
* session-level Recall@5: the share of a question's evidence sessions that the sessions of
  the top-5 turns cover;
* answer-hit@5 (YourMemory's rule) on what the system itself retrieved: the top-5 turns, as
  the context packer would show them ("[date] speaker: text"); a hit if the lower-cased answer
  is a substring of them or at least half of the answer's words longer than 3 letters appear in
  them. LoCoMo's shipped session summaries are never used: Remnant did not write them;
* context tokens of the top-5 turns against the whole conversation (cl100k_base);
* ingest and query time per item, query time without the query embedding reported apart.

Backends implement :class:`RetrievalBackend`, so the same numbers come out for the in-memory
reference pipeline and for the real engine. Nothing here looks at answers while retrieving.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.embed.base import Embedder
from remnant.retrieval.hybrid import HybridConfig
from remnant.retrieval.inmemory import InMemoryHybridIndex
from remnant.retrieval.tokens import TokenCounter, default_counter

CLOCKS = ("real", "replay")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
POOLED = "1-4"


class LocomoFormatError(ValidationError):
    """The file is not in the LoCoMo format."""


@dataclass(frozen=True)
class Turn:
    """One conversation turn: the unit that becomes a memory."""

    dia_id: str
    session: int
    index: int  # position in the whole conversation
    speaker: str
    text: str
    date: str  # session date as "8 May 2023" ("" if unknown)
    when: datetime | None
    caption: str = ""  # the BLIP caption of a shared image, if any


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    summaries: dict[int, str]
    questions: list[Question]
    session_dates: dict[int, str] = field(default_factory=dict)


_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)
_EVID = re.compile(r"D:?(\d+):(\d+)")


def parse_session_date(raw: str) -> tuple[str, datetime | None]:
    """'1:56 pm on 8 May, 2023' -> ('8 May 2023', datetime(2023, 5, 8, 13, 56))."""
    m = _DATE.search(raw or "")
    if not m:
        return (raw or "").strip(), None
    hh, mm, ampm, day, month, year = m.groups()
    try:
        when = datetime.strptime(f"{day} {month} {year} {hh}:{mm} {ampm.upper()}", "%d %B %Y %I:%M %p")
    except ValueError:
        return f"{day} {month} {year}", None
    return f"{int(day)} {month} {year}", when


def normalise_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """Fix malformed ids ('D8:6; D9:17', 'D:11:26', 'D30:05') and drop ids of missing turns."""
    out: list[str] = []
    for item in raw:
        for a, b in _EVID.findall(str(item)):
            did = f"D{int(a)}:{int(b)}"
            if did in known and did not in out:
                out.append(did)
    return tuple(out)


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo JSON file (one conversation object or a list of them)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LocomoFormatError(f"cannot read LoCoMo data from {path}: {exc}") from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise LocomoFormatError(f"{path}: expected a list of conversations")
    convs = []
    for n, raw in enumerate(data):
        try:
            convs.append(_conversation(raw, n))
        except (KeyError, TypeError, ValueError) as exc:
            raise LocomoFormatError(f"{path}: conversation #{n} is malformed: {exc!r}") from exc
    return convs


def _conversation(raw: dict[str, Any], n: int) -> Conversation:
    conv = raw["conversation"]
    sessions = sorted(
        int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and isinstance(conv[k], list)
    )
    turns: list[Turn] = []
    dates: dict[int, str] = {}
    for s in sessions:
        date, when = parse_session_date(str(conv.get(f"session_{s}_date_time", "")))
        dates[s] = date
        for t in conv[f"session_{s}"]:
            turns.append(
                Turn(
                    dia_id=str(t["dia_id"]),
                    session=s,
                    index=len(turns),
                    speaker=str(t.get("speaker", "")),
                    text=str(t.get("text", "")),
                    date=date,
                    when=when,
                    caption=str(t.get("blip_caption") or ""),
                )
            )
    known = {t.dia_id for t in turns}
    questions = []
    for q in raw.get("qa", []):
        cat = int(q["category"])
        answer = q.get("answer", q.get("adversarial_answer", ""))
        ev = normalise_evidence(q.get("evidence", []), known)
        if ev:
            questions.append(Question(str(q["question"]), str(answer), ev, cat))
    summaries: dict[int, str] = {}
    for key, text in (raw.get("session_summary") or {}).items():
        m = re.fullmatch(r"session_(\d+)_summary", key)
        if m and isinstance(text, str):
            summaries[int(m.group(1))] = text
    return Conversation(
        sample_id=str(raw.get("sample_id", f"conv-{n}")),
        speakers=(str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))),
        turns=turns,
        summaries=summaries,
        questions=questions,
        session_dates=dates,
    )


# --------------------------------------------------------------------------- backends


@dataclass(frozen=True)
class BenchDoc:
    """What a backend ingests: a turn (or a session summary) with its context."""

    id: str
    text: str
    speaker: str = ""
    date: str = ""
    when: datetime | None = None
    caption: str = ""
    previous: str = ""  # the turn before, "speaker: text" ("" for the first)
    following: str = ""  # the turn after


class RetrievalBackend(Protocol):
    """A system under test. One scope per conversation (and one for its summaries)."""

    name: str

    def ingest(self, scope: str, docs: Sequence[BenchDoc]) -> None: ...

    def search(self, scope: str, query: str, k: int) -> list[str]: ...

    def timing(self) -> dict[str, Any]:
        """Seconds: embed_documents, embed_queries, index, search; and per-query search times."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class TextRecipe:
    """Which context goes into the indexed text of a turn (lexical and semantic separately)."""

    speaker: bool = True
    date: bool = False
    caption: bool = True
    neighbours: bool = False  # add the previous and next turn (lexical side, same column)
    context_column: bool = False  # put the neighbouring turns in the lower-weighted context column
    repeat_body: bool = False  # single column: own text twice, then neighbours (weights context ~0.5)
    semantic_speaker: bool = True
    semantic_caption: bool = True
    semantic_neighbours: bool = False

    def lexical(self, d: BenchDoc) -> str:
        if self.repeat_body:
            own = _compose(d, self.speaker, self.date, self.caption, False)
            return "\n".join(p for p in (own, own, d.previous, d.following) if p)
        return _compose(d, self.speaker, self.date, self.caption, self.neighbours)

    def context(self, d: BenchDoc) -> str:
        return "\n".join(p for p in (d.previous, d.following) if p) if self.context_column else ""

    def semantic(self, d: BenchDoc) -> str:
        return _compose(d, self.semantic_speaker, False, self.semantic_caption, self.semantic_neighbours)


def _compose(d: BenchDoc, speaker: bool, date: bool, caption: bool, neighbours: bool) -> str:
    body = f"{d.speaker}: {d.text}" if speaker and d.speaker else d.text
    if caption and d.caption:
        body += f" [shared a photo: {d.caption}]"
    if date and d.date:
        body = f"[{d.date}] {body}"
    if neighbours:
        parts = [p for p in (d.previous, body, d.following) if p]
        body = "\n".join(parts)
    return body


class InMemoryBackend:
    """The reference pipeline: FTS5 in memory + numpy vectors, one index per scope."""

    def __init__(
        self,
        name: str,
        *,
        mode: str = "hybrid",
        embedder: Embedder | None = None,
        recipe: TextRecipe | None = None,
        config: HybridConfig | None = None,
        tokenizer: str = "porter unicode61",
        keep_stopwords: bool = False,
        context_weight: float = 0.5,
    ) -> None:
        self.name = name
        self.context_weight = context_weight
        self.mode = mode
        self.embedder = embedder
        self.recipe = recipe or TextRecipe()
        self.config = config
        self.tokenizer = tokenizer
        self.keep_stopwords = keep_stopwords
        self._scopes: dict[str, InMemoryHybridIndex] = {}

    def ingest(self, scope: str, docs: Sequence[BenchDoc]) -> None:
        idx = InMemoryHybridIndex(
            embedder=self.embedder,
            mode=self.mode,
            tokenizer=self.tokenizer,
            config=self.config,
            keep_stopwords=self.keep_stopwords,
            context_weight=self.context_weight,
        )
        idx.add(
            [d.id for d in docs],
            [self.recipe.lexical(d) for d in docs],
            [self.recipe.semantic(d) for d in docs],
            [self.recipe.context(d) for d in docs],
        )
        self._scopes[scope] = idx

    def search(self, scope: str, query: str, k: int) -> list[str]:
        return [i for i, _ in self._scopes[scope].search(query, k)]

    def timing(self) -> dict[str, Any]:
        t: dict[str, Any] = {
            "embed_documents": 0.0,
            "embed_queries": 0.0,
            "index": 0.0,
            "search": 0.0,
            "queries": [],
        }
        for idx in self._scopes.values():
            for key in ("embed_documents", "embed_queries", "index", "search"):
                t[key] += getattr(idx.timings, key)
            t["queries"].extend(idx.timings.queries)
        return t

    def close(self) -> None:
        self._scopes.clear()


# --------------------------------------------------------------------------- metrics


def turn_docs(conv: Conversation) -> list[BenchDoc]:
    """The turns of a conversation as bench documents (with neighbouring turns attached)."""
    docs = []
    for i, t in enumerate(conv.turns):
        prev = conv.turns[i - 1] if i > 0 and conv.turns[i - 1].session == t.session else None
        nxt = (
            conv.turns[i + 1] if i + 1 < len(conv.turns) and conv.turns[i + 1].session == t.session else None
        )
        docs.append(
            BenchDoc(
                id=t.dia_id,
                text=t.text,
                speaker=t.speaker,
                date=t.date,
                when=t.when,
                caption=t.caption,
                previous=f"{prev.speaker}: {prev.text}" if prev else "",
                following=f"{nxt.speaker}: {nxt.text}" if nxt else "",
            )
        )
    return docs


def summary_docs(conv: Conversation) -> list[BenchDoc]:
    return [
        BenchDoc(id=f"S{s}", text=text, date=conv.session_dates.get(s, ""))
        for s, text in sorted(conv.summaries.items())
    ]


def answer_hit(answer: str, text: str) -> bool:
    """YourMemory's measure: substring, or at least half of the answer's words (> 3 letters) appear."""
    a = answer.lower().strip()
    t = text.lower()
    if not a:
        return False
    if a in t:
        return True
    long_words = [w for w in re.findall(r"\w+", a) if len(w) > 3]
    return bool(long_words) and sum(w in t for w in long_words) >= len(long_words) / 2


def _session_of(dia_id: str) -> int:
    m = _EVID.match(dia_id)
    return int(m.group(1)) if m else -1


def _turn_line(t: Turn) -> str:
    caption = f" [shared a photo: {t.caption}]" if t.caption else ""
    return f"[{t.date}] {t.speaker}: {t.text}{caption}"


@dataclass
class _Acc:
    """Per-category lists of per-question values."""

    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, category: int, value: float) -> None:
        name = CATEGORIES.get(category, f"cat-{category}")
        self.values.setdefault(name, []).append(value)
        if category in (1, 2, 3, 4):
            self.values.setdefault(POOLED, []).append(value)

    def means(self) -> dict[str, float]:
        order = [POOLED, *CATEGORIES.values()]
        return {k: statistics.fmean(self.values[k]) for k in order if self.values.get(k)}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def evaluate(
    conversations: Sequence[Conversation],
    backend: RetrievalBackend,
    *,
    counter: TokenCounter | None = None,
    progress: Callable[[str], None] | None = None,
    dump: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run one backend over the conversations and return its metrics (fractions in 0..1).

    ``dump`` receives one dict per question (its ranking, evidence and scores) to write out.
    """
    counter = counter or default_counter()
    r5, r10, any5, all5, sess5, hit5 = _Acc(), _Acc(), _Acc(), _Acc(), _Acc(), _Acc()
    ctx_tokens: list[int] = []
    full_tokens: list[int] = []
    reductions: list[float] = []
    n_items = 0
    n_queries = 0
    ingest_s = 0.0
    query_s = 0.0
    totals: list[float] = []  # per query, the whole recall (query embedding included), ms
    for conv in conversations:
        by_id = {t.dia_id: t for t in conv.turns}
        full = counter.count("\n".join(_turn_line(t) for t in conv.turns))
        t0 = time.perf_counter()
        backend.ingest(conv.sample_id, turn_docs(conv))
        ingest_s += time.perf_counter() - t0
        n_items += len(conv.turns)
        for q in conv.questions:
            t1 = time.perf_counter()
            top = backend.search(conv.sample_id, q.question, 10)
            query_s += time.perf_counter() - t1
            totals.append(1000 * (time.perf_counter() - t1))
            n_queries += 1
            ev = set(q.evidence)
            top5 = top[:5]
            r5.add(q.category, len(ev & set(top5)) / len(ev))
            r10.add(q.category, len(ev & set(top)) / len(ev))
            any5.add(q.category, float(bool(ev & set(top5))))
            all5.add(q.category, float(ev <= set(top5)))
            ev_sessions = {_session_of(e) for e in ev}
            got_sessions = {_session_of(i) for i in top5}
            sess5.add(q.category, len(ev_sessions & got_sessions) / len(ev_sessions))
            ctx = counter.count("\n".join(_turn_line(by_id[i]) for i in top5 if i in by_id))
            ctx_tokens.append(ctx)
            full_tokens.append(full)
            reductions.append(1.0 - ctx / full if full else 0.0)
            hit = None
            if q.category != 5:
                text = " ".join(_turn_line(by_id[i]) for i in top5 if i in by_id)
                hit = answer_hit(q.answer, text)
                hit5.add(q.category, float(hit))
            if dump is not None:
                dump(
                    {
                        "system": backend.name,
                        "conversation": conv.sample_id,
                        "question": q.question,
                        "category": CATEGORIES.get(q.category, str(q.category)),
                        "answer": q.answer,
                        "evidence": list(q.evidence),
                        "top": top,
                        "recall@5": len(ev & set(top5)) / len(ev),
                        "answer_hit@5": hit,
                        **({"hits": explain()} if (explain := getattr(backend, "explain", None)) else {}),
                    }
                )
        if progress:
            progress(f"{backend.name}: {conv.sample_id} done ({len(conv.questions)} questions)")
    tm = backend.timing()
    qs = [x * 1000 for x in tm.get("queries", [])]
    return {
        "turn": {
            "recall@5": r5.means(),
            "recall@10": r10.means(),
            "any@5": any5.means(),
            "all@5": all5.means(),
        },
        "session": {"recall@5": sess5.means()},
        "answer_hit@5": hit5.means(),
        "tokens": {
            "context_k5_mean": statistics.fmean(ctx_tokens) if ctx_tokens else 0.0,
            "full_conversation_mean": statistics.fmean(full_tokens) if full_tokens else 0.0,
            "reduction": statistics.fmean(reductions) if reductions else 0.0,
            "counter": counter.name,
        },
        "timing": {
            "items": n_items,
            "queries": n_queries,
            "ingest_ms_per_item": 1000 * ingest_s / max(n_items, 1),
            "query_ms_per_item": 1000 * query_s / max(n_queries, 1),
            "embed_ms_per_item": 1000 * float(tm.get("embed_documents", 0.0)) / max(n_items, 1),
            "embed_ms_per_query": 1000 * float(tm.get("embed_queries", 0.0)) / max(len(qs), 1),
            "search_ms_p50": _pct(qs, 0.5),
            "search_ms_p95": _pct(qs, 0.95),
            "recall_ms_p50": _pct(totals, 0.5),
            "recall_ms_p95": _pct(totals, 0.95),
        },
        "questions": {k: len(v) for k, v in r5.values.items()},
    }


def run_bench(
    conversations: Sequence[Conversation],
    backends: Sequence[RetrievalBackend],
    *,
    progress: Callable[[str], None] | None = None,
    dump: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Evaluate every backend; returns ``{backend.name: metrics}``."""
    out: dict[str, Any] = {}
    counter = default_counter()
    for b in backends:
        try:
            out[b.name] = evaluate(conversations, b, counter=counter, progress=progress, dump=dump)
        finally:
            b.close()
    return out


def format_report(results: dict[str, Any]) -> str:
    """A plain-text table of the main figures (percentages)."""
    cats = [POOLED, *CATEGORIES.values()]
    lines = []
    head = f"{'system':<16} {'metric':<18}" + "".join(f"{c:>12}" for c in cats)
    lines.append(head)
    lines.append("-" * len(head))
    for name, r in results.items():
        rows = [
            ("turn recall@5", r["turn"]["recall@5"]),
            ("turn recall@10", r["turn"]["recall@10"]),
            ("turn any@5", r["turn"]["any@5"]),
            ("turn all@5", r["turn"]["all@5"]),
            ("session recall@5", r["session"]["recall@5"]),
            ("answer-hit@5", r["answer_hit@5"]),
        ]
        for label, vals in rows:
            lines.append(
                f"{name:<16} {label:<18}"
                + "".join(f"{100 * vals[c]:>11.1f}%" if c in vals else f"{'-':>12}" for c in cats)
            )
        tk, tm = r["tokens"], r["timing"]
        lines.append(
            f"{name:<16} tokens@5 {tk['context_k5_mean']:.0f} vs full {tk['full_conversation_mean']:.0f} "
            f"({100 * tk['reduction']:.2f}% fewer); ingest {tm['ingest_ms_per_item']:.2f} ms/item "
            f"(embedding {tm['embed_ms_per_item']:.2f}); query {tm['query_ms_per_item']:.2f} ms/item, "
            f"search p50 {tm['search_ms_p50']:.2f} ms p95 {tm['search_ms_p95']:.2f} ms excl. embedding "
            f"({tm['embed_ms_per_query']:.2f} ms/query embedding); recall p50 {tm['recall_ms_p50']:.2f} ms "
            f"p95 {tm['recall_ms_p95']:.2f} ms incl. embedding"
        )
    return "\n".join(lines)


def write_chart(results: dict[str, Any], path: str | Path) -> None:
    """Bar chart of turn Recall@5 per category for each system (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cats = [POOLED, *CATEGORIES.values()]
    names = list(results)
    fig, ax = plt.subplots(figsize=(8, 3.6), dpi=90)
    width = 0.8 / max(len(names), 1)
    for j, name in enumerate(names):
        vals = [100 * results[name]["turn"]["recall@5"].get(c, 0.0) for c in cats]
        ax.bar([i + j * width for i in range(len(cats))], vals, width, label=name)
    ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(cats))])
    ax.set_xticklabels(cats)
    ax.set_ylabel("turn Recall@5 (%)")
    ax.set_ylim(0, 100)
    ax.set_title("LoCoMo turn-level Recall@5")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(str(path))
    plt.close(fig)


# --------------------------------------------------------------------------- the real engine


class TimedEmbedder:
    """Wraps an embedder to measure the time spent embedding (reported apart from search)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.documents_s = 0.0
        self.queries_s = 0.0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        t0 = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.documents_s += time.perf_counter() - t0

    def embed_query(self, text: str) -> Any:
        t0 = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.queries_s += time.perf_counter() - t0


class _ReplayClock:
    """A clock the replay sets to each session's date in turn (conversations overlap in time, so
    it goes back between them, which a ManualClock refuses)."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def set(self, when: datetime) -> None:
        self.at = when


def _bench_clock(clock: str, latest: datetime | None) -> tuple[datetime, ManualClock | _ReplayClock]:
    """The latest session date (aware) and the backend's clock: now (``real``) or replaying the
    sessions up to that date (``replay``)."""
    last = (latest or datetime(2030, 1, 1)).replace(tzinfo=UTC)
    return last, ManualClock(datetime.now(UTC)) if clock == "real" else _ReplayClock(last)


def _timing(embedder: Any, index_s: float, queries: list[float]) -> dict[str, Any]:
    """A backend's time: in the embedder (documents, queries), indexing and each search."""
    return {
        "embed_documents": embedder.documents_s if embedder else 0.0,
        "embed_queries": embedder.queries_s if embedder else 0.0,
        "index": index_s,
        "search": sum(queries),
        "queries": list(queries),
    }


class EngineBackend:
    """Runs the bench through :class:`remnant.Memory` on a real SQLite file.

    Each conversation is one user; each turn a memory of kind ``episode`` with its session as
    ``session_id``, its speaker in metadata and its session date as ``occurred_at`` (when it was
    said). Recall runs with ``touch=False`` so asking questions does not change the memories.

    ``clock="real"`` (the default): the memories are learned now, on the wall clock, as when a
    user imports their chat history today; decay runs from now. ``clock="replay"``: each session
    is learned at its own date and the questions come one day after the last session, as if
    Remnant had listened live all along (with the default decay most early turns have faded).
    """

    def __init__(
        self,
        name: str,
        retriever_factory: Callable[[Embedder | None], Any],
        embedder: Embedder | None,
        db_dir: str | Path,
        latest: datetime | None = None,
        clock: str = "real",
    ) -> None:

        from remnant.engine.memory import Memory

        if clock not in CLOCKS:
            raise ValidationError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
        self.name = name
        self.clock_mode = clock
        self._latest, self.clock = _bench_clock(clock, latest)
        self._embedder = TimedEmbedder(embedder) if embedder is not None else None
        path = Path(db_dir) / f"locomo-{name}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        self.path = path
        self.memory = Memory(path, clock=self.clock, retriever=retriever_factory(self._embedder))
        self._dia: dict[str, list[str]] = {}
        self._index_s = 0.0
        self._queries: list[float] = []

    def ingest(self, scope: str, docs: Sequence[BenchDoc]) -> None:
        from datetime import UTC

        from remnant.core.model import MAX_CONTENT_CHARS, Kind

        by_session: dict[str, list[BenchDoc]] = {}
        for d in docs:
            by_session.setdefault(d.id.split(":")[0], []).append(d)
        embed0 = self._embedder.documents_s if self._embedder else 0.0
        t0 = time.perf_counter()
        for session, group in by_session.items():
            when = group[0].when
            if self.clock_mode == "replay" and when is not None:
                self.clock.set(when.replace(tzinfo=UTC))
            items = []
            for d in group:
                content = d.text + (f" [shared a photo: {d.caption}]" if d.caption else "")
                # a turn may be only a photo, or (in other files) empty or oversized: keep it findable
                content = (content.strip() or "(no text)").replace("\x00", " ")[:MAX_CONTENT_CHARS]
                items.append(
                    {
                        "content": content,
                        "user_id": scope,
                        "kind": Kind.SUMMARY if d.id.startswith("S") else Kind.EPISODE,
                        "session_id": session,
                        "occurred_at": d.when.replace(tzinfo=UTC) if d.when else None,
                        "metadata": {"speaker": d.speaker, "ref": d.id} if d.speaker else {"ref": d.id},
                    }
                )
            stored = self.memory.remember_many(items, supersede=False)
            for d, rec in zip(group, stored, strict=True):
                # a repeated turn ("Thanks!") is kept once: that memory stands for every turn it holds
                self._dia.setdefault(rec.id, []).append(d.id)
        if self.clock_mode == "replay":
            self.clock.set(self._latest)
        spent = time.perf_counter() - t0
        self._index_s += spent - ((self._embedder.documents_s - embed0) if self._embedder else 0.0)

    def search(self, scope: str, query: str, k: int) -> list[str]:
        q0 = self._embedder.queries_s if self._embedder else 0.0
        t0 = time.perf_counter()
        res = self.memory.recall(query, user_id=scope, limit=k, touch=False, hints=False)
        spent = time.perf_counter() - t0
        self._queries.append(spent - ((self._embedder.queries_s - q0) if self._embedder else 0.0))
        return [ref for h in res.hits for ref in self._dia[h.memory.id]][:k]

    def refs(self, memory_id: str) -> list[str]:
        """The turns (dia ids) a stored memory stands for ([] for one not written by the bench)."""
        return list(self._dia.get(memory_id, ()))

    def timing(self) -> dict[str, Any]:
        return _timing(self._embedder, self._index_s, self._queries)

    def close(self) -> None:
        self.memory.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)


class ProductBackend:
    """The product's conversation path: ``remnant.Memory(path)`` with its defaults (privacy layer,
    the rule ingestor with its salience model, extracted facts, dedup, the contradiction check),
    each turn fed through :meth:`Memory.add` as an application would.

    Each turn is one ``add([{"role": "user", "content": text, "name": speaker}],
    occurred_at=<session date>, session_id=<session>)`` (``speaker="text"``: the speaker inside the
    content, ``"<speaker>: <text>"``, and no session id: issue 31's first measurement). Recall is
    ``limit=k, touch=False``; each hit stands for its source turn (a fact for the episode it was
    drawn from, ``from_episode``), and a slot two hits of one turn take is counted as taken: the
    top 5 are the first five hits, not the first five distinct turns.
    """

    def __init__(
        self,
        name: str,
        embedder: Embedder | None,
        db_dir: str | Path,
        latest: datetime | None = None,
        clock: str = "real",
        *,
        speaker: str = "name",
        sessions: bool = True,
    ) -> None:

        from remnant.config import Memory
        from remnant.retrieval.retriever import HybridRetriever, IndexTextPolicy, context_vector_from_env

        if clock not in CLOCKS:
            raise ValidationError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
        if speaker not in ("name", "text"):
            raise ValidationError(f"speaker must be 'name' or 'text', not {speaker!r}")
        self.name = name
        self.clock_mode = clock
        self.speaker = speaker
        self.sessions = sessions
        self._latest, self.clock = _bench_clock(clock, latest)
        self._embedder = TimedEmbedder(embedder) if embedder is not None else None
        path = Path(db_dir) / f"locomo-{name}.db"
        self._files = [Path(f"{path}{s}") for s in ("", "-wal", "-shm", ".vault-key", ".audit-key")]
        for f in self._files:
            f.unlink(missing_ok=True)
        self.path = path
        # the shipped retriever (default_retriever's recipe), on the bench's cached copy of the model
        policy = IndexTextPolicy(context_vector=context_vector_from_env())
        self.memory = Memory(
            path, clock=self.clock, retriever=HybridRetriever(self._embedder, index_text=policy)
        )
        self._dia: dict[str, list[str]] = {}
        self._index_s = 0.0
        self._queries: list[float] = []
        self.last: list[Any] = []
        self.counts: dict[str, int] = {"turns": 0, "episodes": 0, "facts": 0, "duplicates": 0}

    def ingest(self, scope: str, docs: Sequence[BenchDoc]) -> None:
        from datetime import UTC

        from remnant.core.model import MAX_CONTENT_CHARS

        embed0 = self._embedder.documents_s if self._embedder else 0.0
        t0 = time.perf_counter()
        for d in docs:
            session = d.id.split(":")[0]
            if self.clock_mode == "replay" and d.when is not None:
                self.clock.set(d.when.replace(tzinfo=UTC))
            text = d.text + (f" [shared a photo: {d.caption}]" if d.caption else "")
            text = (text.strip() or "(no text)").replace("\x00", " ")
            message: dict[str, Any] = {"role": "user", "content": text[:MAX_CONTENT_CHARS]}
            if self.speaker == "name" and d.speaker:
                message["name"] = d.speaker
            elif d.speaker:
                message["content"] = f"{d.speaker}: {text}"[:MAX_CONTENT_CHARS]
            out = self.memory.add(
                [message],
                user_id=scope,
                session_id=session if self.sessions else None,
                occurred_at=d.when.replace(tzinfo=UTC) if d.when else None,
            )
            self.counts["turns"] += 1
            self.counts["episodes"] += sum(not e.deduplicated for e in out.episodes)
            self.counts["facts"] += sum(not f.deduplicated for f in out.facts)
            self.counts["duplicates"] += len(out.duplicates)
            for episode in out.episodes:
                # a repeated turn ("Thanks!") is kept once: that memory stands for every turn it holds
                self._dia.setdefault(episode.id, []).append(d.id)
        if self.clock_mode == "replay":
            self.clock.set(self._latest)
        spent = time.perf_counter() - t0
        self._index_s += spent - ((self._embedder.documents_s - embed0) if self._embedder else 0.0)

    def turn_of(self, memory: Any) -> list[str]:
        """The turns a hit stands for: its own (an episode) or its source episode's (a fact)."""
        source = memory.metadata.get("from_episode")
        return self._dia.get(memory.id) or self._dia.get(str(source), [])

    def search(self, scope: str, query: str, k: int) -> list[str]:
        q0 = self._embedder.queries_s if self._embedder else 0.0
        t0 = time.perf_counter()
        res = self.memory.recall(query, user_id=scope, limit=k, touch=False, hints=False)
        spent = time.perf_counter() - t0
        self._queries.append(spent - ((self._embedder.queries_s - q0) if self._embedder else 0.0))
        self.last = list(res.hits)
        # one entry per slot (a hit with no turn, which the product should not return, is a lost slot)
        return [ref for h in res.hits for ref in (self.turn_of(h.memory) or ["-"])][:k]

    def explain(self) -> list[dict[str, Any]]:
        """The last search's hits as the dump shows them: kind, key, the turn each stands for."""
        return [
            {
                "turn": self.turn_of(h.memory),
                "kind": h.memory.kind.value,
                "key": h.memory.key,
                "fact": "from_episode" in h.memory.metadata,
                "importance": round(h.memory.importance, 3),
                "score": round(h.score, 4),
                "content": h.memory.content[:160],
            }
            for h in self.last
        ]

    def timing(self) -> dict[str, Any]:
        return _timing(self._embedder, self._index_s, self._queries)

    def close(self) -> None:
        self.memory.close()
        for f in self._files:
            f.unlink(missing_ok=True)


#: the product-path rows: each turn through ``Memory.add``, the speaker as the message's ``name``
#: with the session's id, or (``remnant-add-text``, issue 31's first measurement) inside the text
PRODUCT_SYSTEMS: dict[str, dict[str, Any]] = {
    "remnant-add": {"speaker": "name", "sessions": True},
    "remnant-add-text": {"speaker": "text", "sessions": False},
}
SYSTEMS = ("remnant", "bm25", "vector", *PRODUCT_SYSTEMS)


def latest_session(conversations: Sequence[Conversation]) -> datetime | None:
    """The last session time in the data (the bench clock stands one day later)."""
    from datetime import timedelta

    times = [t.when for c in conversations for t in c.turns if t.when is not None]
    return max(times) + timedelta(days=1) if times else None


def engine_backends(
    conversations: Sequence[Conversation],
    db_dir: str | Path,
    *,
    embedder: Embedder,
    baseline_embedder: Embedder,
    systems: Sequence[str] = ("remnant", "bm25", "vector"),
    clock: str = "real",
    retriever: Callable[[Embedder | None], Any] | None = None,
) -> list[RetrievalBackend]:
    """The three systems of the bench, all through the engine: Remnant's hybrid recall (or the
    ``retriever`` factory given), the store's plain BM25 (content only), and a fair dense
    baseline: exact cosine over "speaker: text" with the baseline embedder, no floor, no signals,
    no boosts."""
    from remnant.engine.seams import LexicalRetriever
    from remnant.retrieval.hybrid import SignalWeights
    from remnant.retrieval.rescoring import RecallTuning
    from remnant.retrieval.retriever import HybridRetriever, IndexTextPolicy

    latest = latest_session(conversations)
    dense = IndexTextPolicy(speaker=True, date=False, neighbours=False)
    makers: dict[str, tuple[Callable[[Embedder | None], Any], Embedder | None]] = {
        "remnant": (retriever or (lambda e: HybridRetriever(e)), embedder),
        "bm25": (lambda e: LexicalRetriever(), None),
        "vector": (
            lambda e: HybridRetriever(
                e,
                mode="vector",
                index_text=dense,
                speaker_boost=0.0,
                min_similarity=-1.0,
                signals=SignalWeights(strength=0.0, confidence=0.0),
                tuning=RecallTuning(),  # plain cosine: none of Remnant's steps after fusion
                hnsw_threshold=10**9,
            ),
            baseline_embedder,
        ),
    }
    out: list[RetrievalBackend] = []
    for s in systems:
        if s in PRODUCT_SYSTEMS:
            out.append(ProductBackend(s, embedder, db_dir, latest, clock, **PRODUCT_SYSTEMS[s]))
        else:
            out.append(EngineBackend(s, makers[s][0], makers[s][1], db_dir, latest, clock))
    return out
