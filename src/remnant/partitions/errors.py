"""Errors raised by knowledge partitions."""

from __future__ import annotations


class PartitionError(Exception):
    """Base class for partition problems."""


class PartitionNotFoundError(PartitionError, KeyError):
    """No partition has that name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "partition not found"


class PartitionExistsError(PartitionError):
    """A partition with that name already exists."""
