"""Score the correction reader (:mod:`remnant.extract.corrections`) on the supersession corpora:
``python -m remnant.extract.correction_fit``.

Each pair of ``corpora/supersession/pairs_p*.jsonl`` is read as the engine reads a turn: the new
statement against one recent memory, the old statement. Per author it prints

- **recall** on the ``corrects`` pairs: a Correction returned whose wrong span lies in the old
  statement, whose right value occurs in the new one, and whose corrected content differs from the
  old statement (``plausible``: of those, the ones whose right value the old statement does not
  already hold, a stricter proxy with no gold span to compare);
- the **false-positive rate** on ``compatible`` and ``unrelated`` pairs (a turn that corrects
  nothing read as a correction);
- the rate on ``supersedes`` pairs, apart: a change is no correction, but one said with a
  correction signal ("actually it's 1090 now") may be read as one, which the engine then writes
  as the same new value.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from remnant.core.model import Kind, MemoryRecord
from remnant.engine.options import Correction
from remnant.extract.corrections import CorrectionReader

CORPORA = tuple(sorted(Path("corpora/supersession").glob("pairs_p*.jsonl")))
_NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    label: str
    lang: str
    author: str


def load(paths: Sequence[Path] = CORPORA) -> list[Pair]:
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                out.append(Pair(r["old"], r["new"], r["label"], r["lang"], str(r["author"])))
    return out


def memory(text: str) -> MemoryRecord:
    return MemoryRecord(id="old", user_id="u", content=text, kind=Kind.EPISODE, created_at=_NOW)


def corrects(pair: Pair, fix: Correction | None) -> tuple[bool, bool]:
    """(counts as a correction read, and plausibly the right one) for a ``corrects`` pair."""
    if fix is None or fix.memory_id != "old":
        return False, False
    s, e = fix.wrong
    if not (0 <= s < e <= len(pair.old)):
        return False, False
    right = fix.right.strip()
    a, b = fix.right_span
    if not right or pair.new[a:b] != fix.right or right not in pair.new:
        return False, False
    if pair.old[:s] + right + pair.old[e:] == pair.old:
        return False, False
    return True, right.lower() not in pair.old.lower()


@dataclass
class Tally:
    corrects: int = 0
    read: int = 0
    plausible: int = 0
    negatives: int = 0
    false_pos: int = 0
    changes: int = 0
    changes_read: int = 0

    def add(self, other: Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def recall(self) -> float:
        return self.read / self.corrects if self.corrects else 0.0

    @property
    def fp_rate(self) -> float:
        return self.false_pos / self.negatives if self.negatives else 0.0


def score(pairs: Sequence[Pair], reader: CorrectionReader | None = None) -> dict[str, Tally]:
    """Per author (and ``all``) tallies of the reader on ``pairs``."""
    reader = reader or CorrectionReader()
    out: dict[str, Tally] = {}
    for p in pairs:
        t = out.setdefault(p.author, Tally())
        fix = reader.read(p.new, [memory(p.old)])
        if p.label == "corrects":
            ok, plausible = corrects(p, fix)
            t.corrects += 1
            t.read += ok
            t.plausible += plausible
        elif p.label == "supersedes":
            t.changes += 1
            t.changes_read += fix is not None
        else:
            t.negatives += 1
            t.false_pos += fix is not None
    total = Tally()
    for t in out.values():
        total.add(t)
    out["all"] = total
    return out


def report(tallies: dict[str, Tally]) -> str:
    lines = ["| author | recall (corrects) | plausible | FP compatible+unrelated | read on supersedes |"]
    lines.append("|---|---|---|---|---|")
    for author, t in tallies.items():
        lines.append(
            f"| {author} | {t.read}/{t.corrects} = {t.recall:.3f} | {t.plausible} "
            f"| {t.false_pos}/{t.negatives} = {t.fp_rate:.4f} | {t.changes_read}/{t.changes} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=list(CORPORA))
    ap.add_argument("--misses", action="store_true", help="print the corrections missed and the false positives")
    args = ap.parse_args(argv)
    pairs = load(args.files)
    print(report(score(pairs)))
    if args.misses:
        reader = CorrectionReader()
        for p in pairs:
            fix = reader.read(p.new, [memory(p.old)])
            if p.label == "corrects" and not corrects(p, fix)[0]:
                print(f"MISS {p.author}: {p.old!r} -> {p.new!r}")
            elif p.label == "corrects" and not corrects(p, fix)[1] and fix is not None:
                print(f"ODD  {p.author}: {p.old!r} -> {p.new!r}: {p.old[fix.wrong[0]:fix.wrong[1]]!r} -> {fix.right!r}")
            elif p.label in ("compatible", "unrelated") and fix is not None:
                print(f"FP   {p.author}: {p.old!r} -> {p.new!r}: {p.old[fix.wrong[0]:fix.wrong[1]]!r} -> {fix.right!r}")


if __name__ == "__main__":
    main()
