"""Errors raised by knowledge partitions (all :class:`~remnant.core.errors.RemnantError`)."""

from __future__ import annotations

from remnant.core.errors import ConflictError, NotFoundError, RemnantError, ValidationError


class PartitionError(RemnantError):
    """Base class for partition problems."""


class InvalidPartitionError(PartitionError, ValidationError):
    """A bad partition name, description or routing pattern."""


class PartitionNotFoundError(PartitionError, NotFoundError):
    """No partition has that name."""


class PartitionExistsError(PartitionError, ConflictError):
    """A partition with that name already exists."""
