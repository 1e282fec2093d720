"""Resolving conflicts: by authority then recency, or by a supplied rule set.

A rule set (JSON) may say that one source beats another (globally or for one attribute) and
choose a strategy per attribute::

    {
      "beats": [["manual-2024", "blog"], {"winner": "api-docs", "loser": "manual", "attribute": "timeout"}],
      "attributes": {"price": "recency", "max concurrency": "authority_then_recency"},
      "aliases": {"max concurrency": ["最大并发数", "max concurrent requests"]}
    }

Contradictory rules are refused when the rule set is built: a source that beats itself, a
cycle of "beats" (A > B > C > A) in any attribute's scope, or two strategies for one attribute.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remnant.training.claims import Claim
from remnant.training.conflicts import AttributeAliases, Conflict
from remnant.training.errors import RuleCycleError, RuleError
from remnant.training.normalize import normalize_key

STRATEGIES = ("authority_then_recency", "recency_then_authority", "recency", "authority")


@dataclass(frozen=True)
class BeatRule:
    """``winner`` beats ``loser`` (source names), for one attribute or (``None``) all of them."""

    winner: str
    loser: str
    attribute: str | None = None


@dataclass(frozen=True)
class Resolution:
    """The outcome for one conflict: the current claim, and the claims it supersedes."""

    conflict: Conflict
    winner: Claim
    superseded: tuple[Claim, ...]
    agreeing: tuple[Claim, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.winner.entity,
            "attribute": self.winner.attribute,
            "current": self.winner.to_dict(),
            "superseded": [c.to_dict() for c in self.superseded],
            "agreeing": [c.claim_id for c in self.agreeing],
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Unresolved:
    """A conflict no rule could settle: the top claims tie and disagree."""

    conflict: Conflict
    tied: tuple[Claim, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.conflict.entity,
            "attribute": self.conflict.attribute,
            "tied": [c.to_dict() for c in self.tied],
            "reason": self.reason,
        }


@dataclass
class ResolutionReport:
    resolved: list[Resolution] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)


class RuleSet:
    """Source precedence plus per-attribute strategies; validated on construction."""

    def __init__(
        self,
        beats: Iterable[BeatRule] = (),
        attributes: Mapping[str, str] | None = None,
        aliases: Mapping[str, Iterable[str]] | None = None,
        default_strategy: str = "authority_then_recency",
    ) -> None:
        self.beats = tuple(beats)
        self.aliases = AttributeAliases(aliases)
        if default_strategy not in STRATEGIES:
            raise RuleError(f"unknown strategy {default_strategy!r}; use one of {', '.join(STRATEGIES)}")
        self.default_strategy = default_strategy
        self.strategies: dict[str, str] = {}
        for attribute, strategy in (attributes or {}).items():
            if strategy not in STRATEGIES:
                raise RuleError(
                    f"unknown strategy {strategy!r} for {attribute!r}; use one of {', '.join(STRATEGIES)}"
                )
            key = self.aliases(attribute)
            if key in self.strategies and self.strategies[key] != strategy:
                raise RuleError(
                    f"attribute {attribute!r} is given two strategies: {self.strategies[key]!r} and {strategy!r}"
                )
            self.strategies[key] = strategy
        self._edges: dict[str | None, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for rule in self.beats:
            scope = self.aliases(rule.attribute) if rule.attribute else None
            winner, loser = normalize_key(rule.winner), normalize_key(rule.loser)
            if winner == loser:
                raise RuleCycleError([rule.winner, rule.loser], rule.attribute)
            self._edges[scope][winner].add(loser)
        for scope in list(self._edges):
            cycle = _find_cycle(self._scope_edges(scope))
            if cycle:
                raise RuleCycleError(cycle, scope)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        unknown = set(data) - {"beats", "attributes", "aliases", "default_strategy"}
        if unknown:
            raise RuleError(f"unknown rule keys: {', '.join(sorted(unknown))}")
        beats = []
        for index, item in enumerate(data.get("beats", [])):
            if isinstance(item, list | tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
                beats.append(BeatRule(item[0], item[1]))
            elif (
                isinstance(item, dict)
                and isinstance(item.get("winner"), str)
                and isinstance(item.get("loser"), str)
            ):
                beats.append(BeatRule(item["winner"], item["loser"], item.get("attribute")))
            else:
                raise RuleError(
                    f"beats[{index}] must be [winner, loser] or {{winner, loser, attribute?}}: {item!r}"
                )
        return cls(
            beats,
            data.get("attributes", {}),
            data.get("aliases", {}),
            data.get("default_strategy", "authority_then_recency"),
        )

    @classmethod
    def load(cls, path: str | Path) -> RuleSet:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise RuleError(f"{path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None
        if not isinstance(data, dict):
            raise RuleError(f"{path}: a rule set must be a JSON object")
        return cls.from_dict(data)

    def _scope_edges(self, scope: str | None) -> dict[str, set[str]]:
        merged: dict[str, set[str]] = defaultdict(set)
        for s in {None, scope}:
            for winner, losers in self._edges.get(s, {}).items():
                merged[winner] |= losers
        return merged

    def beaten(self, attribute_key: str) -> Callable[[str, str], bool]:
        """A predicate ``(a, b) -> a beats b`` (transitively) for one attribute's scope."""
        edges = self._scope_edges(attribute_key)
        closure: dict[str, set[str]] = {}

        def reach(node: str) -> set[str]:
            if node not in closure:
                seen: set[str] = set()
                stack = list(edges.get(node, ()))
                while stack:
                    nxt = stack.pop()
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.extend(edges.get(nxt, ()))
                closure[node] = seen
            return closure[node]

        return lambda a, b: normalize_key(b) in reach(normalize_key(a))

    def strategy(self, attribute_key: str) -> str:
        return self.strategies.get(attribute_key, self.default_strategy)

    # -- resolution ---------------------------------------------------------------------------
    def resolve(self, conflict: Conflict) -> Resolution | Unresolved:
        """Pick the current claim of one conflict."""
        claims = list(conflict.claims)
        reasons = []
        candidates = claims
        if self.beats:
            beats = self.beaten(conflict.attribute_key)
            candidates = [
                c for c in claims if not any(beats(o.source, c.source) for o in claims if o is not c)
            ]
        if len(candidates) < len(claims):
            reasons.append("source precedence")
        strategy = self.strategy(conflict.attribute_key)
        key = _strategy_key(strategy)
        best = max(key(c) for c in candidates)
        top = [c for c in candidates if key(c) == best]
        reasons.append(strategy.replace("_", " "))
        if len({c.normalized.key for c in top}) > 1:
            return Unresolved(
                conflict, tuple(top), f"claims tie on {' then '.join(reasons)} and state different values"
            )
        winner = max(top, key=lambda c: (c.date, c.claim_id))
        win_key = winner.normalized.key
        superseded = tuple(c for c in claims if c.normalized.key != win_key)
        agreeing = tuple(c for c in claims if c.normalized.key == win_key and c is not winner)
        return Resolution(conflict, winner, superseded, agreeing, " then ".join(reasons))

    def resolve_all(self, conflicts: Sequence[Conflict]) -> ResolutionReport:
        report = ResolutionReport()
        for conflict in conflicts:
            outcome = self.resolve(conflict)
            if isinstance(outcome, Resolution):
                report.resolved.append(outcome)
            else:
                report.unresolved.append(outcome)
        return report


