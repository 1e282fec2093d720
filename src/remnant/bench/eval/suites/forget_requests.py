"""Forget requests in everyday words: the right memories go, and nothing else is touched.

Each case (held-out, hand-written by an independent author: ``bench/heldout/forget_requests.jsonl``,
see its README) is a user's small memory (5 to 7 earlier turns, each with a key and the day it was
said) and one request such as "forget where I live" or 忘掉我昨天说的. A fresh adapter remembers the
turns in the order they were said, with the clock moved between them (the ``wait`` verb; without it
``advance_time``), then the request goes to ``forget(user, request=...)``. Scored per case:

* **found**: every ``expect`` memory is gone; for a ``partial`` one (a turn that holds the value
  next to other information) it may stay, edited, but no ``expect_values`` substring may remain in
  any memory of the user, in what recall returns for the request and for the value, or in the
  adapter's raw storage bytes (a value under six characters, such as an age, is looked for there
  together with the few characters around it as it was said, since a bare "41" occurs in any
  database file by chance), and every ``keep_values`` substring must still be stored;
* **clean**: every ``keep`` memory is still there with its text unchanged.

The score is the share of cases that are both found and clean. The suite can fail: an adapter
that acknowledges and deletes nothing (``never-forgets``) finds nothing, and one that wipes the
user (``forgets-everything``) touches every kept memory.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext, read_jsonl

NAME = "forget_requests"
DEFINITION = (
    "share of held-out forget requests in words (EN/ZH) where every expected memory went (or, for a "
    "value inside a longer turn, only the value went: absent from every stored memory, recall and raw "
    "bytes, the rest kept) and no other memory of the user was touched"
)
TARGET = ">= 0.90 of cases found with no unrelated memory touched"
# matching uses the meaning of the request (the embedder's vectors), so `remnant eval` runs this
# suite with the embedder the product installs (e5-small), not the lexical recall of the others
PRODUCT_EMBEDDER = True


def load_cases(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The cases of a JSON Lines file (default: the held-out file shipped with the package)."""
    return read_jsonl(path, "forget_requests.jsonl")


def _case(a: MemoryAdapter, case: dict[str, Any]) -> dict[str, Any]:
    user = str(case.get("user") or "user")
    wait = getattr(a, "wait", None) or a.advance_time
    lister = getattr(a, "memory_texts", None)
    if not callable(lister):
        raise NotImplementedError(
            "the adapter has no memory_texts(user_id): the suite cannot see what stayed"
        )
    memories = sorted(case["memories"], key=lambda m: m["said"])
    day = memories[0]["said"] if memories else 0
    ids: dict[str, str] = {}
    for m in memories:
        if m["said"] > day:
            wait(m["said"] - day)
            day = m["said"]
        ids[m["mid"]] = a.remember(user, m["text"], key=m.get("key"))
    if day < 0:
        wait(-day)
    before = lister(user)
    error = None
    try:
        a.forget(user, request=case["request"])
    except NotImplementedError as exc:
        error = f"cannot act on requests: {exc}"
    after = lister(user)
    partial = set(case.get("partial") or [])
    stored = "\n".join(after.values()).lower()
    value_paths: dict[str, bool] = {}
    if case.get("expect_values"):
        recalled = " ".join(h.text for h in check_recalled(a.recall(user, case["request"], 10), 10))
        for v in case["expect_values"]:
            recalled += " " + " ".join(h.text for h in check_recalled(a.recall(user, v, 10), 10))
        raw_fn = getattr(a, "raw_bytes", None)
        raw = raw_fn().lower() if callable(raw_fn) else None
        vals = [v.lower() for v in case["expect_values"]]
        value_paths["stored"] = not any(v in stored for v in vals)
        value_paths["recall"] = not any(v in recalled.lower() for v in vals)
        originals = [m["text"].lower() for m in case["memories"] if m["mid"] in partial]
        needles = raw_needles(vals, originals)
        value_paths["raw bytes"] = not any(n in raw for n in needles) if raw is not None else True
    keep_values_ok = all(v.lower() in stored for v in case.get("keep_values") or [])
    missed = []
    for mid in case["expect"]:
        if mid in partial:
            if not (all(value_paths.values()) and keep_values_ok):
                missed.append(mid)
        elif ids[mid] in after:
            missed.append(mid)
    touched = [mid for mid in case["keep"] if after.get(ids[mid]) != before.get(ids[mid])]
    return {
        "found": not missed,
        "clean": not touched,
        "missed": missed,
        "touched": touched,
        "value_paths": value_paths,
        "keep_values_ok": keep_values_ok,
        "error": error,
    }


