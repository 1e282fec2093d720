"""The persistent vector index, with real processes on real files: another process's write is found
by meaning at once (SQLite's vector file, PostgreSQL's pgvector), a writer killed with SIGKILL at
the worst moments loses no memory, and a purge leaves no vector byte in any file beside the database.
"""

from __future__ import annotations

import mmap
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.retrieval import HybridRetriever
from remnant.store.base import MemoryFilter
from remnant.store.sqlite import SQLiteStore
from remnant.store.vector_file import Mapped, unit_rows

MODEL = "static"
# the stored rows: the static model's 64 dimensions, twice over (a turn's vector pairs it with the
# turn before it, remnant.retrieval.passages)
DIM = HybridRetriever(get_embedder(MODEL)).embedder.dim  # type: ignore[union-attr]


def make(target: str | Path) -> Memory:
    # vector-only recall: a hit proves the vector side found it, not the lexical index
    return Memory(target, retriever=HybridRetriever(get_embedder(MODEL), mode="vector", min_similarity=-1.0))


def child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (a real second process) with ``args`` as sys.argv[1:]."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


WRITE = """
    import sys
    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever
    m = Memory(sys.argv[1], retriever=HybridRetriever(get_embedder("static"), mode="vector"))
    print(m.remember(sys.argv[2], user_id="ana").id)
    m.close()
"""


def ids(result: object) -> list[str]:
    return [h.memory.id for h in result.hits]  # type: ignore[attr-defined]


def _another_process_write_is_found(target: str) -> None:
    mem = make(target)
    mem.remember("the quarterly tax deadline is in April", user_id="ana")
    before = ids(mem.recall("my favourite volcano hike", user_id="ana", limit=5, touch=False))
    assert len(before) == 1  # the index is open (mapped / connected) in this process
    out = child(WRITE, target, "we hiked up the volcano at dawn")
    assert out.returncode == 0, out.stderr
    new_id = out.stdout.strip()
    # at this process's very next recall, with no reopen: found by meaning first
    got = ids(mem.recall("volcano hike", user_id="ana", limit=5, touch=False))
    assert got[0] == new_id
    mem.close()


@pytest.mark.slow
def test_another_process_write_is_found_by_meaning_at_once_sqlite(tmp_path: Path) -> None:
    _another_process_write_is_found(str(tmp_path / "shared.db"))


def test_another_process_write_is_found_by_meaning_at_once_postgres(pg_url: str) -> None:
    _another_process_write_is_found(pg_url)


def _check_every_memory_is_searchable(path: Path) -> int:
    """Every committed memory has its vector in the index, and it is its own nearest neighbour."""
    store = SQLiteStore(path)
    try:
        model = HybridRetriever(get_embedder(MODEL)).model_id or ""
        every = store.ids(MemoryFilter(statuses=None))
        got, matrix = store.embeddings(MemoryFilter(statuses=None), model=model)
        assert sorted(got) == sorted(every)  # each memory committed with its vector, or not at all
        for memory_id, vec in zip(got[-25:], matrix[-25:], strict=True):
            hits = store.vector_search(vec, MemoryFilter(ids=(memory_id,)), model=model, limit=1)
            assert hits and hits[0][0] == memory_id and hits[0][1] > 0.999
        return len(every)
    finally:
        store.close()


KILL_IN_APPEND = """
    import os, signal, sys
    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever
    from remnant.store import vector_file
    m = Memory(sys.argv[1], retriever=HybridRetriever(get_embedder("static"), mode="vector"))
    m.remember_many([{"content": f"first batch note {i}", "user_id": "ana"} for i in range(20)])
    real = vector_file.VectorFiles._pwrite
    def dying(self, name, offset, data):
        real(self, name, offset, data)  # the bytes are in the file, the transaction not committed
        os.kill(os.getpid(), signal.SIGKILL)
    vector_file.VectorFiles._pwrite = dying
    m.remember_many([{"content": f"second batch note {i}", "user_id": "ana"} for i in range(20)])
"""


