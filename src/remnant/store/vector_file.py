"""The SQLite store's persistent vector index: one flat float32 file per (tenant, model) beside the
database, memory-mapped by every process that searches it.

Why this shape (measured on 2 cores, docs/benchmarks/vector-index.md): the file opens in constant
time (a ``mmap``), exact search over it is a matrix product (3 ms at 100k x 64-d, where sqlite-vec's
brute force took 20-29 ms), and every byte of a purged vector can be overwritten in place, which a
saved HNSW graph (usearch, hnswlib) cannot do without a rebuild: they keep the vector in their own
file.

The table is the source of truth; the file is an index of it:

- ``embeddings.slot`` is the vector's row in the file and ``vector_files.rows`` the committed row
  count. A writer appends inside its SQLite write transaction (``BEGIN IMMEDIATE`` serialises
  writers across processes), so a writer killed mid-write leaves rows past ``rows`` that nobody
  reads and the next writer overwrites.
- A replaced or purged vector's slot goes into ``vector_tombstones`` in the same transaction and is
  overwritten with zeros right after the commit (and on open, if a process died in between). Slots
  are never reused, so a zeroed slot cannot be handed to another memory.
- Rows without a slot (a database from before this index, or a repaired file) are appended on the
  next search, found through a partial index in constant time; a file shorter than ``rows`` (lost
  by an OS crash) is rebuilt from the table.
"""

from __future__ import annotations

import glob
import hashlib
import mmap
import os
import secrets
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from remnant.core.errors import StoreError, ValidationError

#: bytes of one float32
_F32 = 4
#: files at least this large grow ahead of their rows (see VectorFiles._pwrite)
_HEADROOM_FROM = 1 << 20

#: exact search reads a mapping this big in chunks and hands each chunk's pages back to the OS cache
#: once scored (``MADV_DONTNEED``): touched pages of a mapping count in the process's RSS, so every
#: process that searched a file kept all of it resident. The pages stay in the page cache (shared,
#: reclaimable); the next scan maps them again, which costs CPU: at 1M x 64-d (256 MB) a released
#: scan took 31 ms of CPU against 14 ms for a mapped one (load 12, docs/benchmarks/vector-index.md),
#: so only files too big to keep mapped (1M x 384-d is 1.5 GB) are released.
RELEASE_ABOVE_BYTES = 1 << 30
#: rows scored per chunk of a released scan: 16 MiB of 64-d rows
_CHUNK_BYTES = 16 << 20


def file_name(db: Path, tenant: str, model: str) -> str:
    """A new vector file's name beside ``db``: the (tenant, model) hashed (ids may hold any
    characters) and a fresh generation, so a rebuilt file never replaces one another process has
    mapped (shrinking a mapped file would crash its readers with SIGBUS)."""
    digest = hashlib.sha256(f"{tenant}\x00{model}".encode()).hexdigest()[:16]
    return f"{db.name}-vectors-{digest}.{secrets.token_hex(4)}.f32"


