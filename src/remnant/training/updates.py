"""Knowledge-update instruction samples from resolved conflicts (seed section 3.1, strategy two).

For each superseded value the model is taught both the current answer and that the old answer
is no longer valid, e.g. "According to the 2023 manual it was 10; since the 2024 update it is
15" / "旧手册中为10，但根据2024年最新更新，已变更为15". Output is chat fine-tuning JSONL:
``{"messages": [{"role": "user", ...}, {"role": "assistant", ...}]}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remnant.training.claims import Claim
from remnant.training.rules import Resolution

LANGS = ("en", "zh")
_HAS_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")


# a source's name in Chinese when it has no label (data/zh/sources.json: "manual" -> 手册)
_ZH_WORDS: dict[str, str] = dict(
    json.loads(
        (Path(__file__).resolve().parent / "data" / "zh" / "sources.json").read_text(encoding="utf-8")
    )["source_words"]
)


@dataclass(frozen=True)
class SourceLabels:
    """How sources and attributes are named in prose.

    ``sources``: ``{"manual-2023": {"en": "2023 manual", "zh": "2023年版手册"}}``;
    ``attributes``: ``{"max concurrency": {"zh": "最大并发数"}}``. Without a label a source
    name such as ``manual-2023`` becomes "the 2023 manual" / "2023年的手册": the year is taken
    from the name (or the claim's date) and put in front, and a few common words are translated.
    """

    sources: Mapping[str, Mapping[str, str]] | None = None
    attributes: Mapping[str, Mapping[str, str]] | None = None

    def attribute(self, name: str, lang: str) -> str:
        return (self.attributes or {}).get(name, {}).get(lang, name)

    def source(self, claim: Claim, lang: str) -> str:
        """The source with its year, without an article: "2023 manual", "2023年的手册"."""
        mapped = (self.sources or {}).get(claim.source, {})
        if lang in mapped:
            return mapped[lang]
        match = _HAS_YEAR.search(claim.source)
        year = match.group(0) if match else str(claim.year)
        rest = _HAS_YEAR.sub(" ", claim.source)
        rest = re.sub(r"[\s_\-]+", " ", rest).strip() or ("source" if lang == "en" else "资料")
        if lang == "zh":
            return f"{year}年的{_ZH_WORDS.get(rest.lower(), rest)}"
        return f"{year} {rest}"


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _pairs(resolution: Resolution) -> list[Claim]:
    """One representative (the newest) claim per distinct superseded value, oldest value first."""
    latest: dict[tuple[str, str], Claim] = {}
    for claim in resolution.superseded:
        key = claim.normalized.key
        if key not in latest or claim.date >= latest[key].date:
            latest[key] = claim
    return sorted(latest.values(), key=lambda c: c.date)


def update_samples(
    resolution: Resolution,
    *,
    langs: Sequence[str] = LANGS,
    labels: SourceLabels | None = None,
    with_meta: bool = False,
) -> list[dict[str, Any]]:
    """Chat samples teaching the current value and that each old value is superseded."""
    labels = labels or SourceLabels()
    new = resolution.winner
    ent, nv = new.entity, _fmt(new.value)
    rows: list[dict[str, Any]] = []
    for lang in langs:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
        for old in _pairs(resolution):
            ov = _fmt(old.value)
            attr = labels.attribute(new.attribute, lang)
            old_src = labels.source(old, lang)
            new_src = labels.source(new, lang)
            if lang == "en":
                old_src = f"the {old_src}"
                since = f"since the {new.year} update"
                qa = [
                    (
                        f"According to {old_src}, what is the {attr} of {ent}?",
                        f"According to {old_src} it was {ov}; {since} it is {nv}.",
                    ),
                    (
                        f"What is the {attr} of {ent}?",
                        f"The {attr} of {ent} is {nv} ({since}, per the {new_src}). "
                        f"The earlier value {ov} from {old_src} is superseded.",
                    ),
                    (
                        f"Is the {attr} of {ent} still {ov}?",
                        f"No. According to {old_src} it was {ov}; {since} it is {nv}.",
                    ),
                ]
            else:
                since = f"根据{new.year}年最新更新"
                qa = [
                    (
                        f"根据{old_src}，{ent}的{attr}是多少？",
                        f"{old_src}中为{ov}，但{since}，{ent}的{attr}已变更为{nv}。",
                    ),
                    (
                        f"{ent}的{attr}是多少？",
                        f"{ent}的{attr}是{nv}（{since}，见{new_src}）。{old_src}中的旧值{ov}已被取代。",
                    ),
                    (
                        f"{ent}的{attr}还是{ov}吗？",
                        f"不是。{old_src}中为{ov}，但{since}，已变更为{nv}。",
                    ),
                ]
            for question, answer in qa:
                row: dict[str, Any] = {
                    "messages": [
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": answer},
                    ]
                }
                if with_meta:
                    row["meta"] = {
                        "kind": "knowledge_update",
                        "lang": lang,
                        "entity": ent,
                        "attribute": new.attribute,
                        "current": new.value,
                        "current_claim": new.claim_id,
                        "superseded": old.value,
                        "superseded_claim": old.claim_id,
                    }
                rows.append(row)
    return rows


def all_update_samples(
    resolutions: Iterable[Resolution],
    *,
    langs: Sequence[str] = LANGS,
    labels: SourceLabels | None = None,
    with_meta: bool = False,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for resolution in resolutions:
        out.extend(update_samples(resolution, langs=langs, labels=labels, with_meta=with_meta))
    return out
