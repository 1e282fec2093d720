"""A generated multi-version product-manual dataset (2022/2023/2024 editions plus noise).

Used by the tests and benchmarks: several products' specifications change across editions, the
same value is sometimes written in different units ("30 s" vs "30000 ms"), and a low-authority
blog post from mid-2024 repeats stale values. The generator knows the ground truth independently
of the resolver: every (product, attribute) whose stated values differ is a conflict, and the
current value is the 2024 manual's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

PRODUCTS = [
    "Orion Gateway",
    "Vega Cache",
    "Lyra Queue",
    "Atlas DB",
    "Nova Search",
    "Polaris Proxy",
    "Sirius Stream",
    "Draco Vault",
    "Cygnus Edge",
    "Hydra Batch",
    "Pavo Mesh",
    "Indus Store",
]

EDITIONS = [
    ("manual-2022", datetime(2022, 3, 1, tzinfo=UTC), 0.9),
    ("manual-2023", datetime(2023, 3, 1, tzinfo=UTC), 0.9),
    ("manual-2024", datetime(2024, 3, 1, tzinfo=UTC), 0.9),
]
BLOG = ("community-blog", datetime(2024, 6, 15, tzinfo=UTC), 0.3)


def _concurrency(v: float, rng: np.random.Generator) -> str:
    return str(int(v)) if rng.random() < 0.5 else f"{int(v)} connections"


def _timeout(v: float, rng: np.random.Generator) -> str:
    return f"{int(v)} s" if rng.random() < 0.5 else f"{int(v * 1000)} ms"


def _memory(v: float, rng: np.random.Generator) -> str:
    return f"{int(v)} GB" if rng.random() < 0.5 else f"{int(v * 1024)} MB"


def _rate(v: float, rng: np.random.Generator) -> str:
    return f"{int(v)} req/s" if rng.random() < 0.5 else f"{int(v * 60)} req/min"


ATTRIBUTES = {
    "max concurrency": ([8, 10, 15, 20, 32, 64], _concurrency),
    "request timeout": ([10, 15, 30, 60, 120], _timeout),
    "memory limit": ([1, 2, 4, 8, 16], _memory),
    "rate limit": ([50, 100, 200, 500], _rate),
}


@dataclass
class ManualDataset:
    claims: list[dict[str, Any]] = field(default_factory=list)
    # (entity, attribute) -> canonical current value (a float in the attribute's base unit)
    current: dict[tuple[str, str], float] = field(default_factory=dict)
    # (entity, attribute) -> the distinct true values ever stated (base units)
    stated: dict[tuple[str, str], set[float]] = field(default_factory=dict)
    documents: list[tuple[str, datetime, str, float]] = field(default_factory=list)

    @property
    def conflicts(self) -> set[tuple[str, str]]:
        return {key for key, values in self.stated.items() if len(values) > 1}


def manual_dataset(
    n_products: int = 8, *, seed: int = 7, change_prob: float = 0.45, blog_prob: float = 0.3
) -> ManualDataset:
    """Generate claims for ``n_products`` products across three manual editions and a blog.

    The first twelve products have names; beyond that they are numbered (for scale tests).
    """
    if n_products < 1:
        raise ValueError("n_products must be >= 1")
    names = PRODUCTS[:n_products] + [f"Product {i:05d}" for i in range(len(PRODUCTS), n_products)]
    rng = np.random.default_rng(seed)
    data = ManualDataset()
    docs: dict[tuple[str, datetime, float], list[str]] = {}
    for product in names:
        for attribute, (choices, render) in ATTRIBUTES.items():
            value = float(rng.choice(choices))
            history: list[float] = []
            for source, date, authority in EDITIONS:
                if history and rng.random() < change_prob:
                    value = float(rng.choice([c for c in choices if c != value]))
                history.append(value)
                text = render(value, rng)
                data.claims.append(
                    {
                        "entity": product,
                        "attribute": attribute,
                        "value": text,
                        "date": date.date().isoformat(),
                        "source": source,
                        "authority": authority,
                    }
                )
                docs.setdefault((source, date, authority), []).append(
                    f"The {attribute} of {product} is {text}."
                )
            key = (product, attribute)
            data.current[key] = history[-1]
            data.stated[key] = set(history)
            if rng.random() < blog_prob:
                stale = (
                    history[0]
                    if history[0] != history[-1]
                    else float(rng.choice([c for c in choices if c != history[-1]]))
                )
                source, date, authority = BLOG
                text = render(stale, rng)
                data.claims.append(
                    {
                        "entity": product,
                        "attribute": attribute,
                        "value": text,
                        "date": date.date().isoformat(),
                        "source": source,
                        "authority": authority,
                    }
                )
                docs.setdefault((source, date, authority), []).append(
                    f"The {attribute} of {product} is {text}."
                )
                data.stated[key].add(stale)
    data.documents = [
        (" ".join(lines), date, source, authority) for (source, date, authority), lines in docs.items()
    ]
    return data


def base_value(attribute: str, normalized_number: float) -> float:
    """Convert a normalised number (seconds, bytes, per-second) back to the generator's unit."""
    if attribute == "memory limit":
        return normalized_number / 1024**3
    return normalized_number
