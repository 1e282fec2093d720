"""Errors raised by retrieval (bad queries, budgets, index misuse)."""

from __future__ import annotations


class RetrievalError(Exception):
    """Base class for retrieval failures caused by bad input or misuse."""


class QueryTooLong(RetrievalError):
    """The query exceeds the accepted length."""
