"""The default `Store`: one SQLite file, WAL mode, readable by its owner only."""

from __future__ import annotations

import functools
import os
import secrets
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import AsyncIterator, Callable, Collection
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import platformdirs

from elicitkit.server._errors import RecordExistsError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, TERMINAL, Record, State
from elicitkit.server.store._pace import Pace

__all__ = ["SQLiteStore", "default_store_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    client_id TEXT NOT NULL,
    flow TEXT NOT NULL,
    message TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    details TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS once (key TEXT PRIMARY KEY, data BLOB NOT NULL, deadline REAL NOT NULL);
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, token TEXT NOT NULL, deadline REAL NOT NULL);
CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, n INTEGER NOT NULL, deadline REAL NOT NULL);
"""

# No index holds `state`: an index entry that holds a column the UPDATE sets is rewritten, one
# more page in the WAL per write (and so more checkpointing). `records_user_active` (what
# `count_active` reads) holds `active` instead, 1 while the record is pending or opened: a
# link's first visit (pending -> opened, the commonest write) changes only `state` and writes
# the row's page alone; only a change to or from a final state sets `active`. `sweep` finds
# expired records by `records_expiry` (expires_at never changes) and finished ones by a scan.
# Files of older versions get the column on open (`_add_active`) and lose the indexes on
# `state` they had.
_INDEXES = """
DROP INDEX IF EXISTS records_state_expiry;
DROP INDEX IF EXISTS records_user;
CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at);
CREATE INDEX IF NOT EXISTS records_user_active ON records (issuer, subject, active);
"""

_COLUMNS = "id, issuer, subject, client_id, flow, message, state, created_at, updated_at, expires_at, details"


def default_store_path() -> Path:
    """Where the store lives when the author does not say: the user's data directory."""
    return Path(platformdirs.user_data_dir("elicitkit", appauthor=False)) / "elicitkit.sqlite3"


# After every so many writes the store's checkpoint thread copies the WAL into the file and
# syncs (milliseconds of disk) beside the writes, which go on meanwhile. 512 writes are some
# 1,300 pages of WAL, near SQLite's own 1,000-page default.
_CHECKPOINT_EVERY = 512
# Frames (a page each: ~4 MiB) past which a checkpoint holds writers back to start the WAL over.
_WAL_CAP = 4096
# Every state change writes whole pages to the WAL (a table page and an index page), and each
# of them reaches the disk again at the checkpoint: with records of a few hundred bytes, 1 KiB
# pages write a quarter of what SQLite's default 4 KiB pages do, for the same rows.
_PAGE_SIZE = 1024
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
_KEYS_BATCH = 500  # blob keys one `blob_keys` statement reads
# Rows one sweep statement changes: what a live operation may wait for. 100 took some 5 ms under
# load, ten times a live flow's idle p99; 25 stay near a millisecond (docs/performance.md).
_SWEEP_BATCH = 25


