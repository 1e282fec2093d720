"""Expiry said in words: "valid for ten minutes", 十分钟内有效 sets the memory's TTL, and only then.

Each line of ``bench/heldout/expiry.jsonl`` (written by an independent author who did not read the
expiry rules; ``{"id", "lang", "text", "ttl_seconds"}``, ``ttl_seconds`` counted from when the turn
is said, ``null`` when the turn sets no expiry, durations in passing included) is said once by its
own user through the adapter's conversation path (``observe``: ``Memory.add`` for Remnant). The
clock then moves (``wait``: no maintenance, so decay and eviction cannot stand in for expiry) and
the adapter's ``expires_in`` verb (seconds left before each memory expires, ``None`` for none)
tells an expiry apart from decay:

* a **TTL line** is right when every memory the turn produced (the episode and any fact drawn from
  it) is still unexpired at ``0.9 × ttl`` and expired at ``1.1 × ttl``, where the user also
  remembers nothing of it any more (``remembered_texts`` is empty): the TTL is exact within ±10 %
  and recall obeys it;
* a **null line** is wrongly expired when the memory that holds the turn carries any expiry (or
  the turn was not stored at all). Facts the extractor draws with lifetimes of their own (a
  reminder, a plan's date) are not the turn's words setting a TTL and are not counted.

Figures: accuracy on TTL lines and false-expiry rate on null lines, overall and by language.
``remnant eval --suite expiry --data FILE`` scores another file of the same schema instead (the
development files the rules were tuned on: ``tests/extract/dev_expiry.jsonl`` and
``tests/extract/dev_expiry_2.jsonl``, each by another independent author). The suite can fail
both ways: a store that never expires gets accuracy 0, one that expires everything at once gets
accuracy 0 and a false-expiry rate of 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext, read_jsonl

NAME = "expiry"
DEFINITION = (
    "turns (EN/ZH; the held-out file unless --data) told once through the conversation path: share of those "
    "stating an expiry "
    "whose memories are live at 0.9 x the stated period and expired (not recalled) at 1.1 x, and share of "
    "those stating none whose memory got an expiry anyway"
)
TARGET = "TTL lines right >= 0.90 and null lines falsely expired <= 0.05"
MIN_ACCURACY = 0.90
MAX_FALSE_EXPIRY = 0.05
BEFORE, AFTER = 0.9, 1.1  # the tolerance: the TTL must fall within ±10 % of the stated period
CHUNK = 40  # lines per case (one adapter each, a fresh user per line)


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The lines of a JSON Lines file (default: the held-out file shipped with the package)."""
    rows = read_jsonl(path, "expiry.jsonl")
    for row in rows:
        ttl = row.get("ttl_seconds")
        if not isinstance(row.get("text"), str) or not (ttl is None or (isinstance(ttl, int) and ttl > 0)):
            raise ValueError(
                f"expiry line {row.get('id')!r}: needs a text and ttl_seconds (a positive int or null)"
            )
    return rows


def _verbs(a: MemoryAdapter) -> tuple[Any, Any, Any, Any]:
    observe = getattr(a, "observe", None)
    expires_in = getattr(a, "expires_in", None)
    remembered = getattr(a, "remembered_texts", None)
    if not callable(observe) or not callable(expires_in) or not callable(remembered):
        raise NotImplementedError("the adapter lacks observe, expires_in or remembered_texts")
    wait = getattr(a, "wait", None)
    return observe, expires_in, remembered, wait if callable(wait) else a.advance_time


def _turn_ids(a: MemoryAdapter, user: str, text: str, ids: list[str]) -> list[str]:
    """The memory holding the turn itself: the one whose text is the turn's (else every one it made)."""
    texts = getattr(a, "memory_texts", None)
    if callable(texts):
        mine = [i for i, t in texts(user).items() if i in ids and t.strip() == text.strip()]
        if mine:
            return mine
    return ids


def _expired(left: dict[str, float | None], memory_id: str) -> bool:
    """Expired, or gone altogether (a memory the adapter no longer has cannot be recalled)."""
    if memory_id not in left:
        return True
    seconds = left[memory_id]
    return seconds is not None and seconds <= 0