@pytest.mark.slow
def test_a_writer_killed_between_the_file_and_the_commit_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    out = child(KILL_IN_APPEND, str(path))
    assert out.returncode == -signal.SIGKILL, out.stderr
    assert _check_every_memory_is_searchable(path) == 20
    # the rows past the committed ones are garbage that the next writer overwrites
    mem = make(path)
    late = mem.remember("a note about the lighthouse keeper", user_id="ana")
    assert ids(mem.recall("lighthouse keeper", user_id="ana", limit=1, touch=False)) == [late.id]
    mem.close()
    assert _check_every_memory_is_searchable(path) == 21


LOOP = """
    import sys
    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever
    m = Memory(sys.argv[1], retriever=HybridRetriever(get_embedder("static"), mode="vector"))
    i = 0
    while True:
        m.remember_many([{"content": f"note {i} {j} about rivers", "user_id": "ana"} for j in range(7)])
        i += 1
        if i == 3:
            print("going", flush=True)
        if i % 5 == 0:
            m.purge([r.id for r in m.list_memories(user_id="ana", limit=2)])  # deletes mid-stream too
"""


@pytest.mark.slow
def test_a_writer_killed_at_a_random_moment_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "loop.db"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(LOOP), str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "going"
    time.sleep(0.7)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert _check_every_memory_is_searchable(path) > 0


def test_a_file_that_lost_its_tail_is_rebuilt_from_the_table(tmp_path: Path) -> None:
    path = tmp_path / "torn.db"
    mem = make(path)
    recs = mem.remember_many([{"content": f"garden note {i}", "user_id": "ana"} for i in range(30)])
    mem.close()
    (vec_file,) = [p for p in path.parent.iterdir() if "-vectors-" in p.name]
    os.truncate(vec_file, vec_file.stat().st_size // 2)  # as an OS crash could leave it
    mem = make(path)
    got = ids(mem.recall("garden note 29", user_id="ana", limit=30, touch=False))
    assert sorted(got) == sorted(r.id for r in recs)
    mem.close()
    assert _check_every_memory_is_searchable(path) == 30


def _file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())


def _vector_bytes(path: Path, memory_id: str) -> list[bytes]:
    """The purged vector as stored (raw in the table, unit length in the file)."""
    store = SQLiteStore(path)
    try:
        vec = store.embeddings(
            MemoryFilter(ids=(memory_id,)), model=HybridRetriever(get_embedder(MODEL)).model_id or ""
        )[1][0]
    finally:
        store.close()
    unit = unit_rows(vec[None, :])[0]
    return [vec.tobytes(), unit.tobytes(), unit[:16].tobytes()]


def test_purge_and_erase_leave_no_vector_byte_beside_the_database(tmp_path: Path) -> None:
    path = tmp_path / "purge.db"
    mem = make(path)
    recs = mem.remember_many(
        [{"content": f"private note {i} about my diagnosis", "user_id": "ana"} for i in range(10)]
        + [{"content": f"bob's note {i} on sailing", "user_id": "bob"} for i in range(10)]
    )
    mem.recall("diagnosis", user_id="ana", touch=False)
    target, kept = recs[3], recs[4]
    gone = _vector_bytes(path, target.id)
    alive = _vector_bytes(path, kept.id)
    assert all(b in _file_bytes(path) for b in gone)  # the probe finds a vector that is there
    mem.purge([target.id])
    blob = _file_bytes(path)
    assert not any(b in blob for b in gone)
    assert all(b in blob for b in alive)
    # re-embedding moves a vector to a new slot: the old slot is erased as well
    bob = [r for r in recs if r.user_id == "bob"]
    old = _vector_bytes(path, bob[0].id)
    mem.reembed("bob")
    report = mem.erase_user("ana")
    assert report.checks.get("file_bytes", 0) == 0
    blob = _file_bytes(path)
    assert not any(b in blob for b in alive)
    index = b"".join(p.read_bytes() for p in path.parent.iterdir() if "-vectors-" in p.name)
    assert index.count(old[1]) == 1  # the live copy only, not the replaced one
    got = ids(mem.recall("sailing", user_id="bob", limit=20, touch=False))
    assert len(got) == 10
    mem.close()