def _strategy_key(strategy: str) -> Callable[[Claim], tuple[float, ...]]:
    if strategy == "authority_then_recency":
        return lambda c: (c.authority, c.date.timestamp())
    if strategy == "recency_then_authority":
        return lambda c: (c.date.timestamp(), c.authority)
    if strategy == "recency":
        return lambda c: (c.date.timestamp(),)
    return lambda c: (c.authority,)


def _find_cycle(edges: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle in a directed graph as a node list (first node repeated last), or None."""
    white, grey, black = 0, 1, 2
    colour: dict[str, int] = defaultdict(int)
    parent: dict[str, str] = {}
    for start in sorted(edges):
        if colour[start] != white:
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(edges.get(start, ())))]
        colour[start] = grey
        while stack:
            node, todo = stack[-1]
            if not todo:
                colour[node] = black
                stack.pop()
                continue
            nxt = todo.pop(0)
            if colour[nxt] == grey:
                cycle = [nxt]
                cur = node
                while cur != nxt:
                    cycle.append(cur)
                    cur = parent[cur]
                cycle.append(nxt)
                cycle.reverse()
                return cycle
            if colour[nxt] == white:
                colour[nxt] = grey
                parent[nxt] = node
                stack.append((nxt, sorted(edges.get(nxt, ()))))
    return None


def mark_superseded(claims: Iterable[Claim], report: ResolutionReport) -> list[dict[str, Any]]:
    """Every claim as a row with ``status`` (current / superseded / agrees / unresolved / uncontested)
    and, for superseded ones, ``superseded_by`` (the current claim's id)."""
    status: dict[str, dict[str, Any]] = {}
    for res in report.resolved:
        status[res.winner.claim_id] = {"status": "current"}
        for c in res.agreeing:
            status[c.claim_id] = {"status": "agrees", "same_as": res.winner.claim_id}
        for c in res.superseded:
            status[c.claim_id] = {
                "status": "superseded",
                "superseded_by": res.winner.claim_id,
                "current_value": res.winner.value,
            }
    for un in report.unresolved:
        for c in un.conflict.claims:
            status[c.claim_id] = {"status": "unresolved", "reason": un.reason}
    rows = []
    for claim in claims:
        row = claim.to_dict()
        row.update(status.get(claim.claim_id, {"status": "uncontested"}))
        rows.append(row)
    return rows