def _body(rows: Sequence[dict[str, Any]]) -> Any:
    def body(a: MemoryAdapter) -> dict[str, Any]:
        observe, expires_in, remembered, wait = _verbs(a)
        users = [f"exp-{i:04d}" for i in range(len(rows))]
        made = [list(observe(u, r["text"])) for u, r in zip(users, rows, strict=True)]
        out: dict[str, dict[str, Any]] = {}
        events: list[tuple[float, int, str]] = []
        for i, (user, row, ids) in enumerate(zip(users, rows, made, strict=True)):
            left = expires_in(user)
            ttl = row["ttl_seconds"]
            if ttl is None:
                held = _turn_ids(a, user, row["text"], ids)
                set_ttl = [left.get(m) for m in held if left.get(m) is not None]
                out[row["id"]] = {"stored": bool(held), "false_expiry": not held or bool(set_ttl)}
            else:
                out[row["id"]] = {"stored": bool(ids), "live_before": False, "expired_after": False}
                events += [(BEFORE * ttl, i, "before"), (AFTER * ttl, i, "after")]
        now = 0.0
        for at, i, phase in sorted(events):
            if at > now:
                wait((at - now) / 86400.0)
                now = at
            user, row, ids = users[i], rows[i], made[i]
            left = expires_in(user)
            if phase == "before":
                out[row["id"]]["live_before"] = bool(ids) and all(
                    (s := left.get(m)) is not None and s > 0 for m in ids
                )
            else:
                out[row["id"]]["expired_after"] = (
                    bool(ids) and all(_expired(left, m) for m in ids) and not remembered(user)
                )
        return out

    return body


def score_rows(
    factory: AdapterFactory, rows: Sequence[dict[str, Any]], *, timeout_s: float = 300.0
) -> dict[str, Any]:
    """Each line's outcome by id (``right`` for a TTL line, ``false_expiry`` for a null one), and the
    failed cases' errors; lines of a failed case count as wrong both ways."""
    outcomes: dict[str, Any] = {}
    errors: list[Any] = []
    for start in range(0, len(rows), CHUNK):
        chunk = list(rows[start : start + CHUNK])
        outcome = run_case(f"lines{start:03d}", factory, _body(chunk), timeout_s=timeout_s)
        errors.append(outcome)
        got = outcome.value if outcome.ok else {}
        for row in chunk:
            v = got.get(row["id"], {})
            if row["ttl_seconds"] is None:
                outcomes[row["id"]] = {
                    "lang": row.get("lang", "?"),
                    "ttl": None,
                    "false_expiry": v.get("false_expiry", True),
                }
            else:
                right = bool(v.get("live_before")) and bool(v.get("expired_after"))
                outcomes[row["id"]] = {
                    "lang": row.get("lang", "?"),
                    "ttl": row["ttl_seconds"],
                    "right": right,
                    **v,
                }
    return {"lines": outcomes, "cases": errors}


def figures(lines: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for scope in ("all", "en", "zh"):
        rows = [v for v in lines.values() if scope == "all" or v["lang"] == scope]
        ttl = [v for v in rows if v["ttl"] is not None]
        null = [v for v in rows if v["ttl"] is None]
        suffix = "" if scope == "all" else f" ({scope})"
        out[f"ttl lines right{suffix}"] = round(ratio(sum(v["right"] for v in ttl), len(ttl)), 4)
        out[f"null lines falsely expired{suffix}"] = round(
            ratio(sum(v["false_expiry"] for v in null), len(null)), 4
        )
        out[f"ttl lines{suffix}"] = len(ttl)
        out[f"null lines{suffix}"] = len(null)
    return out


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    """The held-out lines, or those of ``ctx.data`` (``remnant eval --data FILE``, e.g. the dev file)."""
    data = getattr(ctx, "data", None)
    rows = load_rows(data)
    if ctx.quick and data is None:
        rows = rows[:: max(1, len(rows) // 40)]
    return run_rows(factory, ctx, rows, heldout=data is None)


def run_rows(
    factory: AdapterFactory, ctx: SuiteContext, rows: Sequence[dict[str, Any]], *, heldout: bool = False
) -> SuiteResult:
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    scored = score_rows(factory, rows, timeout_s=ctx.timeout_s)
    result.cases = scored["cases"]
    result.metrics = figures(scored["lines"])
    accuracy = result.metrics["ttl lines right"]
    false_expiry = result.metrics["null lines falsely expired"]
    result.score = round(min(accuracy, 1.0 - false_expiry), 4)
    result.passed = accuracy >= MIN_ACCURACY and false_expiry <= MAX_FALSE_EXPIRY and not result.failures
    result.series = {"bars": {"ttl lines right": accuracy, "null lines falsely expired": false_expiry}}
    result.notes.append(
        "held-out lines, written apart from the expiry rules"
        if heldout
        else "lines from the file given with --data"
    )
    return result
