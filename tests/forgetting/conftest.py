from __future__ import annotations

from tests.conftest import CLOCK_START

# the shared clock's start (tests/conftest.py holds the clock, db_path and mem fixtures)
START = CLOCK_START


class VaultRedactor:
    """A small real redactor for tests: replaces phone numbers with [PHONE_n] and keeps a vault.

    The privacy layer's Redactor lives in another package; this one has the same seam methods
    (redact, purge_user, forget_entities) so the forgetting code paths run for real.
    """

    import re as _re

    PHONE = _re.compile(r"\+?\d[\d -]{7,}\d")

    def __init__(self) -> None:
        self.vault: dict[tuple[str, str], list[tuple[str, str]]] = {}

    class _Out:
        def __init__(self, text: str) -> None:
            self.text = text

    def redact(self, text: str, *, tenant: str, user_id: str) -> VaultRedactor._Out:
        entries = self.vault.setdefault((tenant, user_id), [])

        def sub(m: object) -> str:
            entries.append(("PHONE", m.group(0)))  # type: ignore[attr-defined]
            return f"[PHONE_{len([e for e in entries if e[0] == 'PHONE'])}]"

        return self._Out(self.PHONE.sub(sub, text))

    def purge_user(self, *, tenant: str, user_id: str) -> int:
        return len(self.vault.pop((tenant, user_id), []))

    def forget_entities(self, *, tenant: str, user_id: str, entity_types: list[str]) -> int:
        entries = self.vault.get((tenant, user_id), [])
        keep = [e for e in entries if e[0] not in entity_types]
        self.vault[(tenant, user_id)] = keep
        return len(entries) - len(keep)
