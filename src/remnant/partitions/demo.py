"""A small labelled layout for trying and benchmarking partitions: the seed's three experts with
content, and queries (English and Chinese) labelled with the partition that should answer."""

from __future__ import annotations

from remnant.partitions.model import KnowledgeItem
from remnant.training.synthetic import manual_dataset

BASIC = [
    "Water boils at 100 degrees Celsius at sea level.",
    "Paris is the capital of France.",
    "A week has seven days.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.",
    "Light travels at about 300,000 kilometres per second in a vacuum.",
    "The Pacific is the largest ocean on Earth.",
    "Bees make honey from the nectar of flowers.",
    "水在海平面上100摄氏度沸腾。",
    "巴黎是法国的首都。",
    "一周有七天。",
]
PREFERENCES = [
    "User A prefers a minimalist design style.",
    "User A likes blue as an accent colour.",
    "User A wants answers in short bullet points.",
    "User A's favourite drink is green tea.",
    "User A prefers meetings in the morning.",
    "用户A喜欢简约的设计风格。",
    "用户A最喜欢的饮料是绿茶。",
]

# (query, expected partition)
QUERIES: list[tuple[str, str]] = [
    ("What is the capital of France?", "basic"),
    ("At what temperature does water boil?", "basic"),
    ("How many days are in a week?", "basic"),
    ("How does photosynthesis work?", "basic"),
    ("How fast does light travel?", "basic"),
    ("Which is the largest ocean?", "basic"),
    ("What do bees make?", "basic"),
    ("法国的首都是哪里？", "basic"),
    ("水在多少度沸腾？", "basic"),
    ("What is the max concurrency of Atlas DB?", "dynamic-2024"),
    ("What is the latest request timeout of Vega Cache?", "dynamic-2024"),
    ("rate limit of Lyra Queue", "dynamic-2024"),
    ("How much memory can Orion Gateway use? What is its memory limit?", "dynamic-2024"),
    ("Current max concurrency for Nova Search", "dynamic-2024"),
    ("Which version of the manual is current?", "dynamic-2024"),
    ("Atlas DB 最新的最大并发数是多少？", "dynamic-2024"),
    ("Which design style do I prefer?", "user-a-preferences"),
    ("What accent colour does user A like?", "user-a-preferences"),
    ("How should answers be formatted for user A?", "user-a-preferences"),
    ("What is my favourite drink?", "user-a-preferences"),
    ("When does user A like to have meetings?", "user-a-preferences"),
    ("我喜欢什么设计风格？", "user-a-preferences"),
    ("用户A最喜欢喝什么？", "user-a-preferences"),
]


def dynamic_items(seed: int = 1, products: int = 6) -> list[KnowledgeItem]:
    """The 2024 manual as sentences ("In 2024 the max concurrency of Atlas DB is 15.")."""
    data = manual_dataset(products, seed=seed)
    return [
        KnowledgeItem(
            f"In {c['date'][:4]} the {c['attribute']} of {c['entity']} is {c['value']}.",
            {"source": c["source"]},
        )
        for c in data.claims
        if c["source"] == "manual-2024"
    ]


def basic_items() -> list[KnowledgeItem]:
    return [KnowledgeItem(t) for t in BASIC]


def preference_items() -> list[KnowledgeItem]:
    return [KnowledgeItem(t) for t in PREFERENCES]