class SQLiteStore:
    """A `Store` in a SQLite file (created with mode 0600, its folder 0700).

    Two connections per store, opened on first use, in autocommit mode (each statement is its
    own transaction, committed as it returns). A statement runs on the event loop when the
    file's write lock is free, which it is unless another process is writing: a statement takes
    tens of microseconds and, in WAL mode with `synchronous=NORMAL`, writes only to the OS page
    cache (no fsync), less than the hand-off to a thread and back. If the lock is taken it does
    not wait there: it runs on a worker thread (anyio's), on the store's second connection,
    which waits for the lock up to the busy timeout (5 s). Every state change is one
    conditional UPDATE, so concurrent completions cannot both win; and each operation runs
    alone (its statement, fetched to the end and so committed, under one lock, or with no await
    at all when no one holds that lock), so one task's commit never lands in the middle of
    another task's statement. Each operation still gives the event loop one turn before its
    statement, as every `await` is expected to: a task that runs operations back to back does
    not hold the loop from the others (the sweep among them).

    The WAL checkpoint, the one step that syncs to disk, runs on a thread of the store's own,
    every `_CHECKPOINT_EVERY` writes, beside them: no operation waits for it. That thread never
    calls into an event loop, and nothing else the store holds is a thread: a store that is
    never closed warns (`ResourceWarning`, like an unclosed file) when it is collected, and a
    process that exits without closing it exits at once and quietly; every write it
    acknowledged is committed in the WAL, which the next opening of the file reads.

    `clock` is the wall clock the store reads (seconds since the epoch): expiries, ttls, what
    a sweep finds overdue. A test advances its own instead of sleeping.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        timeout: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.clock = clock
        self.timeout = timeout
        """How long a statement waits for another process's write lock before it fails."""
        self._worker: sqlite3.Connection | None = None  # used on a worker thread, under `_turn`
        self._loop_db: sqlite3.Connection | None = None
        self._checkpoints: _Checkpoints | None = None
        self._unclosed: weakref.finalize[Any, Any] | None = None
        self._writes = 0
        self._turn = anyio.Lock(fast_acquire=True)  # no extra trip round the event loop when free

    async def _run(self, sql: str, params: Any, *, write: bool = True) -> list[Any]:
        """One statement with its rows, committed as it completes: on the event loop when the
        file's lock is free, else on a worker thread. SQLite's own errors leave as
        `StoreUnavailableError` (see `_failed`)."""
        try:
            rows = await self._statement(sql, params, write)
        except sqlite3.IntegrityError as exc:
            if sql.startswith("INSERT INTO records"):  # the one unique key written without ON CONFLICT
                raise RecordExistsError(params[0]) from exc
            raise self._failed(exc) from exc
        except (sqlite3.Error, OSError) as exc:
            raise self._failed(exc) from exc
        if write:
            self._writes += 1
            if self._writes % _CHECKPOINT_EVERY == 0 and self._checkpoints is not None:
                self._checkpoints.wake()
        return rows

    def _failed(self, exc: BaseException) -> StoreUnavailableError:
        """The sentence for an error of the file: locked past the timeout, a disk error, ..."""
        if "locked" in str(exc) or "busy" in str(exc):
            return StoreUnavailableError(
                f"The SQLite store {self.path} stayed locked by another process for over {self.timeout:g}s "
                f"({exc}); retry, and check what else writes to that file."
            )
        return StoreUnavailableError(
            f"The SQLite store {self.path} could not be used ({exc}); check the disk and the file's "
            "permissions, then retry."
        )

    async def _statement(self, sql: str, params: Any, write: bool) -> list[Any]:
        # The first write into a WAL started over syncs the WAL's new header: that write goes
        # to the worker thread, so that the event loop never waits for the disk.
        # A turn of the event loop first, even when the statement itself never awaits: a task
        # running operations back to back (a client's flows, a replay) would otherwise hold the
        # loop, and a paced sweep beside it got a batch in only when one of them happened to go
        # to the worker thread (a 100k sweep took 299 s instead of about 60). Before the
        # statement, so that a cancellation here leaves nothing done.
        await anyio.lowlevel.checkpoint()
        on_worker = write and self._checkpoints is not None and self._checkpoints.restarted()
        tried = False  # on the event loop's connection already, and refused (lock taken)
        if not on_worker and not self._turn.locked():  # no one's turn: no await until done
            tried = self._loop_db is not None
            rows = self._here(sql, params)
            if rows is not None:
                return rows
        async with self._turn:
            worker = self._worker if self._worker is not None else await self._open()
            rows = None if on_worker or tried else self._here(sql, params)
            if rows is not None:
                return rows
            # Not abandoned when cancelled: the connection is the thread's until it returns.
            return await anyio.to_thread.run_sync(_fetch, worker, sql, params)

    def _here(self, sql: str, params: Any) -> list[Any] | None:
        """The statement on the event loop's connection; None when it must run on the worker
        instead (the store is not open yet, or the file's write lock is taken)."""
        here = self._loop_db
        if here is None:
            return None
        try:
            return _fetch(here, sql, params)
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF not in _BUSY:
                raise
            # Nothing was done (an autocommit statement that fails rolls back): wait for the
            # lock on the worker thread instead of on the event loop.
            return None

    async def _open(self) -> sqlite3.Connection:
        worker, here = await anyio.to_thread.run_sync(_connect, self.path, self.timeout)
        self._worker, self._loop_db = worker, here
        self._checkpoints = _Checkpoints(self.path)
        self._unclosed = weakref.finalize(self, _never_closed, str(self.path), self._checkpoints)
        return worker

    async def create(self, record: Record, *, max_active: int | None = None) -> bool:
        """Insert `record`; False, with nothing written, when its user has `max_active` open already
        (`RecordStore.create`)."""
        if max_active is None:
            await self._run(
                f"INSERT INTO records ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",  # noqa: S608
                record.row(),
            )
            return True
        # One statement: SQLite takes the file's write lock before it reads, so the count and
        # the insert are one step for every process using the file.
        rows = await self._run(
            f"INSERT INTO records ({_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "  # noqa: S608
            "WHERE (SELECT COUNT(*) FROM records WHERE issuer = ? AND subject = ? AND active = 1 "
            "AND state IN ('pending', 'opened') AND expires_at > ?) < ? RETURNING id",
            (*record.row(), record.user.issuer, record.user.subject, self.clock(), max_active),
        )
        return bool(rows)

    async def count_active(self, user: User) -> int:
        """How many of `user`'s records are open and unexpired by the store's clock
        (`RecordStore.count_active`)."""
        rows = await self._run(
            "SELECT COUNT(*) FROM records WHERE issuer = ? AND subject = ? AND active = 1 "
            "AND state IN ('pending', 'opened') AND expires_at > ?",
            (user.issuer, user.subject, self.clock()),
            write=False,
        )
        return int(rows[0][0])

    async def get(self, elicitation_id: str) -> Record | None:
        """The record as it stands by the store's clock (expired when past its expiry), or None
        (`RecordStore.get`)."""
        rows = await self._run(
            f"SELECT {_COLUMNS} FROM records WHERE id = ?",  # noqa: S608
            (elicitation_id,),
            write=False,
        )
        return Record.from_row(rows[0]).effective(self.clock()) if rows else None

    async def transition(
        self, elicitation_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        """Move the record to `to` if its state, expiry and user allow it, in one atomic step; None otherwise
        (`RecordStore.transition`)."""
        states = list(from_states)
        if not states:
            return None
        now = self.clock()
        params: list[Any] = [to, now, elicitation_id, *states]
        if to != "expired":
            params.append(now)
        if user is not None:
            params += [user.issuer, user.subject]
        # `active` is set only when it may change (see `_INDEXES`): not from pending to opened.
        to_active = to in ACTIVE
        active = None if all((state in ACTIVE) == to_active for state in states) else to_active
        sql = _transition_sql(len(states), to != "expired", user is not None, active)
        rows = await self._run(sql, params)
        return Record.from_row(rows[0]) if rows else None

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        """Expire overdue records and drop those finished `keep_for` seconds ago; how many changed
        (`RecordStore.sweep`)."""
        try:
            return await self._sweep(self.clock() if now is None else now, keep_for)
        except (sqlite3.Error, OSError) as exc:
            raise self._failed(exc) from exc

    async def _sweep(self, now: float, keep_for: float) -> int:
        """In batches of `_SWEEP_BATCH` rows, each its own statement, so live operations take
        their turn between batches instead of waiting behind one long write (100k overdue records
        in one UPDATE held the file for seconds). Each pass walks its index once, from where the
        last batch stopped, and takes its turns by time (`Pace`: a statement on the loop's own
        connection never yields, so the batches would otherwise hold the loop); each UPDATE or
        DELETE checks its row again, so a record that a live transition finished in between is
        left as that transition left it."""
        active, terminal = sorted(ACTIVE), sorted(TERMINAL)
        changed = 0
        pace = Pace()
        after: tuple[float, int] = (float("-inf"), 0)  # (expires_at, rowid) of the last row seen
        while True:
            rows = await self._run(
                "SELECT expires_at, rowid FROM records WHERE expires_at <= ? "
                "AND (expires_at, rowid) > (?, ?) ORDER BY expires_at, rowid LIMIT ?",
                (now, *after, _SWEEP_BATCH),
                write=False,
            )
            if not rows:
                break
            after = (rows[-1][0], rows[-1][1])
            marks = ",".join("?" * len(rows))
            done = await self._run(
                f"UPDATE records SET state = 'expired', updated_at = ?, active = 0 WHERE rowid IN ({marks}) "  # noqa: S608
                "AND state IN (?, ?) AND expires_at <= ? RETURNING 1",
                (now, *(row[1] for row in rows), *active, now),
            )
            changed += len(done)
            await pace.turn()
        last = 0  # the rowid of the last row seen
        while True:
            rows = await self._run(
                "SELECT rowid FROM records WHERE rowid > ? AND active = 0 AND updated_at < ? "
                "ORDER BY rowid LIMIT ?",
                (last, now - keep_for, _SWEEP_BATCH),
                write=False,
            )
            if not rows:
                break
            last = rows[-1][0]
            marks = ",".join("?" * len(rows))
            done = await self._run(
                f"DELETE FROM records WHERE rowid IN ({marks}) AND state IN (?, ?, ?, ?) "  # noqa: S608
                "AND updated_at < ? RETURNING 1",
                (*(row[0] for row in rows), *terminal, now - keep_for),
            )
            changed += len(done)
            await pace.turn()
        for table in ("once", "claims", "counters"):
            await self._run(f"DELETE FROM {table} WHERE deadline <= ?", (now,))  # noqa: S608
        return changed

    async def increment(self, key: str, *, ttl: float) -> int:
        """Add one to the counter `key` and return its value; unchanged for `ttl` seconds, it starts again
        (`CounterStore.increment`)."""
        now = self.clock()
        rows = await self._run(
            "INSERT INTO counters (key, n, deadline) VALUES (?, 1, ?) ON CONFLICT (key) DO UPDATE "
            "SET n = CASE WHEN counters.deadline > ? THEN counters.n + 1 ELSE 1 END, "
            "deadline = excluded.deadline RETURNING n",
            (key, now + ttl, now),
        )
        return int(rows[0][0])

    async def put_blob(self, key: str, data: bytes) -> None:
        """Keep the sealed `data` under `key`, replacing what was there (`BlobStore.put_blob`)."""
        await self._run("INSERT OR REPLACE INTO blobs (key, data) VALUES (?, ?)", (key, bytes(data)))

    async def get_blob(self, key: str) -> bytes | None:
        """The blob under `key`, or None (`BlobStore.get_blob`)."""
        rows = await self._run("SELECT data FROM blobs WHERE key = ?", (key,), write=False)
        return bytes(rows[0][0]) if rows else None

    async def delete_blob(self, key: str) -> None:
        """Delete the blob under `key`; nothing happens when there is none (`BlobStore.delete_blob`)."""
        await self._run("DELETE FROM blobs WHERE key = ?", (key,))

    async def blob_keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every blob key that starts with `prefix`, read in bounded batches (`BlobStore.blob_keys`)."""
        after, since = prefix, ">="
        while True:  # by key order from where the last batch stopped: one index walk in all
            rows = await self._run(
                f"SELECT key FROM blobs WHERE key {since} ? AND substr(key, 1, ?) = ? ORDER BY key LIMIT ?",  # noqa: S608
                (after, len(prefix), prefix, _KEYS_BATCH),
                write=False,
            )
            for (key,) in rows:
                yield key
            if len(rows) < _KEYS_BATCH:
                return
            after, since = rows[-1][0], ">"

    async def replace_blob(self, key: str, old: bytes, new: bytes) -> bool:
        """Put `new` under `key` only if it still holds `old`, atomically; False otherwise
        (`BlobStore.replace_blob`)."""
        rows = await self._run(
            "UPDATE blobs SET data = ? WHERE key = ? AND data = ? RETURNING key",
            (bytes(new), key, bytes(old)),
        )
        return bool(rows)

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        """Keep `data` under `key` for `ttl` seconds, for one `take_once` (`OnceStore.put_once`)."""
        await self._run(
            "INSERT OR REPLACE INTO once (key, data, deadline) VALUES (?, ?, ?)",
            (key, bytes(data), self.clock() + ttl),
        )

    async def take_once(self, key: str) -> bytes | None:
        """Return and delete the value under `key`; None when unknown, taken or past its ttl
        (`OnceStore.take_once`)."""
        rows = await self._run(
            "DELETE FROM once WHERE key = ? AND deadline > ? RETURNING data", (key, self.clock())
        )
        return bytes(rows[0][0]) if rows else None

    async def claim(self, key: str, *, ttl: float) -> str | None:
        """Take the lock `key` for `ttl` seconds: a holder token, or None when another holds it
        (`LockStore.claim`)."""
        # One statement: the write lock SQLite takes for it makes check-and-take atomic across
        # every process using the file; an expired claim is overwritten, a live one left alone.
        token, now = secrets.token_hex(16), self.clock()
        rows = await self._run(
            "INSERT INTO claims (key, token, deadline) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET token = excluded.token, deadline = excluded.deadline "
            "WHERE claims.deadline <= ? RETURNING token",
            (key, token, now + ttl, now),
        )
        return token if rows else None

    async def release(self, key: str, token: str) -> None:
        """Free the lock `key` if `token` still holds it (`LockStore.release`)."""
        await self._run("DELETE FROM claims WHERE key = ? AND token = ?", (key, token))

    async def close(self) -> None:
        """Close the database connections and stop the checkpoint thread; call it once, at shutdown."""
        async with self._turn:  # not in the middle of another task's statement
            if self._unclosed is not None:
                self._unclosed.detach()
                self._unclosed = None
            if self._loop_db is not None:
                here, self._loop_db = self._loop_db, None
                here.close()  # not the file's last connection: closing it touches no disk
            if self._checkpoints is not None:
                checkpoints, self._checkpoints = self._checkpoints, None
                await anyio.to_thread.run_sync(checkpoints.stop)
            if self._worker is not None:
                worker, self._worker = self._worker, None
                # Off the loop: the file's last connection to close checkpoints the WAL and syncs.
                await anyio.to_thread.run_sync(worker.close)


def _fetch(db: sqlite3.Connection, sql: str, params: Any) -> list[Any]:
    cursor = db.execute(sql, params)
    try:
        return cursor.fetchall()
    finally:
        cursor.close()


def _connect(path: Path, timeout: float) -> tuple[sqlite3.Connection, sqlite3.Connection | None]:
    """Open the file (creating it and its schema): the worker's connection, which waits for the
    lock, and the event loop's, which never does (None if the file was busy at that moment).
    Runs on a worker thread."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Create the file owner-only before SQLite touches it; its -wal/-shm files copy this mode.
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)
    # Autocommit: each statement is its own transaction, committed as it completes.
    db = sqlite3.connect(path, timeout=max(0.0, timeout), isolation_level=None, check_same_thread=False)
    try:
        db.execute(f"PRAGMA page_size={_PAGE_SIZE}")  # a new file only; an old one keeps its own
        _switch_to_wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        # The checkpoint thread checkpoints; a commit never does (it would sync in the request).
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.executescript(_SCHEMA)
        _add_active(db)
        db.executescript(_INDEXES)
    except BaseException:
        db.close()
        raise
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.chmod(side, 0o600)
    # The event loop's connection: never waits for the lock (timeout 0) and never
    # checkpoints; the file is in WAL mode already, so opening it touches no disk.
    here = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    try:
        here.execute("PRAGMA synchronous=NORMAL")
        here.execute("PRAGMA wal_autocheckpoint=0")
    except sqlite3.OperationalError:  # busy at this moment: the worker thread does it all
        here.close()
        return db, None
    return db, here


