"""Errors raised by the privacy layer.

Every failure here is loud on purpose: a redaction or vault problem must fail the write, never
fall back to storing or returning plaintext.
"""

from __future__ import annotations

from remnant.core.errors import RemnantError


class PrivacyError(RemnantError):
    """Base class for every privacy-layer failure."""


class RedactionError(PrivacyError):
    """Redaction could not complete; the caller must not store the text."""


class VaultKeyError(PrivacyError):
    """No usable key: missing, malformed, or not the key an entry was encrypted with."""


class VaultCorruptError(PrivacyError):
    """A vault entry failed authentication (tampered, truncated or moved between rows)."""


class VaultNotFoundError(PrivacyError):
    """A placeholder has no vault entry for this tenant and user (never stored, or forgotten)."""
