"""Month names and Chinese digits, shared by the query parser, the time resolver and the ingestor."""

from __future__ import annotations

from remnant.core.text.words import table, words

# the names and digits are data (data/<lang>/calendar.json)
ENGLISH_MONTHS: tuple[str, ...] = words("calendar", "months", "en")
MONTH_NUMBER: dict[str, int] = {name: i + 1 for i, name in enumerate(ENGLISH_MONTHS)}

ZH_DIGITS: dict[str, int] = dict(table("zh", "calendar")["digits"])