DIE_BEFORE_ZEROING = """
    import os, signal, sys
    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever
    from remnant.store import vector_file
    m = Memory(sys.argv[1], retriever=HybridRetriever(get_embedder("static"), mode="vector"))
    def dying(self, c):
        os.kill(os.getpid(), signal.SIGKILL)  # the purge committed; its vectors not yet zeroed
    vector_file.VectorFiles.zero_tombstones = dying
    m.purge([sys.argv[2]])
"""


@pytest.mark.slow
def test_a_purge_killed_before_erasing_the_file_is_finished_on_open(tmp_path: Path) -> None:
    path = tmp_path / "late.db"
    mem = make(path)
    recs = mem.remember_many([{"content": f"note {i} on my health", "user_id": "ana"} for i in range(5)])
    mem.close()
    gone = _vector_bytes(path, recs[2].id)
    out = child(DIE_BEFORE_ZEROING, str(path), recs[2].id)
    assert out.returncode == -signal.SIGKILL, out.stderr
    assert any(b in _file_bytes(path) for b in gone)  # the crash left it in the file...
    SQLiteStore(path).close()  # ...until the next open of the store finishes the erasure
    assert not any(b in _file_bytes(path) for b in gone)
    assert _check_every_memory_is_searchable(path) == 4


def test_the_vector_file_is_mapped_not_read(tmp_path: Path) -> None:
    """Opening costs no read of the vectors: the index is a memory map of the committed rows."""
    path = tmp_path / "map.db"
    mem = make(path)
    mem.remember_many([{"content": f"note {i}", "user_id": "ana"} for i in range(50)])
    mem.recall("note", user_id="ana", touch=False)
    maps = mem.store._vectors._maps  # type: ignore[attr-defined]
    (rows, matrix) = next(iter(maps.values()))
    base = matrix.rows
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    assert rows == 50 and isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)  # no copy
    assert not matrix.rows.flags.owndata and not matrix.rows.flags.writeable
    mem.close()


def _resident_bytes_of(path_fragment: str) -> int:
    """RSS of this process's mappings of files whose path holds ``path_fragment`` (Linux smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as smaps:
        for line in smaps:
            head = line.split(maxsplit=1)[0]
            if "-" in head and not head.endswith(":"):  # a mapping's first line: range perms ... path
                inside = path_fragment in line
            elif inside and head == "Rss:":
                total += int(line.split()[1]) * 1024
    return total


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc/self/smaps")
def test_a_big_vector_file_is_not_kept_resident_by_a_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exact search over a file above ``RELEASE_ABOVE_BYTES`` scores it in chunks and hands each
    chunk's pages back: after a search, none of the file is resident in the searching process (a
    small file stays mapped, as before). The answers are the same either way."""
    from remnant.store import vector_file

    path = tmp_path / "big.db"
    vector_only = HybridRetriever(get_embedder(MODEL), mode="vector", min_similarity=-1.0)
    mem = Memory(path, contradictions=ContradictionPolicy(mode="off"), retriever=vector_only)
    mem.remember_many([{"content": f"note {i} about topic {i % 97}", "user_id": "ana"} for i in range(3000)])
    kept = ids(mem.recall("topic 42", user_id="ana", limit=10, touch=False))
    assert _resident_bytes_of("big.db-vectors-") > 0  # small: the scanned pages stay mapped
    mem.close()

    monkeypatch.setattr(vector_file, "RELEASE_ABOVE_BYTES", 64 * 1024)  # 3000 x DIM floats, over 64 KB
    monkeypatch.setattr(vector_file, "_CHUNK_BYTES", 64 * 1024)
    mem = make(path)
    assert ids(mem.recall("topic 42", user_id="ana", limit=10, touch=False)) == kept
    assert _resident_bytes_of("big.db-vectors-") == 0
    # a narrow filter scores only the rows it allows (the scattered path): released as well
    mem.remember_many([{"content": f"bea note {i}", "user_id": "bea"} for i in range(30)])
    assert len(ids(mem.recall("note", user_id="bea", limit=10, touch=False))) == 10
    assert _resident_bytes_of("big.db-vectors-") == 0
    mem.close()


