"""Knowledge partitions (the seed's mixture-of-experts idea at the application level): named
groups of knowledge, a router that picks groups for a query, and per-partition rebuild,
replace and drop with an audit trail."""

from remnant.partitions.audit import AuditSink, SQLiteAudit
from remnant.partitions.backend import PartitionBackend, SQLiteBackend
from remnant.partitions.embed import Embedder, HashingEmbedder
from remnant.partitions.errors import (
    InvalidPartitionError,
    PartitionError,
    PartitionExistsError,
    PartitionNotFoundError,
)
from remnant.partitions.manager import DEFAULT_PARTITIONS, PartitionManager
from remnant.partitions.model import AuditRecord, Hit, KnowledgeItem, Partition
from remnant.partitions.router import RouteDecision, Router

__all__ = [
    "DEFAULT_PARTITIONS",
    "AuditRecord",
    "AuditSink",
    "Embedder",
    "HashingEmbedder",
    "Hit",
    "InvalidPartitionError",
    "KnowledgeItem",
    "Partition",
    "PartitionBackend",
    "PartitionError",
    "PartitionExistsError",
    "PartitionManager",
    "PartitionNotFoundError",
    "RouteDecision",
    "Router",
    "SQLiteAudit",
    "SQLiteBackend",
]
