"""Recall's CPU time with and without the current-state pair step, in one process (issue 27).

One user's store is filled with every chat turn of a timelines file (``Memory.add``, the product's
defaults: e5-small, the salience and pair models), then each probe query of the file is recalled
once to cache its vector, then ``repeat`` times with the step and as often without it (the pair
model taken off recall only), in alternating order; the least process CPU time of each query in
each mode is kept (on a loaded machine the least is the cost, the rest is waiting). Prints p50 /
p95 over the queries of both and their ratio. The query's embedding is cached in both modes, so
the ratio is the step's cost over the rest of recall (an uncached query costs more in both).

    PYTHONPATH=src python scripts/current_cost.py src/remnant/bench/heldout/timelines_r5.jsonl [--cold]

``--cold`` clears the pair model's recall cache (statements read, pairs scored) before each recall
with the step, so every pair is scored anew: the cost of a recall whose hits were never judged.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.understand.pair_model import PairJudge


def main(path: str, cold: bool = False, turns_cap: int = 600, repeat: int = 4) -> None:
    cases = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    said = [ev["say"] for c in cases for ev in c["events"] if "say" in ev][:turns_cap]
    queries = [
        ev["probe"]["query"]
        for c in cases
        for ev in c["events"]
        if "probe" in ev and ev["probe"].get("query")
    ]
    clock = ManualClock(datetime(2026, 1, 5, 9, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(Path(tmp) / "m.db", clock=clock)
        for i in range(0, len(said), 20):
            for text in said[i : i + 20]:
                mem.add([{"role": "user", "content": text}], user_id="u")
            clock.advance(timedelta(hours=6))
        on = mem.contradictions
        off = replace(on, pairs=None)  # recall reads the judge from here; the write hooks keep theirs
        for q in queries[:10]:  # warm: the models loaded, caches filled
            mem.recall(q, user_id="u", touch=False)
        times: dict[bool, list[float]] = {True: [], False: []}
        for q in queries:
            mem.recall(q, user_id="u", touch=False)  # the query's vector cached: both modes alike
            best = {True: float("inf"), False: float("inf")}
            for n in range(repeat):
                for judged in (True, False) if n % 2 == 0 else (False, True):
                    mem.contradictions = on if judged else off
                    if cold and judged and isinstance(on.pairs, PairJudge):
                        on.pairs.clear_cache()  # every pair scored anew
                    t0 = time.process_time()
                    mem.recall(q, user_id="u", touch=False)
                    best[judged] = min(best[judged], time.process_time() - t0)
            for judged, t in best.items():
                times[judged].append(t)
        mem.contradictions = on
        mem.close()
    p = {k: (float(np.percentile(v, 50)) * 1e3, float(np.percentile(v, 95)) * 1e3) for k, v in times.items()}
    mode = "cold: the pair model's cache cleared before each recall" if cold else "warm"
    print(f"{len(said)} turns, {len(queries)} queries, recall CPU ms (process time), {mode}")
    print(f"  without the step: p50 {p[False][0]:.2f}  p95 {p[False][1]:.2f}")
    print(f"  with the step:    p50 {p[True][0]:.2f}  p95 {p[True][1]:.2f}")
    print(f"  ratio p50 {p[True][0] / p[False][0]:.3f}  p95 {p[True][1] / p[False][1]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1], cold="--cold" in sys.argv[2:])