def vector_files(db: Path) -> list[Path]:
    """Every vector file beside ``db``."""
    return sorted(db.parent.glob(f"{glob.escape(db.name)}-vectors-*.f32"))


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), so search is one dot product."""
    arr = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return np.ascontiguousarray(arr / np.where(norms == 0, 1.0, norms), dtype=np.float32)


class VectorFiles:
    """Reads and writes the vector files of one database; the SQL runs on the caller's connection."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._maps: dict[str, tuple[int, Mapped]] = {}  # file name -> (rows mapped, matrix)
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        return self.db.parent / name

    def owns(self, name: str) -> bool:
        """Whether ``name`` is one of this database's own files. A copy or rename of the database
        file (``cp a.db b.db``) carries the original's file names in its table: it must never
        write, zero or unlink those, or it would corrupt the other database's index."""
        return name.startswith(f"{self.db.name}-vectors-") and os.sep not in name

    def adopt(self, c: Any) -> int:
        """Give every (tenant, model) whose recorded file is another database's a fresh file of its
        own (its rows are appended again from the table on the next search); the other database's
        file is left alone. Returns how many were adopted."""
        rows = c.execute("SELECT tenant, model, name FROM vector_files").fetchall()
        adopted = 0
        for tenant, model, name in rows:
            if self.owns(str(name)):
                continue
            c.execute("UPDATE embeddings SET slot = NULL WHERE tenant = ? AND model = ?", (tenant, model))
            c.execute("DELETE FROM vector_tombstones WHERE tenant = ? AND model = ?", (tenant, model))
            c.execute(
                "UPDATE vector_files SET rows = 0, name = ? WHERE tenant = ? AND model = ?",
                (file_name(self.db, str(tenant), str(model)), tenant, model),
            )
            adopted += 1
        return adopted

    # -- writing (inside the store's write transaction) ------------------------------------------
    def state(self, c: Any, tenant: str, model: str) -> tuple[int, int, str] | None:
        row = c.execute(
            "SELECT dim, rows, name FROM vector_files WHERE tenant = ? AND model = ?", (tenant, model)
        ).fetchone()
        return (int(row[0]), int(row[1]), str(row[2])) if row else None

    def append(self, c: Any, tenant: str, model: str, rids: Sequence[int], vectors: np.ndarray) -> None:
        """Write ``vectors`` to new slots and point the rows of ``rids`` at them (their old slots are
        tombstoned by the caller)."""
        if not rids:
            return
        mat = unit_rows(vectors.reshape(len(rids), -1))
        dim = int(mat.shape[1])
        st = self.state(c, tenant, model)
        if st is None:
            name = file_name(self.db, tenant, model)
            c.execute(
                "INSERT INTO vector_files (tenant, model, dim, rows, name) VALUES (?, ?, ?, 0, ?)",
                (tenant, model, dim, name),
            )
            st = (dim, 0, name)
        fdim, rows, name = st
        if fdim != dim:
            raise ValidationError(f"model {model!r} has {fdim}-d vectors in this store, not {dim}-d")
        self._pwrite(name, rows * dim * _F32, mat.tobytes())
        c.executemany(
            "UPDATE embeddings SET slot = ? WHERE rid = ?",
            [(rows + i, int(rid)) for i, rid in enumerate(rids)],
        )
        c.execute(
            "UPDATE vector_files SET rows = ? WHERE tenant = ? AND model = ?",
            (rows + len(rids), tenant, model),
        )

    def _pwrite(self, name: str, offset: int, data: bytes) -> None:
        try:
            fd = os.open(self.path(name), os.O_RDWR | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                end = offset + len(data)
                if end > size >= _HEADROOM_FROM:
                    # grow a large file by an eighth ahead of its rows (zeros, sparse): readers map
                    # the whole file, so they remap when it grows, not after every append (a new
                    # map of 100k x 64 floats faults its pages in again: +2.5 ms on the next search)
                    os.ftruncate(fd, max(end, size + size // 8))
                os.pwrite(fd, data, offset)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreError(f"cannot write the vector index {self.path(name)}: {exc}") from exc

    def zero_tombstones(self, c: Any) -> int:
        """Overwrite every tombstoned slot with zeros, flush, then forget the tombstones."""
        rows = c.execute(
            "SELECT f.name, f.dim, t.slot FROM vector_tombstones t JOIN vector_files f "
            "ON f.tenant = t.tenant AND f.model = t.model ORDER BY f.name, t.slot"
        ).fetchall()
        by_file: dict[tuple[str, int], list[int]] = {}
        for name, dim, slot in rows:
            by_file.setdefault((str(name), int(dim)), []).append(int(slot))
        for (name, dim), slots in by_file.items():
            path = self.path(name)
            if not self.owns(name) or not path.exists():
                continue
            size = path.stat().st_size
            zeros = bytes(dim * _F32)
            try:
                fd = os.open(path, os.O_RDWR)
                try:
                    for slot in slots:
                        if (slot + 1) * dim * _F32 <= size:
                            os.pwrite(fd, zeros, slot * dim * _F32)
                    os.fsync(fd)  # the tombstones go only once the zeros are on disk
                finally:
                    os.close(fd)
            except OSError as exc:
                raise StoreError(f"cannot erase from the vector index {path}: {exc}") from exc
        c.execute("DELETE FROM vector_tombstones")
        return len(rows)

    def reset(self, c: Any, tenant: str, model: str) -> None:
        """Start a new file for (tenant, model): every row is appended to it again from the table.
        The old file is overwritten with zeros (other processes' maps read zeros, never past its
        end) and unlinked."""
        st = self.state(c, tenant, model)
        c.execute("UPDATE embeddings SET slot = NULL WHERE tenant = ? AND model = ?", (tenant, model))
        c.execute("DELETE FROM vector_tombstones WHERE tenant = ? AND model = ?", (tenant, model))
        if st is None:
            return
        c.execute(
            "UPDATE vector_files SET rows = 0, name = ? WHERE tenant = ? AND model = ?",
            (file_name(self.db, tenant, model), tenant, model),
        )
        old = self.path(st[2])
        if not self.owns(st[2]):
            return  # another database's file (this one is a copy): never touch it
        try:
            size = old.stat().st_size
            fd = os.open(old, os.O_RDWR)
            try:
                for offset in range(0, size, 1 << 20):
                    os.pwrite(fd, bytes(min(1 << 20, size - offset)), offset)
                os.fsync(fd)
            finally:
                os.close(fd)
            old.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot reset the vector index {old}: {exc}") from exc
        with self._lock:
            self._maps.pop(st[2], None)

    def live_fraction(self, c: Any) -> list[tuple[str, str, float]]:
        """(tenant, model, live rows / rows) of every file: what a compaction would reclaim."""
        rows = c.execute(
            "SELECT f.tenant, f.model, f.rows, (SELECT COUNT(*) FROM embeddings e WHERE e.tenant = f.tenant "
            "AND e.model = f.model AND e.slot IS NOT NULL) FROM vector_files f"
        ).fetchall()
        return [(str(r[0]), str(r[1]), (int(r[3]) / int(r[2])) if r[2] else 1.0) for r in rows]

    # -- reading ---------------------------------------------------------------------------------
    def matrix(self, name: str, rows: int, dim: int) -> Mapped | None:
        """The first ``rows`` slots, memory-mapped (shared with every other process); ``None`` when
        the file is shorter than the table says (lost by an OS crash: the caller rebuilds it)."""
        if rows == 0:
            return Mapped(np.zeros((0, dim), dtype=np.float32), None)
        if not self.owns(name):
            return None  # another database's file: the caller rebuilds this one's own
        with self._lock:
            got = self._maps.get(name)
            if got is not None and got[0] >= rows and got[1].rows.shape[1] == dim:
                return got[1].head(rows)
            path = self.path(name)
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                return None
            if size < rows * dim * _F32:
                return None
            # map the whole file (its zero headroom too); the table says how many rows are
            # committed, and a map is replaced only when the file has grown past it
            room = size // (dim * _F32)
            try:
                with open(path, "rb") as fh:
                    mm = mmap.mmap(fh.fileno(), room * dim * _F32, access=mmap.ACCESS_READ)
            except OSError as exc:
                raise StoreError(f"cannot map the vector index {path}: {exc}") from exc
            mapped = Mapped(np.frombuffer(mm, dtype=np.float32).reshape(room, dim), mm)
            self._maps[name] = (room, mapped)
            return mapped.head(rows)

    def close(self) -> None:
        with self._lock:
            self._maps.clear()


class Mapped:
    """Rows of a vector file as a read-only matrix over a memory map (``mm`` None: an empty one)."""

    def __init__(self, rows: np.ndarray, mm: mmap.mmap | None) -> None:
        self.rows = rows
        self._mm = mm

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def head(self, n: int) -> Mapped:
        """The first ``n`` rows, over the same map."""
        return Mapped(self.rows[:n], self._mm)

    def _release(self, start_row: int, n_rows: int) -> None:
        """Drop these rows' pages from this process (they stay in the OS page cache)."""
        if self._mm is None or not n_rows:
            return
        row_bytes = int(self.rows.shape[1]) * _F32
        page = mmap.PAGESIZE
        lo = (start_row * row_bytes) // page * page  # madvise wants a page-aligned start
        hi = min(len(self._mm), (start_row + n_rows) * row_bytes)
        if hi > lo:
            self._mm.madvise(mmap.MADV_DONTNEED, lo, hi - lo)

    def releases(self) -> bool:
        """Whether scans of this matrix hand their pages back (a big file)."""
        return self._mm is not None and self.rows.nbytes > RELEASE_ABOVE_BYTES

    def top(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`top_slots` over every row; a big file is scored in chunks whose pages are
        released as soon as they are scored, so the process never holds the whole file."""
        if not self.releases():
            return top_slots(self.rows, query, k)
        n = len(self)
        scores = np.empty(n, dtype=np.float32)
        step = max(1, _CHUNK_BYTES // (int(self.rows.shape[1]) * _F32))
        for start in range(0, n, step):
            stop = min(n, start + step)
            np.einsum("ij,j->i", self.rows[start:stop], query, out=scores[start:stop])
            self._release(start, stop - start)
        # the kernel maps a few pages around each fault (fault-around), some behind the chunk
        self._release(0, n)
        return _best(scores, k)

    def top_many(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`top` of each row of ``queries`` (unit vectors), one matrix product per group of
        queries: a batch of writes reads the file once, not once a write."""
        if self.releases():  # a big file is scored chunk by chunk, its pages handed back: per query
            return [self.top(q, k) for q in queries]
        out: list[tuple[np.ndarray, np.ndarray]] = []
        step = max(1, _CHUNK_BYTES // (max(len(self), 1) * _F32))  # a group's scores stay small
        for start in range(0, queries.shape[0], step):
            scores = queries[start : start + step] @ self.rows.T
            out += [_best(row, k) for row in scores]
        return out

    def top_of(self, subset: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best of the rows ``subset`` (positions into ``subset``), scored exactly."""
        if not self.releases():
            return top_slots(self.rows[subset], query, k)
        scores = np.empty(subset.size, dtype=np.float32)
        step = max(1, _CHUNK_BYTES // (int(self.rows.shape[1]) * _F32))
        for start in range(0, subset.size, step):
            part = subset[start : start + step]
            np.einsum("ij,j->i", self.rows[part], query, out=scores[start : start + part.size])
        self._release(0, len(self))  # scattered rows: hand back the whole map once
        return _best(scores, k)


def top_slots(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best slots of ``matrix`` for ``query`` (unit vectors): (slots, cosines), best first."""
    # einsum, not BLAS: OpenBLAS threads spinning on a busy 2-core machine made a 10k x 64-d
    # product take 8-15 ms against 0.09 ms in one thread (measured)
    return _best(np.einsum("ij,j->i", matrix, query), k)


def _best(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    top = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    top = top[np.argsort(-scores[top], kind="stable")]
    return top.astype(np.int64), scores[top]