@pytest.mark.parametrize("n", [3])
def test_in_memory_stores_keep_the_in_process_index(n: int) -> None:
    mem = Memory(
        ":memory:",
        clock=ManualClock(),
        retriever=HybridRetriever(get_embedder(MODEL), mode="vector", min_similarity=-1.0),
    )
    mem.remember_many([{"content": f"note {i}", "user_id": "ana"} for i in range(n)])
    assert not mem.store.shared_vector_index
    assert len(ids(mem.recall("note", user_id="ana", touch=False))) == n
    mem.close()


def test_compaction_rewrites_a_mostly_purged_file_and_open_maps_survive(tmp_path: Path) -> None:
    path = tmp_path / "compact.db"
    mem = make(path)
    recs = mem.remember_many([{"content": f"harbour note {i}", "user_id": "ana"} for i in range(40)])
    reader = make(path)  # another connection with its own map of the file
    assert len(ids(reader.recall("harbour note", user_id="ana", limit=40, touch=False))) == 40
    (before,) = [p for p in path.parent.iterdir() if "-vectors-" in p.name]
    mem.purge([r.id for r in recs[:30]])
    mem.store.compact()
    (after,) = [p for p in path.parent.iterdir() if "-vectors-" in p.name]
    assert after != before and after.stat().st_size == 10 * DIM * 4  # only the live rows
    kept = {r.id for r in recs[30:]}
    assert set(ids(reader.recall("harbour note", user_id="ana", limit=40, touch=False))) == kept
    assert set(ids(mem.recall("harbour note", user_id="ana", limit=40, touch=False))) == kept
    reader.close()
    mem.close()
    assert _check_every_memory_is_searchable(path) == 10


