"""The errors Remnant raises. Every one derives from :class:`RemnantError` so callers can catch one type."""

from __future__ import annotations


class RemnantError(Exception):
    """Base class of every error Remnant raises on purpose."""


class ValidationError(RemnantError, ValueError):
    """Bad input at an edge: an out-of-range number, an empty text, a naive datetime, an unknown kind."""


class MetadataError(ValidationError):
    """A memory's ``metadata`` is not plain, bounded JSON (too deep or large, a bad key, a lone
    surrogate, a non-JSON value) or names a key the engine keeps for itself."""


class NotFoundError(RemnantError, LookupError):
    """No memory (or other object) with that id exists in this tenant."""


class ConflictError(RemnantError):
    """The operation contradicts the current state (purging a pinned memory, unhiding a purged one)."""


class ConfirmationRequired(RemnantError):
    """The operation would remove more than the configured share of memories; repeat it with confirm=True."""

    def __init__(
        self, message: str, *, matched: int = 0, total: int = 0, ids: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.matched = matched
        self.total = total
        self.ids = list(ids or [])  # what it would take, when the request must be confirmed by count


class StoreError(RemnantError):
    """The store cannot be opened or used (missing, locked, corrupt, unreachable)."""


class TransientConflict(StoreError):
    """A concurrent transaction got in the way (a deadlock or a serialization failure) and this one
    was rolled back whole: nothing of it was applied, so running the operation again is safe. The
    engine does so itself; callers only see this inside a transaction of their own."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer Remnant; upgrade the package instead of downgrading the data."""


class DecayModeMismatch(StoreError):
    """The database was created with another decay clock mode (wall or active days)."""


class AuthenticationError(RemnantError):
    """No usable credentials: a missing, unknown or revoked API key (HTTP 401)."""


class PermissionDeniedError(RemnantError):
    """The credentials lack the scope the operation needs (HTTP 403)."""


class ServiceError(RemnantError):
    """A fault on the serving side, not in the request (HTTP 5xx): the store, the vault key, the
    redactor. ``code`` is the server's error code (``vault_key``, ``redaction_failed``, …)."""

    def __init__(self, message: str, *, code: str = "internal", status: int = 500) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


class MissingExtraError(RemnantError, ImportError):
    """An optional part of Remnant is used but its packages are not installed. The message names the
    extra that installs them (``pip install 'remnant[server]'``); ``extra`` is that name (empty for
    a package the base install should have brought) and ``missing`` the module that failed to import.
    It is also an ``ImportError``, so code that falls back when an optional import fails still does."""

    def __init__(self, what: str, extra: str, missing: str | None = None) -> None:
        if extra:
            message = f"{what} needs the '{extra}' extra: pip install 'remnant[{extra}]'"
        else:
            message = f"{what} needs packages that `pip install remnant` installs: reinstall remnant"
        if missing:
            message += f" (missing: {missing})"
        super().__init__(message)
        self.what = what
        self.extra = extra
        self.missing = missing


class BudgetExceeded(RemnantError):
    """A request ran past its time budget (``REMNANT_REQUEST_BUDGET``) before it changed anything:
    the work was given up so that it holds no one else; nothing was written. HTTP 503
    ``time_budget_exceeded``; a smaller input, or a larger budget, gets through."""
