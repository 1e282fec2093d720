"""The ingestor the product installs (:func:`remnant.config.build_memory`): salience, facts and an
expiry said in words, for each conversation message, offline.

- **Salience** sets the episode's importance, so filler fades in days and what matters is
  consolidated into a fact before it fades. With an embedder that has trained weights
  (:mod:`remnant.extract.salience_model`: logistic regression over the turn's vector and the rule
  score), the model decides; otherwise the rule cues (:mod:`remnant.extract.salience`) do.
- **Facts**: the rule extractor's (:mod:`remnant.extract.rules`), or an LLM extractor's when one is
  configured (its values must be grounded in the text; rules win on shared keys). Where the
  salience model runs, the claim gate (:mod:`remnant.understand.claim_gate`) reads the same vector:
  a turn that states nothing lasting ("i just LOVE mondays 🙃", 要是我中了五百万…) keeps no generic
  fact or preference; values of an exact shape (:func:`remnant.extract.rules.exact_shape`) stay.
- **Expiry in words** (:mod:`remnant.extract.expiry`): "this code is valid for ten minutes",
  "expires in 2 hours", "I'm staying in Osaka for 10 days", 十分钟内有效, 两小时后过期, 我要出差三天
  set the episode's TTL (and its facts'); a period in passing ("I waited ten minutes") does not.
  An end point ("good until friday", 只在今天有效) sets the time left until it, on ``clock``. When
  the turn also says something lasting ("the code is 4471, good for 15 minutes, the account is
  under my work email"), the turn still expires with the value, and the lasting clauses are kept
  as their own fact (``from_episode`` to the turn, no TTL): :func:`remnant.extract.expiry.split_expiry`.
  A state's sentence expires whole ("at the travelodge for the next 3 nights, room 214"), another
  sentence holds on; what is left is kept when the rule cues or the salience model say it matters.
- **The learned expiry reader** (:mod:`remnant.extract.expiry_model`, ``expiry_reader=True``; the
  product's default, ``REMNANT_EXPIRY_READER=rules`` for the rules alone): where the rules read no expiry, a turn
  the reader judges temporary (over the vector the salience model read, and cues) expires after
  the length its text names or a default horizon; a part it judges lasting is kept on its own.
  What is left of a split turn is judged by the salience model in one embedder call per add.
- **Corrections** (:mod:`remnant.extract.corrections`): "I meant Tuesday not Thursday", 说错了，是周二
  name the recent memory whose value was wrong; the engine writes the corrected value and
  supersedes the wrong one (:mod:`remnant.engine.forgetting.correction`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from remnant.core.clock import Clock, SystemClock
from remnant.core.model import MemoryRecord
from remnant.embed.base import Embedder, EmbeddingError, Vectors
from remnant.embed.registry import get_embedder
from remnant.engine.options import Correction, Draft, Lasting, Message, Observation
from remnant.extract.corrections import CorrectionReader
from remnant.extract.expiry import (
    FILLER_FLOOR,
    ExpirySplit,
    cues,
    expiry_of,
    names_a_while,
    period_refused,
    sentence_holds_alone,
    split_expiry,
    takes_value_before,
    units,
    while_clause,
)
from remnant.extract.expiry import expiry_in_words as expiry_in_words  # re-exported for callers
from remnant.extract.expiry_model import SENTENCE_CHARS, ExpiryWeights, length_of, load_weights
from remnant.extract.lasting import REMAINDER_BAR, Readers, lasting_parts
from remnant.extract.model import ExtractedFact
from remnant.extract.rules import RuleExtractor, exact_shape, keyed
from remnant.extract.salience import salience
from remnant.extract.salience_model import SalienceModel, load_model
from remnant.understand.claim_gate import ClaimGate, load_gate

log = logging.getLogger(__name__)


SALIENCE_CHARS = 2000
"""How much of a turn the salience model reads."""


_Fact = tuple[ExtractedFact, timedelta | None]

REMAINDER_READS = 32
"""How many texts of a split turn's remainder the salience model reads at most (in one call); the
rest is judged by the rule cues alone."""


class FactExtractor(Protocol):
    def extract(self, text: str, *, role: str = "user") -> list[ExtractedFact]: ...


class RuleIngestor:
    """Salience + rule (or LLM) facts + expiry in words (see the module docstring).

    Salience uses the trained model (:mod:`remnant.extract.salience_model`) over the vector of the
    first embedder that has shipped weights: ``embedder`` (the product ``Memory`` passes the retriever's,
    whose cache then serves the same vector to recall's index), else the first of
    ``salience_embedders`` that is installed, loaded on first use (so salience does not depend on
    whether recall is lexical). No such embedder, or ``salience_embedders=()`` with no ``embedder``:
    the rule cues decide."""

    def __init__(
        self,
        extractor: FactExtractor | None = None,
        *,
        embedder: Embedder | None = None,
        salience_embedders: Sequence[str] = (),
        threads: int = 2,
        clock: Clock | None = None,
        expiry_reader: bool = False,
    ) -> None:
        self.extractor: FactExtractor = extractor or RuleExtractor()
        self._expiry_reader = expiry_reader
        self._given = embedder
        self._names = tuple(salience_embedders)
        self._threads = threads
        self._resolved = False
        self._model: tuple[Embedder, SalienceModel] | None = None
        self._lock = threading.Lock()
        self.corrections = CorrectionReader()
        # an end point said in words ("good until friday") is read against the memory's clock
        self.clock: Clock = clock or SystemClock()

    @property
    def model(self) -> SalienceModel | None:
        """The salience model in use, or ``None`` when the rules decide (resolves on first use)."""
        pair = self._salience_model()
        return pair[1] if pair is not None else None

    def _salience_model(self) -> tuple[Embedder, SalienceModel] | None:
        with self._lock:
            if not self._resolved:
                self._resolved = True
                self._model = self._resolve()
            return self._model

    def _resolve(self) -> tuple[Embedder, SalienceModel] | None:
        if self._given is not None:
            model = load_model(self._given.model_id)
            if model is not None:
                return self._given, model
        for name in self._names:
            try:
                embedder = get_embedder(name, threads=self._threads)
            except EmbeddingError as exc:  # not installed: try the next one, then the rules
                log.info("salience embedder %r unavailable (%s)", name, exc)
                continue
            model = load_model(embedder.model_id)
            if model is not None:
                return embedder, model
        return None

    @staticmethod
    def _reads(message: Message) -> bool:
        # the model was trained on user turns; an assistant turn keeps the rules' lower score
        return message.role == "user" and bool(message.content.strip())

    def _importance(
        self, message: Message, vector: Vectors | None = None, *, recall: bool = False
    ) -> tuple[float, tuple[str, ...], Vectors | None]:
        """The turn's importance, its cues, and the vector the model read (the claim gate reads it
        too; for a named speaker, recall's vector of "<name>: <text>"), ``None`` when none was."""
        sal = salience(message.content, role=message.role)
        if not self._reads(message):
            return sal.score, sal.cues, None
        pair = self._salience_model()
        if pair is None:
            return sal.score, sal.cues, None
        embedder, model = pair
        if vector is None:
            try:
                # a turn's opening says how much it matters (the model learned on chat turns, far
                # shorter): the embedder reads every token, so a 100,000-character turn took minutes
                vector = embedder.embed_documents([message.content[:SALIENCE_CHARS]])[0]
            except EmbeddingError as exc:
                log.warning("salience model skipped, embedding failed (%s): rule salience used", exc)
                return sal.score, (*sal.cues, "model_unavailable"), None
        if recall and message.name and model.spoken is not None:
            # recall's vector of a named speaker's turn is of "<name>: <text>": the head trained on those
            model = model.spoken
        return model.importance(vector, sal.score), (*sal.cues, "model"), vector

    def _matters_many(
        self,
        texts: Sequence[str],
        *,
        also: Sequence[str] = (),
        cache: dict[str, Vectors] | None = None,
    ) -> list[bool]:
        """Whether each of ``texts`` (what is left of a split turn: the whole remainder first, then
        its clauses) is worth keeping on its own: the rule salience is not filler, or the salience
        model's importance reaches ``REMAINDER_BAR``. The model reads, in one embedder call, only
        what the rules call filler, and nothing when the whole remainder already passes (the
        clauses' verdicts are then unread). ``also``: texts the expiry reader will need, embedded
        in the same call into ``cache``."""
        out = [salience(t).score >= FILLER_FLOOR for t in texts]
        if not texts or out[0]:
            return out
        pair = self._salience_model()
        # at most REMAINDER_READS texts: a 100,000-character turn has thousands of clauses
        todo = [i for i, ok in enumerate(out) if not ok and texts[i].strip()][:REMAINDER_READS]
        if pair is None or not todo:
            return out
        embedder, model = pair
        extra = [t for t in dict.fromkeys(also) if cache is not None and t not in cache]
        try:
            vectors = embedder.embed_documents([texts[i][:SALIENCE_CHARS] for i in todo] + extra)
        except EmbeddingError:
            return out
        for i, v in zip(todo, vectors[: len(todo)], strict=True):
            out[i] = model.importance(v, salience(texts[i]).score) >= REMAINDER_BAR
        if cache is not None:
            cache.update(zip(extra, vectors[len(todo) :], strict=True))
        return out

    def expiry_weights(self) -> ExpiryWeights | None:
        """The learned expiry reader's weights (:mod:`remnant.extract.expiry_model`) for the
        salience model's embedder, or ``None`` (off, no embedder, none trained): the rules alone."""
        if not self._expiry_reader:
            return None
        pair = self._salience_model()
        return load_weights(pair[0].model_id) if pair is not None else None

    def _expiry(
        self, message: Message, vector: Vectors | None, now: datetime
    ) -> tuple[timedelta | None, ExpirySplit | None, tuple[str, ...]]:
        """The turn's TTL, the split of its temporary and lasting parts, and why: the rules' reading
        (:func:`split_expiry`, :func:`expiry_of`), with the learned reader's recall, veto and
        value-level split (:mod:`remnant.extract.expiry_model`)."""
        text = message.content
        weights = self.expiry_weights() if self._reads(message) else None
        parts = units(text) if weights is not None else []
        heads = [c[:SENTENCE_CHARS] for c in parts] if len(parts) > 1 else []
        cache: dict[str, Vectors] = {}  # the parts' vectors, when the rules' split embedded them

        def matters_many(texts: Sequence[str]) -> list[bool]:
            # one embedder call per add: the remainder's salience and the parts the reader reads
            return self._matters_many(texts, also=heads, cache=cache)

        split = split_expiry(text, now, matters_many=matters_many)
        ttl = split.ttl if split is not None else expiry_of(text, now)
        if weights is None:
            return ttl, split, ()
        if vector is None:  # the salience model did not read the turn (its embedding failed)
            got = self._embed([text[:SALIENCE_CHARS]])
            if got is None:
                return ttl, split, ()
            vector = got[0]
        # the reader reads what its vector saw: the turn's head (a 100,000-character turn is not
        # read five more times over for cues the vector did not carry)
        head = text[:SALIENCE_CHARS]
        said = cues(head, now)
        p = weights.probability(vector, said)
        reasons: tuple[str, ...] = ()
        if ttl is not None and p < weights.veto:
            # a look-alike the rules read ("i work 10 hour shifts", "my visa expires in march")
            return None, None, ("expiry_vetoed",)
        if ttl is None:
            if not self._adds(weights, p, head, said, now):
                return None, None, ()
            # the length is the one the while is said in: when only a clause names it, that
            # clause's ("只在今天有效", not the "每个周末" of a habit beside it)
            where = head if names_a_while(said) else (while_clause(head, now) or head)
            ttl, source = length_of(where, now, weights.horizon)
            reasons = ("expiry_model", f"expiry_length_{source}")
        if split is not None:
            return ttl, split, reasons  # the rules split the turn where the period attaches
        if len(parts) < 2:
            return ttl, None, reasons
        # the value level: the parts the reader judges lasting (a home beside a stay, the account
        # beside a code) are kept on their own when they matter; the rest expires with the turn
        vectors = self._part_vectors(parts, heads, cache)
        if vectors is None:
            return ttl, None, reasons
        pair = self._salience_model()
        lasting = [False] * len(parts)
        for i, (c, v) in enumerate(zip(parts, vectors, strict=True)):
            if c.endswith(("?", "？", "吗")):
                continue
            # another sentence that names no while holds on when it matters, whatever the reader
            # makes of it; a clause of the temporary sentence needs the reader's verdict
            if not sentence_holds_alone(c, head, now) and weights.read(v, c, now) >= weights.keep:
                continue
            score = salience(c).score
            lasting[i] = score >= FILLER_FLOOR or (
                pair is not None and pair[1].importance(v, score) >= REMAINDER_BAR
            )
        for i in range(1, len(parts)):
            if not lasting[i] and lasting[i - 1] and takes_value_before(parts, i):
                lasting[i - 1] = False  # "study room code 7731, only good till 6pm": 7731 expires
        if not any(lasting) or all(lasting):
            return ttl, None, reasons
        split = ExpirySplit(
            ttl,
            " ".join(c for c, keep in zip(parts, lasting, strict=True) if not keep),
            " ".join(c for c, keep in zip(parts, lasting, strict=True) if keep),
        )
        return ttl, split, (*reasons, "expiry_split")

    @staticmethod
    def _adds(weights: ExpiryWeights, p: float, text: str, said: list[float], now: datetime) -> bool:
        """The reader adds an expiry the rules did not read: the text names a while (no past or
        recurring word; or one of its clauses does, read alone: a habit in another clause is not
        this one's), and ``p`` reaches the threshold, or the stricter ``refused`` bar where the
        rules saw an exact period and refused it (never with a past word: "ran for an hour")."""
        if not (names_a_while(said) or while_clause(text, now) is not None):
            return False
        return p >= (weights.refused if period_refused(text, now) else weights.threshold)

    def _part_vectors(
        self, parts: Sequence[str], heads: Sequence[str], cache: dict[str, Vectors]
    ) -> list[Vectors] | None:
        """The vectors of a turn's parts (``None`` for a turn of one part or when embedding fails):
        those the rules' split already embedded, the rest in one call."""
        if len(parts) < 2:
            return None
        missing = [h for h in dict.fromkeys(heads) if h not in cache]
        if missing:
            got = self._embed(missing)
            if got is None:
                return None
            cache.update(zip(missing, got, strict=True))
        return [cache[h] for h in heads]

    def _embed(self, texts: Sequence[str]) -> list[Vectors] | None:
        pair = self._salience_model()
        if pair is None:
            return None
        try:
            return list(pair[0].embed_documents(list(texts)))
        except EmbeddingError as exc:
            log.warning("expiry reader skipped, embedding failed (%s): the rules decide", exc)
            return None

    def observe_many(
        self,
        messages: Sequence[Message],
        *,
        recent: Sequence[str] = (),
        vectors: tuple[str, Sequence[Vectors | None]] | None = None,
    ) -> list[Observation]:
        """:meth:`observe` of consecutive messages, each with the four before it as ``recent``; the
        salience model's vectors of all of them come from one embedder call (a history import).
        ``vectors``: recall's model id and each message's vector of its recall text (a named
        speaker's turn with the name, ``"Maya: ..."``, as ``IndexTextPolicy.speaker`` has it by
        default); when the salience model is over that model and has a head for named turns
        (:attr:`SalienceModel.spoken`), it reads these and embeds only the rest."""
        given: Sequence[Vectors | None] = [None] * len(messages)
        pair = self._salience_model()
        if (
            vectors is not None
            and pair is not None
            and pair[1].reads_spoken
            and vectors[0] == pair[0].model_id
        ):
            if len(vectors[1]) != len(messages):
                raise ValueError("observe_many needs one vector (or None) per message")
            given = vectors[1]
        from_recall = [v is not None for v in given]
        vectors_of: list[Vectors | None] = list(given)
        read = [i for i, m in enumerate(messages) if self._reads(m) and vectors_of[i] is None]
        if pair is not None and len(read) > 1:
            try:
                batch = pair[0].embed_documents([messages[i].content[:SALIENCE_CHARS] for i in read])
            except EmbeddingError:
                pass  # each message tries again alone, and says so if it fails
            else:
                for i, v in zip(read, batch, strict=True):
                    vectors_of[i] = v
        window = list(recent)
        out = []
        for message, vector, recall in zip(messages, vectors_of, from_recall, strict=True):
            out.append(self._observe(message, window[-4:], vector, recall=recall))
            window.append(message.content)
        return out

    def might_correct(self, text: str) -> bool:
        return self.corrections.might_correct(text)

    def read_correction(self, text: str, recent: Sequence[MemoryRecord]) -> Correction | None:
        return self.corrections.read(text, recent)

    def _claim_gate(self) -> tuple[Embedder, ClaimGate] | None:
        """The claim gate over the salience model's embedder, when weights ship for it."""
        pair = self._salience_model()
        if pair is None:
            return None
        gate = load_gate(pair[0].model_id)
        return (pair[0], gate) if gate is not None else None

    def _claims(
        self, message: Message, facts: list[_Fact], vector: Vectors | None
    ) -> tuple[list[_Fact], bool]:
        """The rules' facts the turn supports: when the claim gate (:mod:`remnant.understand.claim_gate`)
        says the turn states nothing lasting (chit-chat, a question, a wish, sarcasm), its generic
        facts and preferences go and those of an exact shape (:func:`~remnant.extract.rules.exact_shape`)
        stay. The gate reads the turn's vector when salience computed it, else embeds the turn, and
        only when a generic fact is at stake. Whether it dropped any is the second value."""
        if not any(not exact_shape(f) for f, _ in facts) or not self._reads(message):
            return facts, False
        found = self._claim_gate()
        if found is None:
            return facts, False
        embedder, gate = found
        text = message.content[:SALIENCE_CHARS]
        if vector is None:
            try:
                vector = embedder.embed_documents([text])[0]
            except EmbeddingError as exc:  # the rules' facts stand: a fact lost is the worse failure
                log.warning("claim gate skipped, embedding failed (%s)", exc)
                return facts, False
        if gate.states_claim(vector, text):
            return facts, False
        # a keyed fact needs the stricter verdict; the verdict is the same vector's, so one more dot
        # product at most
        keep_keyed = gate.states_claim(vector, text, keyed=True)
        kept = [(f, ttl) for f, ttl in facts if exact_shape(f) or (keep_keyed and keyed(f))]
        return kept, len(kept) < len(facts)

    def lasting_many(
        self, turns: Sequence[tuple[str, datetime]], until: datetime, *, expiry_reader: bool = False
    ) -> list[Lasting]:
        """What of each turn ``(text, said)`` lasts past ``until``, clause by clause
        (:func:`remnant.extract.lasting.lasting_parts`): the rules, then the salience model and,
        with ``expiry_reader``, the learned expiry reader, over one embedder call."""
        return lasting_parts(turns, until, self.readers(expiry_reader=expiry_reader))

    def readers(self, *, expiry_reader: bool = False) -> Readers:
        """The models that judge a clause (:class:`remnant.extract.lasting.Readers`) over the
        salience model's embedder; none where that has no trained weights."""
        pair = self._salience_model()
        if pair is None:
            return Readers()
        return Readers(
            embed=self._embed,
            salience=pair[1],
            expiry=load_weights(pair[0].model_id) if expiry_reader else None,
        )

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        return self._observe(message, recent, None)

    def _observe(
        self, message: Message, recent: Sequence[str], vector: Vectors | None, *, recall: bool = False
    ) -> Observation:
        score, cue_words, read = self._importance(message, vector, recall=recall)
        now = self.clock.now()
        ttl, split, why = self._expiry(message, read, now)
        if split is None:
            facts = [(f, ttl) for f in self.extractor.extract(message.content, role=message.role)]
        else:  # only what the temporary clauses say expires; the lasting part's facts hold on
            facts = [(f, ttl) for f in self.extractor.extract(split.temporary, role=message.role)]
            facts += [(f, None) for f in self.extractor.extract(split.lasting, role=message.role)]
        facts, gated = self._claims(message, facts, read)
        drafts = [
            Draft(
                f.content,
                {
                    "kind": f.kind,
                    "key": f.key,
                    "importance": f.importance,
                    "confidence": f.confidence,
                    "source": f"extract:{f.source}",
                    # no bare value in metadata: only content passes the redactor
                    "ttl": f_ttl if f_ttl is not None else f.expires_in,
                },
            )
            for f, f_ttl in facts
        ]
        if split is not None:
            # the turn expires with the value it carries; what else it said is kept as its own
            # memory (from_episode to the turn), as consolidation would have kept it
            drafts.append(
                Draft(
                    split.lasting,
                    {
                        "kind": "fact",
                        "importance": round(max(salience(split.lasting, role=message.role).score, 0.5), 4),
                        "source": "extract:expiry_split",
                        "ttl": None,
                    },
                )
            )
        reasons = (
            cue_words
            + (("expiry_in_words",) if ttl is not None else ())
            + (("expiry_split",) if split is not None and "expiry_split" not in why else ())
            + why
            + (("claim_gate",) if gated else ())
        )
        # a turn that yielded a fact carried something: never score it as filler
        importance = max(score, 0.5) if facts else score
        return Observation(importance=round(importance, 4), facts=drafts, ttl=ttl, reasons=reasons)
