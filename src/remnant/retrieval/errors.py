"""Errors raised by retrieval (bad queries, budgets, index misuse)."""

from __future__ import annotations

from remnant.core.errors import ValidationError


class RetrievalError(ValidationError):
    """Bad input to retrieval or misuse of an index (a ValidationError, so callers catch one type)."""


class QueryTooLong(RetrievalError):
    """The query exceeds the accepted length."""
