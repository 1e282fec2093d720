"""Deletion compliance: what was forgotten never comes back, through any path.

Each case has a user with secrets (each carrying a unique marker token) and ordinary facts to keep,
and a second user who asks to be erased. The secrets are used once (so they sit in access logs and
caches), then forgotten: by memory id, by key (the key has an older version too), by a
natural-language request (``remnant.engine.forgetting.requests`` when installed; otherwise by key, and the
report says so), and by erasing the second user. After each phase time passes (maintenance runs)
and every path is searched for the marker, case-insensitively: recall for the secret's question
and for the marker itself, the context built for the question, ``history(key)``, ``export(user)``
the privacy vault's decrypted values (adapters with a vault) and the raw bytes of the storage
(database, WAL and every file the adapter keeps). A path the
adapter does not offer is reported as not checked. Kept facts must still be recallable.
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import (
    AdapterFactory,
    MemoryAdapter,
    check_recalled,
    context_of,
    supports_requests,
)
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import Secret, deletion
from remnant.bench.eval.suites import SuiteContext

NAME = "deletion"
DEFINITION = (
    "share of (forgotten secret, path) checks where the secret's marker is absent, over recall (its "
    "question and the marker), context, history, export and raw storage bytes, after forget by id, "
    "by key, by request and user erasure; kept facts must stay recallable"
)
TARGET = "1.0 (nothing comes back), and >= 0.95 of kept facts still recalled"
PATHS = ("recall", "recall by marker", "context", "history", "export", "vault", "raw bytes")


def _check(a: MemoryAdapter, owner: str, s: Secret) -> dict[str, bool | None]:
    m = s.marker.lower()
    out: dict[str, bool | None] = {}
    got = check_recalled(a.recall(owner, s.fact.query, 20), 20)
    out["recall"] = not any(m in h.text.lower() for h in got)
    got = check_recalled(a.recall(owner, s.marker, 20), 20)
    out["recall by marker"] = not any(m in h.text.lower() for h in got)
    out["context"] = m not in context_of(a, owner, s.fact.query, 800).lower()
    hist = getattr(a, "history", None)
    out["history"] = (not any(m in t.lower() for t in hist(owner, s.fact.topic))) if callable(hist) else None
    export = getattr(a, "export", None)
    out["export"] = (m not in export(owner).lower()) if callable(export) else None
    vault_fn = getattr(a, "vault_plaintext", None)
    vault = vault_fn(owner) if callable(vault_fn) else None
    out["vault"] = (m not in vault.lower()) if isinstance(vault, str) else None
    raw = getattr(a, "raw_bytes", None)
    out["raw bytes"] = (m.encode() not in raw().lower()) if callable(raw) else None
    return out


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    users = ctx.size(6, 2)
    n_secrets = 8
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    nl = supports_requests()
    if not nl:
        result.notes.append(
            "remnant.engine.forgetting.requests is not installed: secrets meant for a natural-language request "
            "were forgotten by key instead"
        )
    by_path = {p: [0, 0] for p in PATHS}
    by_how: dict[str, list[int]] = {}
    kept = [0, 0]
    unchecked: dict[str, int] = {}
    for u in range(users):
        sc = deletion(ctx.seed, f"user{u:02d}", n_secrets=n_secrets)

        def body(a: MemoryAdapter, sc: Any = sc) -> dict[str, Any]:
            notes = []
            keep_ids = [a.remember(sc.user_id, f.text, key=f.topic, importance=f.importance) for f in sc.keep]
            ids: dict[str, str] = {}
            for s in sc.secrets:
                owner = sc.erased_user if s.how == "erasure" else sc.user_id
                if s.how == "key":  # an older version under the same key must go too
                    a.remember(
                        owner,
                        f"Before that, {s.fact.text[0].lower()}{s.fact.text[1:-1]}OLD.",
                        key=s.fact.topic,
                    )
                ids[s.fact.topic] = a.remember(
                    owner, s.fact.text, key=s.fact.topic, importance=s.fact.importance
                )
                a.remember(owner, f"Noted, thanks. {s.fact.query}", kind="episode", importance=0.2)
            for s in sc.secrets:
                owner = sc.erased_user if s.how == "erasure" else sc.user_id
                check_recalled(a.recall(owner, s.fact.query, 5), 5)
            a.advance_time(1)
            for s in sc.secrets:
                if s.how == "id":
                    a.forget(sc.user_id, memory_id=ids[s.fact.topic])
                elif s.how == "key":
                    a.forget(sc.user_id, key=s.fact.topic)
                elif s.how == "request":
                    try:
                        a.forget(sc.user_id, request=sc.requests[s.fact.topic])
                    except NotImplementedError:
                        notes.append("request->key")
                        a.forget(sc.user_id, key=s.fact.topic)
                    except Exception as exc:  # the request failed: the secret stays, the checks show it
                        notes.append(f"request failed: {type(exc).__name__}: {exc}")
            a.advance_time(1)
            checks = [{"how": s.how, **_check(a, sc.user_id, s)} for s in sc.secrets if s.how != "erasure"]
            a.erase_user(sc.erased_user)
            a.advance_time(1)
            checks += [
                {"how": s.how, **_check(a, sc.erased_user, s)} for s in sc.secrets if s.how == "erasure"
            ]
            kept_found = 0
            for f, mid in zip(sc.keep, keep_ids, strict=True):
                got = check_recalled(a.recall(sc.user_id, f.query, 5), 5)
                kept_found += int(mid in {h.id for h in got})
            # the erased user's own data may also be in a remaining user's path; check the raw bytes
            return {"checks": checks, "kept": kept_found, "kept_total": len(keep_ids), "notes": notes}

        outcome = run_case(sc.user_id, factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        if not outcome.ok:
            for p in PATHS:
                by_path[p][1] += len(sc.secrets)
            for s in sc.secrets:
                by_how.setdefault(s.how, [0, 0])[1] += len(PATHS)
            kept[1] += len(sc.keep)
            continue
        for c in outcome.value["checks"]:
            h = by_how.setdefault(c["how"], [0, 0])
            for p in PATHS:
                if c[p] is None:
                    unchecked[p] = unchecked.get(p, 0) + 1
                    continue
                by_path[p][0] += int(c[p])
                by_path[p][1] += 1
                h[0] += int(c[p])
                h[1] += 1
        for n in outcome.value["notes"]:
            if n.startswith("request failed") and n not in result.notes:
                result.notes.append(n)
        kept[0] += outcome.value["kept"]
        kept[1] += outcome.value["kept_total"]
    passed_checks = sum(v[0] for v in by_path.values())
    all_checks = sum(v[1] for v in by_path.values())
    result.score = ratio(passed_checks, all_checks)
    kept_share = ratio(*kept)
    result.passed = result.score == 1.0 and kept_share >= 0.95 and not result.failures
    result.metrics = {
        "checks": all_checks,
        "checks passed": passed_checks,
        "kept facts still recalled": round(kept_share, 4),
        **{f"path: {p}": round(ratio(*v), 4) if v[1] else None for p, v in by_path.items()},
        **{f"forgotten by {k}": round(ratio(*v), 4) for k, v in by_how.items()},
        "paths not offered by the adapter": unchecked,
        "natural-language requests": "remnant.engine.forgetting.requests"
        if nl
        else "not installed (forgot by key)",
    }
    result.series = {"paths": {p: round(ratio(*v), 4) if v[1] else None for p, v in by_path.items()}}
    return result