def test_a_large_file_grows_ahead_of_its_rows_and_readers_see_each_append(tmp_path: Path) -> None:
    """A file of 1 MiB or more grows by an eighth ahead of its rows (zeros), so a reader's map is
    replaced only when the file grows past it; the headroom is never searched, and a reader that
    mapped the file before an append finds the appended vector."""
    from remnant.engine.forgetting.contradictions import ContradictionPolicy

    path = tmp_path / "grow.db"
    quiet = ContradictionPolicy(mode="off")  # the filler need not be checked against itself
    mem = Memory(path, contradictions=quiet, retriever=HybridRetriever(get_embedder(MODEL), mode="vector"))
    n = (1 << 20) // (DIM * 4) + 16  # just over 1 MiB of rows
    for s in range(0, n, 2000):
        mem.remember_many({"content": f"filler {i}", "user_id": "ana"} for i in range(s, min(n, s + 2000)))
    (vec,) = [p for p in path.parent.iterdir() if "-vectors-" in p.name]
    size = vec.stat().st_size
    assert size == n * DIM * 4
    reader = make(path)
    assert reader.recall("filler 3", user_id="ana", limit=1, touch=False).hits  # maps the file now
    new = mem.remember("the lighthouse keeper's green lantern", user_id="ana")
    assert vec.stat().st_size == size + size // 8  # room for the next appends
    with open(vec, "rb") as f:
        f.seek((n + 1) * DIM * 4)
        assert f.read() == bytes(size + size // 8 - (n + 1) * DIM * 4)  # the headroom is zeros
    for m in (reader, mem):
        hits = m.recall("the lighthouse keeper's green lantern", user_id="ana", limit=3, touch=False).hits
        assert hits[0].memory.id == new.id
        assert all(h.memory.content.startswith(("filler", "the lighthouse")) for h in hits)
    more = mem.remember("a second lantern, blue", user_id="ana")
    assert vec.stat().st_size == size + size // 8  # the map of the grown file covers it
    assert (
        reader.recall("a second lantern, blue", user_id="ana", limit=1, touch=False).hits[0].memory.id
        == more.id
    )
    reader.close()
    mem.close()
    assert _check_every_memory_is_searchable(path) == n + 2


def test_a_copied_database_builds_its_own_vector_file_and_leaves_the_original_alone(tmp_path: Path) -> None:
    # `cp a.db b.db` in the same folder copies the table's file names, not the files: the copy
    # must never write into, zero or unlink the original's vector file
    a_path = tmp_path / "a.db"
    a = make(a_path)
    kept = a.remember("we hiked up the volcano at dawn", user_id="ana").id
    a.remember("the quarterly tax deadline is in April", user_id="ana")
    a.close()
    (a_file,) = sorted(tmp_path.glob("a.db-vectors-*.f32"))
    before = a_file.read_bytes()
    b_path = tmp_path / "b.db"
    b_path.write_bytes(a_path.read_bytes())

    b = make(b_path)
    copied = ids(b.recall("volcano hike", user_id="ana", limit=1, touch=False))
    assert copied == [kept]  # found by meaning through a file of its own
    b.remember("my sister plays the cello", user_id="ana")
    b.purge(kept)
    b.close()

    assert a_file.exists() and a_file.read_bytes() == before
    assert sorted(tmp_path.glob("b.db-vectors-*.f32"))
    a = make(a_path)
    assert ids(a.recall("volcano hike", user_id="ana", limit=1, touch=False)) == [kept]
    a.close()


def _completeness_is_marked(target: str, sqlite_path: Path | None) -> None:
    from remnant.store import open_store
    from remnant.store.transfer import export_lines

    mem = make(target)
    first = [mem.remember(f"note {i} about the garden", user_id="ana") for i in range(3)]
    model = mem.retriever.embedder.model_id  # type: ignore[attr-defined]
    mem.close()
    store = open_store(target)  # as a new process would: the full check passes, the mark is kept
    assert store.vectors_complete("default", model)
    store.close()

    store = open_store(target)  # the next new process
    statements: list[str] = []
    if sqlite_path is not None:
        store.set_trace_callback(statements.append)  # type: ignore[attr-defined]
    assert store.vectors_complete("default", model)
    assert not any("COUNT(" in s.upper() for s in statements)  # no count of every memory
    assert not any('"vectors-complete' in line or "vectors-complete:" in line for line in export_lines(store))
    store.close()

    # a writer without an embedder adds a memory with no vector after the mark
    with Memory(target) as plain:
        late = plain.remember("we hiked up the volcano at dawn", user_id="ana")
    store = open_store(target)
    assert not store.vectors_complete("default", model)
    store.close()
    mem = make(target)  # the retriever embeds what lacks a vector, then finds it by meaning
    assert ids(mem.recall("volcano hike", user_id="ana", limit=5, touch=False))[0] == late.id
    mem.close()

    # the marked memory (the newest when the mark was made) and the one after it are purged: on
    # SQLite the next insert takes the marked rid again, so the mark must not vouch for it
    with Memory(target) as plain:
        plain.purge([late.id, first[-1].id])
        again = plain.remember("a second volcano trip", user_id="ana")  # no vector
    store = open_store(target)
    assert not store.vectors_complete("default", model)
    store.close()
    mem = make(target)
    assert ids(mem.recall("volcano trip", user_id="ana", limit=5, touch=False))[0] == again.id
    mem.close()


def test_a_fresh_process_checks_only_what_was_written_since_the_completeness_mark_sqlite(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mark.db"
    _completeness_is_marked(str(path), path)


def test_a_fresh_process_checks_only_what_was_written_since_the_completeness_mark_postgres(
    pg_url: str,
) -> None:
    _completeness_is_marked(pg_url, None)


def test_top_many_gives_each_query_what_top_gives_it() -> None:
    rng = np.random.default_rng(5)
    mat = Mapped(unit_rows(rng.standard_normal((3000, 64)).astype(np.float32)), None)
    queries = unit_rows(rng.standard_normal((70, 64)).astype(np.float32))
    for q, (slots, scores) in zip(queries, mat.top_many(queries, 30), strict=True):
        want_slots, want_scores = mat.top(q, 30)
        assert list(slots) == list(want_slots)
        assert np.allclose(scores, want_scores, atol=1e-5)
