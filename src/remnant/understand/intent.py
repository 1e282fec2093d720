"""What a forget request asks: the small, stable value the request reader returns and the
engine's forget policy acts on (re-exported by :mod:`remnant.engine.results`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from remnant.core.model import Kind
from remnant.core.wire import dump


@dataclass(frozen=True)
class ForgetIntent:
    """What a request asks to forget. Every part is optional; an empty intent matches nothing."""

    hard: bool = False
    topics: tuple[str, ...] = ()  # canonical keys of matched :data:`remnant.understand.requests.TOPICS`
    kinds: tuple[Kind, ...] = ()
    pii_types: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # free-text terms; a memory must contain all of them
    everything: bool = False
    lang: Literal["en", "zh"] = "en"
    scopes: tuple[
        str, ...
    ] = ()  # broad topics ("anything about my health"): names of :data:`~remnant.understand.requests.SCOPES`
    when: str | None = None  # a time scope: "today", "yesterday", "this_week", "last_week", "days:N"
    qualifiers: tuple[str, ...] = ()  # whose or which ("work", "wife"): "my work email"
    # what the request says stays ("…, keep the work one", "…，邮箱可以留着"): words and whose
    keep_terms: tuple[str, ...] = ()
    keep_qualifiers: tuple[str, ...] = ()
    version: str | None = None  # "old" (only what was replaced) or "current" (not the history)
    facet: bool = False  # the request names one value of an attribute ("the company I work for")
    # the speaker is the request's subject ("forget that I'm from Porto"): someone else's clause is not it
    about_self: bool = False
    # literal values the request gives ("forget 555-0199", "煤球…把它名字去了"): those spans go
    values: tuple[str, ...] = ()
    # the kind of value a facet names ("the flight number" -> code, "how much" -> amount)
    value_kind: str | None = None
    # the request names the value itself, not the attribute (a date, a number, "the name of …")
    exact: bool = False
    # the free text is a list ("the lump and biopsy episode", "panic attacks or the therapy"): a memory
    # holding every term of one item matches
    any_of: tuple[tuple[str, ...], ...] = ()
    # the people the request names (relation words, names: "my daughter", "tasha", 老二): which of
    # several people's values in one turn is meant
    people: tuple[str, ...] = ()
    # the request asks for one value ("which school", "how old", "the digits", 多少, 哪): a turn
    # holding several values loses only the one in the part the request's words select
    asks_value: bool = False
    # measured attributes the request names to forget and to keep ("my weight", "height is fine"):
    # a value known by its unit (168 lbs, 一米六) or its label (血压160/95) when the word is not said
    measures: tuple[str, ...] = ()
    keep_measures: tuple[str, ...] = ()
    # the attributes the keep clause names ("where I'm from is fine", 老家可以留着): their values stay
    keep_topics: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.topics or self.kinds or self.terms or self.everything or self.scopes or self.when)

    def to_dict(self) -> dict[str, Any]:
        # every field, by the one rule of remnant.core.wire (the REST schema is derived from them)
        return dump(self)  # type: ignore[no-any-return]