#: Values shorter than this are looked for in the raw bytes with the words around them as said: a
#: bare "41" or "34" occurs in any database file by chance (page numbers, timestamps, ids).
SHORT_VALUE = 6
CONTEXT = 4


def raw_needles(values: list[str], originals: list[str]) -> list[bytes]:
    """What must be absent from the raw storage bytes for ``values`` to be gone: each value itself,
    or for a short one, the value with up to ``CONTEXT`` characters either side as it stood in the
    turns that carried it (a leak keeps those together; a redaction in place does not)."""
    needles: list[bytes] = []
    for v in values:
        if len(v) >= SHORT_VALUE:
            needles.append(v.encode("utf-8"))
            continue
        for text in originals:
            start = text.find(v)
            while start >= 0:
                window = text[max(0, start - CONTEXT) : start + len(v) + CONTEXT]
                needles.append(window.encode("utf-8"))
                start = text.find(v, start + 1)
    return needles


def _group(case: dict[str, Any]) -> str:
    scope = case.get("scope") or {}
    if scope.get("kind") == "time":
        return "time scope"
    if scope.get("kind") == "topic":
        return "topic scope"
    return "value inside a turn" if case.get("partial") else "plain"


def run_cases(factory: AdapterFactory, ctx: SuiteContext, cases: list[dict[str, Any]]) -> SuiteResult:
    """Score ``cases`` (the held-out schema) against the adapter."""
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    if ctx.quick:  # an even spread over the file, so quick runs still see every kind of case
        step = max(1, len(cases) // 24)
        cases = cases[::step][:24]
    tallies: dict[str, dict[str, list[int]]] = {
        axis: defaultdict(lambda: [0, 0, 0]) for axis in ("lang", "group", "persona")
    }
    found = clean = both = 0
    misses: list[dict[str, Any]] = []
    for case in cases:

        def body(a: MemoryAdapter, c: dict[str, Any] = case) -> dict[str, Any]:
            return _case(a, c)

        outcome = run_case(str(case["id"]), factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        v = outcome.value if outcome.ok else {"found": False, "clean": False}
        note = v.get("error")
        if outcome.ok and isinstance(note, str) and note not in result.notes:
            result.notes.append(note)
        ok_found, ok_clean = bool(v["found"]), bool(v["clean"])
        found += ok_found
        clean += ok_clean
        both += ok_found and ok_clean
        for axis, label in (
            ("lang", case.get("lang", "?")),
            ("group", _group(case)),
            ("persona", case.get("user", "?")),
        ):
            t = tallies[axis][str(label)]
            t[0] += ok_found and ok_clean
            t[1] += ok_clean
            t[2] += 1
        if not (ok_found and ok_clean):
            misses.append({"id": case["id"], "missed": v.get("missed"), "touched": v.get("touched")})
    n = len(cases)
    result.score = ratio(both, n)
    result.passed = result.score >= 0.9 and not result.failures
    result.metrics = {
        "cases": n,
        "found and clean": round(ratio(both, n), 4),
        "found (every expected memory or value gone)": round(ratio(found, n), 4),
        "clean (no kept memory touched)": round(ratio(clean, n), 4),
        **{
            f"{axis}: {label}": f"{t[0]}/{t[2]} found and clean, {t[1]}/{t[2]} clean"
            for axis in ("lang", "group")
            for label, t in sorted(tallies[axis].items())
        },
        "per persona (found and clean)": {k: f"{t[0]}/{t[2]}" for k, t in sorted(tallies["persona"].items())},
        "cases that failed": [m["id"] for m in misses],
    }
    result.series = {
        "groups": {label: round(ratio(t[0], t[2]), 4) for label, t in sorted(tallies["group"].items())}
    }
    return result


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    """The held-out cases, or those of ``ctx.data`` (``remnant eval --data FILE``, e.g. a dev file)."""
    result = run_cases(factory, ctx, load_cases(ctx.data))
    if ctx.data is not None:
        result.notes.append(f"cases from {ctx.data}, not the held-out file")
    return result
