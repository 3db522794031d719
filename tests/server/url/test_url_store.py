"""The Store contract, run against every backend (a Redis backend joins the parametrization)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.clock import Clock

from elicitkit.server._errors import RecordExistsError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, MemoryStore, Record, Store
from elicitkit.server.store._sqlite import SQLiteStore

ALICE = User("https://as.example", "alice")
BOB = User("https://as.example", "bob")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    backend: Store = (
        MemoryStore(clock=clock)
        if request.param == "memory"
        else SQLiteStore(tmp_path / "s.sqlite3", clock=clock)
    )
    yield backend
    await backend.close()


def _record(user: User = ALICE, ttl: float = 60.0) -> Record:
    return Record.new(user, "client-1", "weather-key", "Your weather API key", ttl=ttl, details={"d": 1})


async def test_create_and_get_round_trip(store: Store) -> None:
    record = _record()
    await store.create(record)
    got = await store.get(record.id)
    assert got == record
    assert got is not None and got.state == "pending" and got.user == ALICE and got.details == {"d": 1}
    assert await store.get("no-such-id") is None


def test_a_record_read_back_from_its_row_is_the_record_it_was() -> None:
    """`Record.from_row` (how the SQL backends read a record back) gives a record
    indistinguishable from the one written, and as frozen."""
    import dataclasses

    record = _record()
    back = Record.from_row(record.row())
    assert back == record and hash(back.user) == hash(record.user) and repr(back) == repr(record)
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.state = "completed"  # type: ignore[misc]


async def test_ids_are_long_and_random() -> None:
    ids = {_record().id for _ in range(200)}
    assert len(ids) == 200
    assert all(len(i) >= 32 for i in ids)  # 24 random bytes, base64url: 192 bits


async def test_duplicate_id_is_refused(store: Store) -> None:
    record = _record()
    await store.create(record)
    with pytest.raises(RecordExistsError):
        await store.create(record)


async def test_state_machine_transitions(store: Store) -> None:
    record = _record()
    await store.create(record)
    opened = await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    assert opened is not None and opened.state == "opened"
    # pending -> opened again does not apply: it is opened already
    assert await store.transition(record.id, from_states={"pending"}, to="opened") is None
    done = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert done is not None and done.state == "completed"
    # a terminal record does not move again: a second completion or a decline is refused
    assert await store.transition(record.id, from_states=ACTIVE, to="completed") is None
    assert await store.transition(record.id, from_states=ACTIVE, to="declined") is None
    final = await store.get(record.id)
    assert final is not None and final.state == "completed"


async def test_transition_bound_to_user(store: Store) -> None:
    record = _record()
    await store.create(record)
    assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=BOB) is None
    same_subject_other_issuer = User("https://evil.example", "alice")
    assert (
        await store.transition(record.id, from_states=ACTIVE, to="completed", user=same_subject_other_issuer)
        is None
    )
    unchanged = await store.get(record.id)
    assert unchanged is not None and unchanged.state == "pending"


async def test_concurrent_completions_only_one_wins(store: Store) -> None:
    record = _record()
    await store.create(record)
    results = await asyncio.gather(
        *(store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE) for _ in range(20))
    )
    assert sum(r is not None for r in results) == 1


async def test_expired_records_read_as_expired_and_cannot_complete(store: Store, clock: Clock) -> None:
    record = _record(ttl=0.05)
    await store.create(record)
    clock.advance(0.1)
    got = await store.get(record.id)
    assert got is not None and got.state == "expired"
    assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE) is None


async def test_sweep_expires_and_forgets(store: Store, clock: Clock) -> None:
    overdue, live, old_done = _record(ttl=0.01), _record(ttl=60), _record(ttl=60)
    for r in (overdue, live, old_done):
        await store.create(r)
    await store.transition(old_done.id, from_states=ACTIVE, to="completed")
    clock.advance(0.05)
    changed = await store.sweep()
    assert changed == 1
    got = await store.get(overdue.id)
    assert got is not None and got.state == "expired"
    # later, finished records past the keep window are dropped; active ones stay
    changed = await store.sweep(now=clock() + 10, keep_for=1)
    assert changed == 2
    assert await store.get(overdue.id) is None and await store.get(old_done.id) is None
    assert await store.get(live.id) is not None


async def test_blobs(store: Store) -> None:
    assert await store.get_blob("k") is None
    await store.put_blob("k", b"\x00sealed")
    await store.put_blob("k", b"\x01sealed")
    assert await store.get_blob("k") == b"\x01sealed"
    await store.delete_blob("k")
    assert await store.get_blob("k") is None


async def test_single_use_values(store: Store, clock: Clock) -> None:
    await store.put_once("state-1", b"v", ttl=60)
    assert await store.take_once("state-1") == b"v"
    assert await store.take_once("state-1") is None  # single use
    await store.put_once("state-2", b"v", ttl=0.01)
    clock.advance(0.05)
    assert await store.take_once("state-2") is None  # short-lived
    assert await store.take_once("never") is None


async def test_sqlite_file_is_owner_only_and_durable(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "store.sqlite3"
    first = SQLiteStore(path)
    record = _record()
    await first.create(record)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            assert stat.S_IMODE(os.stat(side).st_mode) & 0o077 == 0
    await first.close()
    second = SQLiteStore(path)
    assert await second.get(record.id) == record
    await second.close()


async def test_sqlite_uses_wal(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "w.sqlite3")
    await store.create(_record())
    await store.close()
    other = sqlite3.connect(tmp_path / "w.sqlite3")  # WAL is a property of the file
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        other.close()


async def test_sqlite_waits_for_another_writer_off_the_event_loop(tmp_path: Path) -> None:
    """While another process holds the file's write lock, an operation neither fails nor blocks
    the event loop: it waits on the worker thread and goes through once the lock is free."""
    path = tmp_path / "busy.sqlite3"
    store = SQLiteStore(path)
    first = _record()
    await store.create(first)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the write lock, as another replica mid-write holds it
    second = _record()
    creating = asyncio.create_task(store.create(second))
    ticks = 0
    while ticks < 20:  # the loop keeps turning meanwhile
        await asyncio.sleep(0.01)
        ticks += 1
    assert not creating.done()
    other.execute("COMMIT")
    other.close()
    await asyncio.wait_for(creating, 10)
    assert await store.get(first.id) == first
    assert await store.get(second.id) == second
    await store.close()


async def test_sqlite_operation_waits_for_the_turn_another_holds(tmp_path: Path) -> None:
    """A statement runs at once on the event loop only when no operation holds the store's turn:
    while a write waits on the worker for another process's lock, a read that could run on the
    loop (WAL) waits behind it, so it does not run ahead of the write and sees what it wrote."""
    path = tmp_path / "turn.sqlite3"
    store = SQLiteStore(path)
    record = _record()
    await store.create(record)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another replica mid-write: the write goes to the worker
    writing = asyncio.create_task(
        store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    )
    await asyncio.sleep(0.05)
    reading = asyncio.create_task(store.get(record.id))
    await asyncio.sleep(0.05)
    assert not reading.done() and not writing.done()
    other.execute("COMMIT")
    other.close()
    opened = await asyncio.wait_for(writing, 10)
    assert opened is not None and opened.state == "opened"
    assert await asyncio.wait_for(reading, 10) == opened
    await store.close()


async def test_sqlite_wal_stays_bounded_under_many_writes(tmp_path: Path) -> None:
    """No write checkpoints; the store's checkpoint thread does, beside them, so the WAL file does
    not grow with the number of writes (9,000 writes would leave it near 28 MB otherwise; it
    stays near 5, the ~4 MiB past which the WAL is started over, and what a busy machine lets
    the writes add before the thread gets its turn)."""
    path = tmp_path / "wal.sqlite3"
    store = SQLiteStore(path)
    for _ in range(3000):
        record = _record()
        await store.create(record)
        assert await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
        assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    wal = path.with_name(path.name + "-wal").stat().st_size
    assert wal < 16 * 1024 * 1024, wal
    await store.close()


async def test_sqlite_opening_a_link_writes_the_row_page_alone(tmp_path: Path) -> None:
    """pending -> opened (every link's first visit) changes `state`, which no index holds, so
    each write adds one page to the WAL, the row's; and a new file's pages are 1 KiB (a quarter
    of SQLite's default), so that is about 1 KiB."""
    path = tmp_path / "pages.sqlite3"
    store = SQLiteStore(path)
    records = [_record() for _ in range(200)]
    for record in records:
        await store.create(record)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # an empty WAL: what follows is the opens alone
    page = other.execute("PRAGMA page_size").fetchone()[0]
    other.close()
    assert page == 1024
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size == 0
    for record in records:
        assert await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    frames = (wal.stat().st_size - 32) / (page + 24)  # the WAL header, then a header per frame
    assert frames <= 1.2 * len(records), frames
    assert await store.count_active(ALICE) == len(records)
    await store.close()


async def test_sqlite_active_flag_follows_every_kind_of_change(tmp_path: Path) -> None:
    """The `active` flag `count_active` reads is set by a change that may flip it: into a final
    state from any mix of states, back out of one, and by the sweep."""
    path = tmp_path / "active.sqlite3"
    clock = Clock()
    store = SQLiteStore(path, clock=clock)
    first, second, third = _record(), _record(), _record(ttl=0.2)
    for record in (first, second, third):
        await store.create(record)

    def flags() -> list[int]:
        with sqlite3.connect(path) as db:
            ids = (first.id, second.id, third.id)
            return [db.execute("SELECT active FROM records WHERE id = ?", (i,)).fetchone()[0] for i in ids]

    assert await store.transition(first.id, from_states={"pending"}, to="opened", user=ALICE)
    assert flags() == [1, 1, 1] and await store.count_active(ALICE) == 3
    assert await store.transition(first.id, from_states={"opened", "completed"}, to="declined", user=ALICE)
    assert flags() == [0, 1, 1] and await store.count_active(ALICE) == 2
    assert await store.transition(first.id, from_states={"declined"}, to="opened")
    assert flags() == [1, 1, 1] and await store.count_active(ALICE) == 3
    assert await store.transition(second.id, from_states={"declined"}, to="opened") is None
    clock.advance(0.3)
    assert await store.sweep() == 1  # `third` ran out
    assert flags() == [1, 1, 0] and await store.count_active(ALICE) == 2
    await store.close()


_SCHEMA_BEFORE_ACTIVE = """
CREATE TABLE records (
    id TEXT PRIMARY KEY, issuer TEXT NOT NULL, subject TEXT NOT NULL, client_id TEXT NOT NULL,
    flow TEXT NOT NULL, message TEXT NOT NULL, state TEXT NOT NULL, created_at REAL NOT NULL,
    updated_at REAL NOT NULL, expires_at REAL NOT NULL, details TEXT NOT NULL
);
CREATE INDEX records_state_expiry ON records (state, expires_at);
CREATE INDEX records_user ON records (issuer, subject, state);
"""


async def test_sqlite_file_of_an_older_version_gets_the_active_column(tmp_path: Path) -> None:
    """A file made before the `active` column (and with the indexes on `state` older versions
    made) opens with its records, each flagged by its state; the old indexes are dropped."""
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(_SCHEMA_BEFORE_ACTIVE)
    pending, opened, done = _record(), _record(), _record()
    for record, state in ((pending, "pending"), (opened, "opened"), (done, "completed")):
        row = list(record.row())
        row[6] = state
        old.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    old.close()
    stores = [SQLiteStore(path) for _ in range(3)]  # several processes opening it at once
    assert await asyncio.gather(*(store.count_active(ALICE) for store in stores)) == [2, 2, 2]
    reopened = stores[0]
    assert await reopened.get(pending.id) == pending
    assert await reopened.transition(pending.id, from_states={"pending"}, to="completed", user=ALICE)
    assert await reopened.count_active(ALICE) == 1
    for store in stores:
        await store.close()
    indexes = sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    names = {row[0] for row in indexes}
    assert not names & {"records_state_expiry", "records_user"}
    assert {"records_expiry", "records_user_active"} <= names


async def test_sqlite_a_file_with_4_kib_pages_keeps_them(tmp_path: Path) -> None:
    """A file made with SQLite's default 4 KiB pages (by an older version) works as before."""
    old_path = tmp_path / "big.sqlite3"
    old = sqlite3.connect(old_path, isolation_level=None)
    old.execute("PRAGMA page_size=4096")
    old.execute("PRAGMA journal_mode=WAL")
    old.close()
    reopened = SQLiteStore(old_path)
    kept = _record()
    await reopened.create(kept)
    assert await reopened.transition(kept.id, from_states={"pending"}, to="opened", user=ALICE)
    await reopened.close()
    assert sqlite3.connect(old_path).execute("PRAGMA page_size").fetchone()[0] == 4096


def test_default_path_is_per_user_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert SQLiteStore().path == tmp_path / "elicitkit" / "elicitkit.sqlite3"


def test_a_crashed_process_with_an_open_store_still_exits(tmp_path: Path) -> None:
    """A server that dies without closing its SQLite store must exit (and be restarted), not hang
    on a thread of the store's; what it committed is still there."""
    crash = (
        "import asyncio, sys\n"
        "from elicitkit.server.store._sqlite import SQLiteStore\n"
        "from elicitkit.server._user import User\n"
        "from elicitkit.server.store import Record\n"
        "async def main():\n"
        "    store = SQLiteStore(sys.argv[1])\n"
        "    record = Record.new(User('https://as.example', 'alice'), 'c', 'f', 'm', ttl=60)\n"
        "    await store.create(record)\n"
        "    print(record.id, flush=True)\n"
        "    raise RuntimeError('the server crashed')\n"
        "asyncio.run(main())\n"
    )
    path = tmp_path / "crash.sqlite3"
    ran = subprocess.run(
        [sys.executable, "-c", crash, str(path)], capture_output=True, text=True, timeout=30, check=False
    )
    assert ran.returncode == 1 and "the server crashed" in ran.stderr
    elicitation_id = ran.stdout.strip()

    async def committed() -> Record | None:
        store = SQLiteStore(path)
        try:
            return await store.get(elicitation_id)
        finally:
            await store.close()

    found = asyncio.run(committed())
    assert found is not None and found.user.subject == "alice"


async def test_stores_opening_one_new_file_at_once_all_start(tmp_path: Path) -> None:
    """Several workers starting on one new SQLite file at the same moment all open it: switching
    the file to WAL waits its turn instead of failing with "database is locked"."""
    for attempt in range(40):
        stores = [SQLiteStore(tmp_path / f"fresh-{attempt}.sqlite3") for _ in range(4)]
        try:
            assert await asyncio.gather(*(store.get("nothing") for store in stores)) == [None] * 4
        finally:
            for store in stores:
                await store.close()


async def test_a_memory_store_shows_its_records_read_only() -> None:
    """What a test of a server's tools looks at: every record by id, as it stands, and no way to
    change one but through the store."""
    store = MemoryStore()
    assert store.records == {}
    record = _record()
    await store.create(record)
    opened = await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    assert store.records == {record.id: opened}
    with pytest.raises(TypeError):
        store.records[record.id] = record  # type: ignore[index]
