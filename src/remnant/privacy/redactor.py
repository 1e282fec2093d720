"""The redaction facade every write path calls before anything reaches a store, index or log.

``Redactor.redact`` replaces personal data with stable typed placeholders and vaults the
originals; any failure raises, so a caller that cannot redact cannot store. ``scan`` reports
without touching the vault; ``redact_for_log`` is one-way (``[EMAIL]``), for audit entries and logs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from remnant.core.text import has_han
from remnant.privacy.detector import Detector
from remnant.privacy.entities import ALL_ENTITIES, Detection, EntityType, Finding, RedactionResult
from remnant.privacy.errors import PrivacyError, RedactionError
from remnant.privacy.keys import Keyring
from remnant.privacy.normalize import canonical_value
from remnant.privacy.policy import PrivacyPolicy
from remnant.privacy.storage import SqliteVaultStorage
from remnant.privacy.vault import Vault


def _splice(text: str, spans: list[tuple[int, int, str]]) -> str:
    out: list[str] = []
    pos = 0
    for start, end, repl in sorted(spans):
        out.append(text[pos:start])
        out.append(repl)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _sweep(text: str, replacements: dict[str, str]) -> str:
    """Replace any further verbatim copy of a detected value (belt and braces)."""
    for value in sorted(replacements, key=len, reverse=True):
        # Short Latin values ("Al") would hit ordinary words; a 2-character Chinese name will not.
        cjk = has_han(value)
        if (len(value) >= 4 or (cjk and len(value) >= 2)) and value in text:
            text = text.replace(value, replacements[value])
    return text


@dataclass(frozen=True)
class PreparedText:
    """The detections of one text, found before the store's write lock is taken (see
    :meth:`Redactor.prepare`); ``preview`` is the text as it will be stored, placeholders unnumbered."""

    text: str
    detections: tuple[Detection, ...]
    preview: str


class Redactor:
    """Detects personal data and swaps it for vaulted placeholders.

    ``vault`` may be ``None`` for scan-only use; ``redact`` then raises.
    """

    def __init__(
        self,
        vault: Vault | None,
        policy: PrivacyPolicy | None = None,
        *,
        detector: Detector | None = None,
    ) -> None:
        self.vault = vault
        self.policy = policy or (detector.policy if detector is not None else PrivacyPolicy())
        self.detector = detector or Detector(self.policy)

    @classmethod
    def for_sqlite(
        cls,
        conn: sqlite3.Connection,
        *,
        keyring: Keyring | None = None,
        policy: PrivacyPolicy | None = None,
        commit: bool = True,
    ) -> Redactor:
        """A redactor whose vault lives in ``conn`` (key from the environment unless given)."""
        vault = Vault(SqliteVaultStorage(conn, commit=commit), keyring)
        return cls(vault, policy or PrivacyPolicy.from_env())

    def scan(self, text: str) -> list[Finding]:
        """What ``redact`` would replace, with generic placeholders (``[PHONE]``); no vault access."""
        return [
            Finding(d.entity_type, d.start, d.end, f"[{d.entity_type.value}]", d.score, d.source)
            for d in self.detector.detect(text)
        ]

    def redact_for_log(self, text: str) -> str:
        """One-way redaction under this redactor's policy (``[EMAIL]``): what the engine writes to the
        audit log and status reasons, so no vault entry is tied to a log line."""
        return redact_for_log(text, self.policy)

    def detect(self, text: str) -> list[Detection]:
        """Raw detections including the original values (for the report command and tests)."""
        return self.detector.detect(text)

    def prepare(self, text: str) -> PreparedText:
        """Detection alone (the CPU-heavy part of :meth:`redact`; no vault, no store), so a writer can
        run it before taking the store's lock and pass the result to :meth:`redact`."""
        if not isinstance(text, str):
            raise RedactionError(f"expected text, got {type(text).__name__}")
        try:
            detections = tuple(self.detector.detect(text))
            spans = [(d.start, d.end, f"[{d.entity_type.value}]") for d in detections]
            preview = _sweep(_splice(text, spans), {d.value: f"[{d.entity_type.value}]" for d in detections})
        except PrivacyError:
            raise
        except Exception as exc:
            raise RedactionError(
                f"redaction failed, nothing may be stored: {type(exc).__name__}: {exc}"
            ) from exc
        return PreparedText(text, detections, preview)

    def redact(
        self, text: str, *, tenant: str, user_id: str, prepared: PreparedText | None = None
    ) -> RedactionResult:
        """Redacted text plus findings; raises ``PrivacyError`` rather than return plaintext.
        ``prepared``: this text's :meth:`prepare` result (detection is then not run again)."""
        if self.vault is None:
            raise RedactionError("this Redactor has no vault; it can only scan")
        if not isinstance(text, str):
            raise RedactionError(f"expected text, got {type(text).__name__}")
        if not tenant or not user_id:
            raise RedactionError("tenant and user_id are required: vault entries belong to one user")
        try:
            detections = (
                list(prepared.detections)
                if prepared is not None and prepared.text == text
                else self.detector.detect(text)
            )
            findings: list[Finding] = []
            spans: list[tuple[int, int, str]] = []
            seen: dict[str, str] = {}
            # one placeholder per value within this text, whatever the numbering across writes
            mine: dict[tuple[EntityType, str], str] = {}
            stable = self.policy.stable_placeholders
            for d in detections:
                same = (d.entity_type, canonical_value(d.entity_type.value, d.value))
                placeholder = mine.get(same) or self.vault.placeholder_for(
                    tenant, user_id, d.entity_type, d.value, stable=stable
                )
                mine[same] = placeholder
                findings.append(Finding(d.entity_type, d.start, d.end, placeholder, d.score, d.source))
                spans.append((d.start, d.end, placeholder))
                seen[d.value] = placeholder
            redacted = _sweep(_splice(text, spans), seen)
        except PrivacyError:
            raise
        except Exception as exc:
            raise RedactionError(
                f"redaction failed, nothing may be stored: {type(exc).__name__}: {exc}"
            ) from exc
        return RedactionResult(redacted, findings)

    def forget_entities(
        self, tenant: str, user_id: str, entity_types: Iterable[EntityType | str] | None = None
    ) -> int:
        """Delete the user's vault entries of these types ("forget my phone number")."""
        if self.vault is None:
            raise RedactionError("this Redactor has no vault")
        types = None
        if entity_types is not None:
            types = [t if isinstance(t, EntityType) else EntityType.parse(t) for t in entity_types]
        return self.vault.forget_entities(tenant, user_id, types)

    def purge_user(self, tenant: str, user_id: str) -> int:
        """Delete every vault entry of the user."""
        if self.vault is None:
            raise RedactionError("this Redactor has no vault")
        return self.vault.purge_user(tenant, user_id)


_LOG_POLICY = PrivacyPolicy(entities=ALL_ENTITIES)
_log_lock = threading.Lock()
_log_detectors: dict[PrivacyPolicy, Detector] = {}


def _log_detector(policy: PrivacyPolicy) -> Detector:
    with _log_lock:
        det = _log_detectors.get(policy)
        if det is None:
            det = _log_detectors[policy] = Detector(policy)
        return det


def redact_for_log(text: str, policy: PrivacyPolicy | None = None) -> str:
    """One-way redaction for logs and audit entries: ``[EMAIL]``, ``[PHONE]``; no vault, no way back."""
    if not text:
        return text
    try:
        # logs have no use for a name: every type goes, whatever the memory policy keeps
        detections = _log_detector(policy or _LOG_POLICY).detect(text)
        spans = [(d.start, d.end, f"[{d.entity_type.value}]") for d in detections]
        return _sweep(_splice(text, spans), {d.value: f"[{d.entity_type.value}]" for d in detections})
    except PrivacyError:
        raise
    except Exception as exc:
        raise RedactionError(f"log redaction failed: {type(exc).__name__}: {exc}") from exc