class _Checkpoints:
    """The store's checkpoint thread. On each `wake()` it copies what the WAL holds into the file
    and syncs, on its own connection, while the store's writes go on: a PASSIVE checkpoint waits
    for no reader or writer. The next write starts the WAL over once all of it is in the file,
    which a pause in the writes allows; under writes that never pause, the WAL would grow
    without end, so past `_WAL_CAP` frames a RESTART checkpoint holds the writers back for the
    few frames the last pass left (a few milliseconds, once per some 1,500 writes at most).

    A daemon that never calls into an event loop: a process that exits with the store open
    neither waits for it nor hears from it; a checkpoint stopped in the middle is done again by
    the next one (the WAL is made for that)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._woken = threading.Event()
        self._stopping = False
        self._restarted = False
        self._thread = threading.Thread(
            target=self._serve, name=f"elicitkit checkpoints {path.name}", daemon=True
        )
        self._thread.start()

    def wake(self) -> None:
        self._woken.set()

    def restarted(self) -> bool:
        """Whether the WAL is all in the file since the last call, so that the next write
        starts it over (and syncs its header)."""
        restarted, self._restarted = self._restarted, False
        return restarted

    def stop(self, *, wait: bool = True) -> None:
        """Stop the thread; `wait`: for it to end (a checkpoint under way finishes first)."""
        self._stopping = True
        self._woken.set()
        if wait:
            self._thread.join()

    def _serve(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while True:
                self._woken.wait()
                self._woken.clear()
                if self._stopping:
                    return
                try:
                    if db is None:
                        # RESTART's wait for the write lock and then, holding it, for readers.
                        db = sqlite3.connect(self._path, timeout=0.1, isolation_level=None)
                        db.execute("PRAGMA synchronous=NORMAL")
                    self._restarted = self._checkpoint(db)
                except sqlite3.Error:
                    pass  # busy (another process checkpoints) or the disk: the next wake tries again
        finally:
            if db is not None:
                db.close()

    @staticmethod
    def _checkpoint(db: sqlite3.Connection) -> bool:
        """One checkpoint; whether the WAL is all in the file now (the next write starts it over)."""
        _, frames, _ = _fetch(db, "PRAGMA wal_checkpoint(PASSIVE)", ())[0]
        # Again, for what was written meanwhile: if nothing was, the WAL is all in the file; if
        # it is long, what RESTART copies while it holds the writers back is a few pages.
        _, now, done = _fetch(db, "PRAGMA wal_checkpoint(PASSIVE)", ())[0]
        if now >= _WAL_CAP:
            busy, _, _ = _fetch(db, "PRAGMA wal_checkpoint(RESTART)", ())[0]
            return not busy
        return bool(now == frames == done)


def _never_closed(path: str, checkpoints: _Checkpoints) -> None:
    """A store collected (or still open at exit) without `close()`: say so, as an unclosed
    file does, and let its checkpoint thread go; its connections close as they are collected."""
    checkpoints.stop(wait=False)
    warnings.warn(
        f"The SQLite store {path} was never closed; call `await store.close()` when done with it.",
        ResourceWarning,
        stacklevel=1,  # no caller to point at: the collector or the exit called this
    )


@functools.lru_cache(maxsize=64)
def _transition_sql(states: int, unexpired: bool, owned: bool, active: bool | None) -> str:
    """The conditional UPDATE of `transition`: a handful of shapes, each built once (bounded);
    `active`: the value the column takes, None to leave it (and its index entry) alone."""
    marks = ", ".join("?" * states)
    sets = "state = ?, updated_at = ?" + ("" if active is None else f", active = {int(active)}")
    sql = f"UPDATE records SET {sets} WHERE id = ? AND state IN ({marks})"  # noqa: S608
    if unexpired:
        sql += " AND expires_at > ?"
    if owned:
        sql += " AND issuer = ? AND subject = ?"
    return f"{sql} RETURNING {_COLUMNS}"


def _add_active(db: sqlite3.Connection) -> None:
    """Give a file made before the `active` column that column, set from each record's state.

    Under the write lock, checked again there: several processes may open an old file at once.
    """
    if "active" in _columns(db):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if "active" not in _columns(db):
            db.execute("ALTER TABLE records ADD COLUMN active INTEGER NOT NULL DEFAULT 1")
            db.execute("UPDATE records SET active = 0 WHERE state NOT IN (?, ?)", sorted(ACTIVE))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _columns(db: sqlite3.Connection) -> set[str]:
    return {row[1] for row in _fetch(db, "PRAGMA table_info(records)", ())}


def _switch_to_wal(db: sqlite3.Connection, within: float = 5.0) -> None:
    """Put the file in WAL mode, waiting while another worker opening it at the same moment does.

    SQLite answers "database is locked" at once here, without its busy timeout, when several
    processes open a new file together (several replicas or workers on one file).
    """
    deadline = time.monotonic() + within
    pause = 0.01
    while True:
        try:
            _fetch(db, "PRAGMA journal_mode=WAL", ())
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)
