"""A `Store` in PostgreSQL (asyncpg), shared by every replica of a server.

Every state change is one conditional UPDATE, so two replicas racing on one record cannot both
win. A change to a final state sends `NOTIFY` on the completions channel from the same
statement: PostgreSQL delivers notifications only when their transaction commits, so the
announcement can neither precede the durable write nor be lost between the write and a
separate publish. Each write that a second run would change again (a create, a transition,
`increment`, `take_once`, `replace_blob`) carries a random operation token, written in the same
statement (on the record, or in the `<prefix>ops` table, whose primary key lets one token apply
once), so a write retried after a lost reply is recognised and answered as it was, instead of
failing ("already exists", "already taken") or applying twice. When the retries run out after a
write may have reached PostgreSQL, the call raises `StoreOutcomeUnknownError`, never the
"nothing was written" of `StoreUnavailableError`.

The schema is created, and migrated forward, on first use under an advisory lock, so replicas
starting together do not race; see docs/deployment.md for the tables and the privileges needed.
Sweeping works in small batches with `FOR UPDATE SKIP LOCKED`, so it never waits on (or makes
wait) a record a browser is completing at that moment.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from elicitkit.errors import ConfigurationError
from elicitkit.extras import needs
from elicitkit.server._errors import RecordExistsError, StoreOutcomeUnknownError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import TERMINAL, Record, State
from elicitkit.server.store._pace import Pace

if TYPE_CHECKING:
    import asyncpg
    from asyncpg.pool import PoolConnectionProxy

    Connection = asyncpg.Connection | PoolConnectionProxy

__all__ = ["POSTGRES_CHANNEL", "SCHEMA_VERSION", "PostgresStore", "import_asyncpg"]

POSTGRES_CHANNEL = "elicitkit_completed"
"""The LISTEN/NOTIFY channel that carries "elicitation X reached a final state" (with the default
table prefix; a store notifies on `<prefix>completed`)."""

SCHEMA_VERSION = 4

T = TypeVar("T")

# Each migration takes the schema from version n-1 to n; `{p}` is the table prefix.
_MIGRATIONS: list[str] = [
    """
    CREATE TABLE IF NOT EXISTS {p}records (
        id text PRIMARY KEY,
        issuer text NOT NULL,
        subject text NOT NULL,
        client_id text NOT NULL,
        flow text NOT NULL,
        message text NOT NULL,
        state text NOT NULL,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        expires_at double precision NOT NULL,
        details jsonb NOT NULL,
        op text NOT NULL DEFAULT ''
    );
    CREATE INDEX IF NOT EXISTS {p}records_active_expiry ON {p}records (expires_at)
        WHERE state IN ('pending', 'opened');
    CREATE INDEX IF NOT EXISTS {p}records_finished_at ON {p}records (updated_at)
        WHERE state NOT IN ('pending', 'opened');
    CREATE TABLE IF NOT EXISTS {p}blobs (key text PRIMARY KEY, data bytea NOT NULL);
    CREATE TABLE IF NOT EXISTS {p}once (
        key text PRIMARY KEY, data bytea NOT NULL, deadline double precision NOT NULL
    );
    CREATE TABLE IF NOT EXISTS {p}claims (
        key text PRIMARY KEY, token text NOT NULL, deadline double precision NOT NULL
    );
    """,
    # 2: `count_active` (the per-user cap on pending elicitations) reads one user's active rows.
    """
    CREATE INDEX IF NOT EXISTS {p}records_user_active ON {p}records (issuer, subject)
        WHERE state IN ('pending', 'opened');
    """,
    # 3: `increment` (the rounds of a 2026-07-28 URL elicitation, counted where a client cannot
    # reset them).
    """
    CREATE TABLE IF NOT EXISTS {p}counters (
        key text PRIMARY KEY, n bigint NOT NULL, deadline double precision NOT NULL
    );
    """,
    # 4: the operations that `increment`, `take_once` and `replace_blob` applied, with what they
    # answered, kept a little longer than a call's retries: a retry after a lost reply finds
    # its own and answers the same, and the primary key lets one operation apply once only.
    """
    CREATE TABLE IF NOT EXISTS {p}ops (
        op text PRIMARY KEY, n bigint, data bytea, deadline double precision NOT NULL
    );
    """,
]

_COLUMNS = (
    "id, issuer, subject, client_id, flow, message, state, created_at, updated_at, expires_at, details::text"
)

# What NOTIFY carries (as `_postgres_bus.payload_for`): the id, or its SHA-256 if it is long, since
# a payload over 8000 bytes would fail the whole statement.
_PAYLOAD = (
    "CASE WHEN octet_length(moved.id) <= 512 AND moved.id NOT LIKE 'sha256:%' THEN moved.id "
    "ELSE 'sha256:' || encode(sha256(convert_to(moved.id, 'UTF8')), 'hex') END"
)

_SWEEP_BATCH = 200  # rows locked by one sweep statement: short transactions, no long lock holding
_KEYS_BATCH = 500  # blob keys one `blob_keys` statement reads
_ACQUIRE_TIMEOUT = 10.0  # seconds a caller waits for a free pooled connection
_RETRIES = 3  # a dropped connection is retried this many times, with backoff, before the error
_OPS_KEPT = 60.0  # seconds an operation's token outlives the call's own deadline (clock skew)


def _not_done(prefix: str, token: int) -> str:
    """The condition of a write logged in `<prefix>ops`: its operation (parameter `token`) is
    not there yet, so a retry after the first try committed applies nothing."""
    return f"NOT EXISTS (SELECT 1 FROM {prefix}ops WHERE op = ${token})"  # noqa: S608


def _who(user: User) -> str:
    """The user as a digest: the name of their advisory lock, with no personal data in it."""
    return hashlib.sha256(json.dumps([user.issuer, user.subject]).encode()).hexdigest()


class _Sent:
    """Whether some try of one write may have reached PostgreSQL: then a failure is no proof
    that nothing was written."""

    __slots__ = ("maybe",)

    def __init__(self) -> None:
        self.maybe = False


_abandoned: set[asyncio.Future[Any]] = set()


def _abandon(attempt: asyncio.Future[Any]) -> None:
    """Cancel a call past its deadline and let it finish on its own, its outcome dropped."""
    attempt.cancel()
    _abandoned.add(attempt)
    attempt.add_done_callback(_forget)


def _forget(attempt: asyncio.Future[Any]) -> None:
    _abandoned.discard(attempt)
    if not attempt.cancelled():
        attempt.exception()  # retrieved: no "never retrieved" warning


def import_asyncpg() -> Any:
    """asyncpg, imported only when a PostgreSQL backend is used (`MissingExtraError` without it)."""
    with needs("postgres"):
        import asyncpg
    return asyncpg


class PostgresStore:
    """A `Store` in PostgreSQL, for servers that run as several replicas.

    `dsn` is a `postgresql://user:password@host:port/database` URL (asyncpg's forms, including
    `?sslmode=verify-full&sslrootcert=...`); `pool_options` go to `asyncpg.create_pool`. The
    pool opens on first use and creates or migrates the tables (named `<prefix>records`, ...).
    With `announce` (the default) a transition to a final state notifies `<prefix>completed`
    (`completions_channel`) in the same statement; a `PostgresBus` given this store then leaves
    notifying to it. When PostgreSQL cannot be reached the operation raises
    `StoreUnavailableError`, after a few retries with backoff. `clock` is the wall clock the
    store reads (seconds since the epoch), not the database's: a test advances its own.
    """

    def __init__(
        self,
        dsn: str,
        *,
        prefix: str = "elicitkit_",
        announce: bool = True,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
        **pool_options: Any,
    ) -> None:
        if not prefix.replace("_", "").isalnum() or not prefix[0].isalpha():
            raise ConfigurationError(
                f"The PostgreSQL table prefix {prefix!r} must be letters, digits and underscores, "
                "starting with a letter (the default is 'elicitkit_')."
            )
        self.dsn = dsn
        self.clock = clock
        self.prefix = prefix
        self.completions_channel = f"{prefix}completed" if announce else None
        self.timeout = timeout
        """Each call's overall deadline (retries included): past it, `StoreUnavailableError`."""
        self._pool_options: dict[str, Any] = {"min_size": min_size, "max_size": max_size, **pool_options}
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()
        self._asyncpg = import_asyncpg()
        self._down: tuple[type[BaseException], ...] = (
            self._asyncpg.PostgresConnectionError,
            self._asyncpg.CannotConnectNowError,
            self._asyncpg.InterfaceError,
            self._asyncpg.AdminShutdownError,
            self._asyncpg.exceptions.CrashShutdownError,
            self._asyncpg.TooManyConnectionsError,
            self._asyncpg.exceptions.InternalClientError,  # "cannot switch to state" mid-restart
            self._asyncpg.exceptions.TransactionRollbackError,  # serialization failure, deadlock
            ConnectionError,
            TimeoutError,
            OSError,
        )

    # -- plumbing ------------------------------------------------------------------------

    async def pool(self) -> asyncpg.Pool:
        """The connection pool, opened (and the schema made current) on first use."""
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                pool = await self._asyncpg.create_pool(self.dsn, **self._pool_options)
                try:
                    async with pool.acquire() as conn:
                        await migrate(conn, self.prefix)
                except BaseException:
                    await pool.close()
                    raise
                self._pool = pool
        return self._pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        pool = await self.pool()
        async with pool.acquire(timeout=_ACQUIRE_TIMEOUT) as conn:  # a busy caller waits, not forever
            yield conn

    async def _run(self, work: Callable[[Connection], Awaitable[T]], *, writes: bool = False) -> T:
        """Run `work` on a pooled connection within `timeout`; retry a dropped connection, then
        say what happened: every error of the driver leaves here as `StoreUnavailableError`, or,
        for a write (`writes`) that may have reached PostgreSQL, `StoreOutcomeUnknownError`."""
        sent = _Sent()
        # A task, left behind at the deadline rather than awaited: asyncpg's clean-up of a
        # cancelled statement (resetting the connection) waits on the very server that hangs.
        attempt = asyncio.ensure_future(self._attempts(work, sent if writes else None))
        try:
            done, _ = await asyncio.wait((attempt,), timeout=self.timeout)
        except BaseException:
            _abandon(attempt)
            raise
        if not done:
            _abandon(attempt)
            if sent.maybe:
                raise StoreOutcomeUnknownError(
                    f"The PostgreSQL store at {self._where()} did not answer a change within "
                    f"{self.timeout:g}s (the store's timeout), so whether it was applied is unknown; "
                    "read back what it changed before doing it again."
                )
            raise StoreUnavailableError(
                f"The PostgreSQL store at {self._where()} did not answer within {self.timeout:g}s (the "
                "store's timeout). Retry: this store reconnects by itself, and a retried change never "
                "applies twice."
            )
        return attempt.result()

    async def _attempts(self, work: Callable[[Connection], Awaitable[T]], sent: _Sent | None) -> T:
        pause = 0.1
        for attempt in range(_RETRIES + 1):
            earlier = sent is not None and sent.maybe  # an earlier try of this change may have landed
            try:
                async with self._connection() as conn:
                    if sent is not None:
                        sent.maybe = True  # from here on, the change may reach PostgreSQL
                    return await work(conn)
            except self._down as exc:
                if attempt < _RETRIES:
                    await asyncio.sleep(pause)
                    pause *= 2
                    continue
                if sent is not None and sent.maybe:
                    raise self._unknown(exc) from exc
                raise StoreUnavailableError(
                    f"The PostgreSQL store at {self._where()} is unavailable "
                    f"({exc or type(exc).__name__}). Retry when PostgreSQL is back: this store "
                    "reconnects by itself, and a retried change never applies twice."
                ) from exc
            except (self._asyncpg.PostgresError, self._asyncpg.InterfaceError) as exc:
                # Refused: this try changed nothing, but an earlier one may have.
                raise (self._unknown(exc) if earlier else self._refused(exc)) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _unknown(self, exc: BaseException) -> StoreOutcomeUnknownError:
        return StoreOutcomeUnknownError(
            f"The PostgreSQL store at {self._where()} lost the connection after a change was sent "
            f"({exc or type(exc).__name__}) and could not reach it again, so whether it was applied "
            "is unknown; read back what it changed before doing it again."
        )

    def _refused(self, exc: BaseException) -> StoreUnavailableError:
        """The sentence for a statement PostgreSQL refused (nothing of it was applied)."""
        if isinstance(exc, self._asyncpg.InvalidAuthorizationSpecificationError):
            return StoreUnavailableError(
                f"PostgreSQL at {self._where()} refused the credentials ({exc}); check the user "
                "and password in the store URL."
            )
        if isinstance(exc, self._asyncpg.InsufficientPrivilegeError):
            return StoreUnavailableError(
                f"The PostgreSQL user may not do what the store needs ({exc}); grant the privileges "
                "listed in docs/deployment.md."
            )
        if isinstance(exc, self._asyncpg.ReadOnlySQLTransactionError):
            return StoreUnavailableError(
                f"PostgreSQL at {self._where()} is a read-only standby ({exc}); point the store URL "
                "at the primary (or add target_session_attrs=read-write)."
            )
        return StoreUnavailableError(
            f"PostgreSQL at {self._where()} refused a statement of the store ({exc}); check that "
            "the tables are elicitkit's own and the server is PostgreSQL 12 or later."
        )

    def _where(self) -> str:
        try:
            parts = urlsplit(self.dsn)
            return f"{parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path or ''}"
        except ValueError:
            return "the configured address"

    # -- records ---------------------------------------------------------------------------

    async def create(self, record: Record, *, max_active: int | None = None) -> bool:
        """Insert `record`; False, with nothing written, when its user has `max_active` open already
        (`RecordStore.create`)."""
        op = secrets.token_hex(8)
        if max_active is not None:
            return await self._run(
                lambda conn: self._create_capped(conn, record, op, max_active), writes=True
            )
        sql = (
            f"INSERT INTO {self.prefix}records (id, issuer, subject, client_id, flow, message, state, "  # noqa: S608
            "created_at, updated_at, expires_at, details, op) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12) "
            f"ON CONFLICT (id) DO UPDATE SET op = {self.prefix}records.op "
            f"WHERE {self.prefix}records.op = EXCLUDED.op RETURNING id"
        )
        args = (*record.row(), op)
        inserted = await self._run(lambda conn: conn.fetchval(sql, *args), writes=True)
        if inserted is None:  # another record has this id (not a retry of this very insert)
            raise RecordExistsError(record.id)
        return True

    async def _create_capped(self, conn: Connection, record: Record, op: str, max_active: int) -> bool:
        """Count and insert under a per-user advisory lock, in one transaction: READ COMMITTED
        takes each statement's snapshot after the lock is held, so every replica's creates of
        one user queue here and each counts the ones before it."""
        p, user = self.prefix, record.user
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"{p}user:{_who(user)}")
            found = await conn.fetchval(f"SELECT op FROM {p}records WHERE id = $1", record.id)  # noqa: S608
            if found is not None:
                if found == op:  # a retry of this very insert, after its reply was lost
                    return True
                raise RecordExistsError(record.id)
            count = await conn.fetchval(
                f"SELECT count(*) FROM {p}records WHERE issuer = $1 AND subject = $2 "  # noqa: S608
                "AND state IN ('pending', 'opened') AND expires_at > $3",
                user.issuer,
                user.subject,
                self.clock(),
            )
            if int(count or 0) >= max_active:
                return False
            await conn.execute(
                f"INSERT INTO {p}records (id, issuer, subject, client_id, flow, message, state, "  # noqa: S608
                "created_at, updated_at, expires_at, details, op) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12)",
                *record.row(),
                op,
            )
        return True

    async def count_active(self, user: User) -> int:
        """How many of `user`'s records are open and unexpired by the store's clock
        (`RecordStore.count_active`)."""
        sql = (
            f"SELECT count(*) FROM {self.prefix}records WHERE issuer = $1 AND subject = $2 "  # noqa: S608
            "AND state IN ('pending', 'opened') AND expires_at > $3"
        )
        count = await self._run(lambda conn: conn.fetchval(sql, user.issuer, user.subject, self.clock()))
        return int(count or 0)

    async def get(self, elicitation_id: str) -> Record | None:
        """The record as it stands by the store's clock (expired when past its expiry), or None
        (`RecordStore.get`)."""
        sql = f"SELECT {_COLUMNS} FROM {self.prefix}records WHERE id = $1"  # noqa: S608
        row = await self._run(lambda conn: conn.fetchrow(sql, elicitation_id))
        return None if row is None else Record.from_row(row).effective(self.clock())

    async def transition(
        self, elicitation_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        """Move the record to `to` if its state, expiry and user allow it, in one atomic step; None otherwise
        (`RecordStore.transition`)."""
        states = list(from_states)
        if not states:
            return None
        op, now = secrets.token_hex(8), self.clock()
        condition = (
            "state = ANY($4::text[]) AND (NOT $8::boolean OR expires_at > $2) "
            "AND (NOT $9::boolean OR (issuer = $5 AND subject = $6))"
        )
        # The same operation retried after a lost reply matches its own token and reads back.
        update = (
            f"UPDATE {self.prefix}records SET state = $1, updated_at = $2, op = $7 "  # noqa: S608
            f"WHERE id = $3 AND (op = $7 OR ({condition})) RETURNING {_COLUMNS}"
        )
        if self.completions_channel and to in TERMINAL:
            sql = f"WITH moved AS ({update}) SELECT moved.*, pg_notify($10, {_PAYLOAD}) FROM moved"  # noqa: S608
            extra: tuple[Any, ...] = (self.completions_channel,)
        else:
            sql, extra = update, ()
        args = (
            to,
            now,
            elicitation_id,
            states,
            user.issuer if user else "",
            user.subject if user else "",
            op,
            to != "expired",
            user is not None,
            *extra,
        )
        row = await self._run(lambda conn: conn.fetchrow(sql, *args), writes=True)
        return None if row is None else Record.from_row(row)

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        """Expire overdue records and drop those finished `keep_for` seconds ago; how many changed
        (`RecordStore.sweep`)."""
        now = self.clock() if now is None else now
        p = self.prefix
        expire = (
            f"WITH due AS (SELECT id FROM {p}records WHERE state IN ('pending', 'opened') "  # noqa: S608
            f"AND expires_at <= $1 ORDER BY expires_at LIMIT {_SWEEP_BATCH} FOR UPDATE SKIP LOCKED) "
            f"UPDATE {p}records AS r SET state = 'expired', updated_at = $1, op = '' FROM due "
            "WHERE r.id = due.id"
        )
        forget = (
            f"WITH old AS (SELECT id FROM {p}records WHERE state NOT IN ('pending', 'opened') "  # noqa: S608
            f"AND updated_at < $1 LIMIT {_SWEEP_BATCH} FOR UPDATE SKIP LOCKED) "
            f"DELETE FROM {p}records AS r USING old WHERE r.id = old.id"
        )
        changed = 0
        pace = Pace()  # by time as well: a live statement waits on a row lock for one batch at most
        for sql, at in ((expire, now), (forget, now - keep_for)):
            while True:
                status = await self._run(lambda conn, sql=sql, at=at: conn.execute(sql, at), writes=True)  # type: ignore[misc]
                count = int(str(status).rsplit(" ", 1)[-1])
                changed += count
                if count < _SWEEP_BATCH:
                    break
                await pace.turn()
        for table in ("once", "claims", "counters", "ops"):
            sql = f"DELETE FROM {p}{table} WHERE deadline <= $1"  # noqa: S608
            await self._run(lambda conn, sql=sql: conn.execute(sql, now), writes=True)  # type: ignore[misc]
        return changed

    # -- blobs, single-use values, locks ---------------------------------------------------

    async def increment(self, key: str, *, ttl: float) -> int:
        """Add one to the counter `key` and return its value; unchanged for `ttl` seconds, it starts again
        (`CounterStore.increment`)."""
        p, now = self.prefix, self.clock()
        bump = (
            f"INSERT INTO {p}counters AS c (key, n, deadline) SELECT $1, 1, $2 WHERE {_not_done(p, 4)} "
            "ON CONFLICT (key) DO UPDATE SET n = CASE WHEN c.deadline > $3 THEN c.n + 1 ELSE 1 END, "
            "deadline = EXCLUDED.deadline RETURNING n"
        )
        sql = (
            f"WITH done AS ({bump}), "  # noqa: S608
            f"logged AS (INSERT INTO {p}ops (op, n, deadline) SELECT $4, n, $5 FROM done) "
            f"SELECT coalesce((SELECT n FROM done), (SELECT n FROM {p}ops WHERE op = $4))"
        )
        count = await self._once(sql, (key, now + ttl, now), "n")
        return int(count)

    async def put_blob(self, key: str, data: bytes) -> None:
        """Keep the sealed `data` under `key`, replacing what was there (`BlobStore.put_blob`)."""
        sql = (
            f"INSERT INTO {self.prefix}blobs (key, data) VALUES ($1, $2) "  # noqa: S608
            "ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data"
        )
        await self._run(lambda conn: conn.execute(sql, key, bytes(data)))

    async def get_blob(self, key: str) -> bytes | None:
        """The blob under `key`, or None (`BlobStore.get_blob`)."""
        sql = f"SELECT data FROM {self.prefix}blobs WHERE key = $1"  # noqa: S608
        value = await self._run(lambda conn: conn.fetchval(sql, key))
        return None if value is None else bytes(value)

    async def delete_blob(self, key: str) -> None:
        """Delete the blob under `key`; nothing happens when there is none (`BlobStore.delete_blob`)."""
        sql = f"DELETE FROM {self.prefix}blobs WHERE key = $1"  # noqa: S608
        await self._run(lambda conn: conn.execute(sql, key))

    async def blob_keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every blob key that starts with `prefix`, read in bounded batches (`BlobStore.blob_keys`)."""
        table = f"{self.prefix}blobs"
        after, since = prefix, ">="
        while True:  # each batch its own call (and deadline), from where the last one stopped
            sql = (
                f"SELECT key FROM {table} WHERE key {since} $1 AND starts_with(key, $2) "  # noqa: S608
                "ORDER BY key LIMIT $3"
            )
            rows: list[Any] = await self._run(functools.partial(_keys_after, sql, after, prefix))
            for row in rows:
                yield row[0]
            if len(rows) < _KEYS_BATCH:
                return
            after, since = rows[-1][0], ">"

    async def replace_blob(self, key: str, old: bytes, new: bytes) -> bool:
        """Put `new` under `key` only if it still holds `old`, atomically; False otherwise
        (`BlobStore.replace_blob`)."""
        p = self.prefix
        sql = (
            f"WITH done AS (UPDATE {p}blobs SET data = $3 WHERE key = $1 AND data = $2 AND {_not_done(p, 4)} "  # noqa: S608
            "RETURNING 1 AS n), "
            f"logged AS (INSERT INTO {p}ops (op, n, deadline) SELECT $4, (SELECT count(*) FROM done), $5 "
            f"WHERE {_not_done(p, 4)}) "
            f"SELECT coalesce((SELECT n FROM done), (SELECT n FROM {p}ops WHERE op = $4), 0)"
        )
        done = await self._once(sql, (key, bytes(old), bytes(new)), "n")
        return bool(done)

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        """Keep `data` under `key` for `ttl` seconds, for one `take_once` (`OnceStore.put_once`)."""
        sql = (
            f"INSERT INTO {self.prefix}once (key, data, deadline) VALUES ($1, $2, $3) "  # noqa: S608
            "ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data, deadline = EXCLUDED.deadline"
        )
        await self._run(lambda conn: conn.execute(sql, key, bytes(data), self.clock() + ttl))

    async def take_once(self, key: str) -> bytes | None:
        """Return and delete the value under `key`; None when unknown, taken or past its ttl
        (`OnceStore.take_once`)."""
        p = self.prefix
        sql = (
            f"WITH done AS (DELETE FROM {p}once WHERE key = $1 AND deadline > $2 AND {_not_done(p, 3)} "  # noqa: S608
            "RETURNING data), "
            f"logged AS (INSERT INTO {p}ops (op, data, deadline) SELECT $3, (SELECT data FROM done), $4 "
            f"WHERE {_not_done(p, 3)}) "
            f"SELECT coalesce((SELECT data FROM done), (SELECT data FROM {p}ops WHERE op = $3))"
        )
        value = await self._once(sql, (key, self.clock()), "data")
        return None if value is None else bytes(value)

    async def _once(self, sql: str, args: tuple[Any, ...], column: str) -> Any:
        """Run a write that logs its operation in `<prefix>ops` (`sql` takes `args`, then the
        token and the log's deadline): a retry of it answers what the first try did. A retry
        that met the first try still running waits for it on the token's key, then reads it."""
        op = secrets.token_hex(8)
        kept = self.clock() + self.timeout + _OPS_KEPT
        read = f"SELECT {column} FROM {self.prefix}ops WHERE op = $1"  # noqa: S608

        async def work(conn: Connection) -> Any:
            try:
                return await conn.fetchval(sql, *args, op, kept)
            except self._asyncpg.UniqueViolationError:
                return await conn.fetchval(read, op)

        return await self._run(work, writes=True)

    async def claim(self, key: str, *, ttl: float) -> str | None:
        """Take the lock `key` for `ttl` seconds: a holder token, or None when another holds it
        (`LockStore.claim`)."""
        # One statement: the row lock makes check-and-take atomic; a retry finds its own token.
        token = secrets.token_hex(16)
        now = self.clock()
        sql = (
            f"INSERT INTO {self.prefix}claims (key, token, deadline) VALUES ($1, $2, $3) "  # noqa: S608
            "ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, deadline = EXCLUDED.deadline "
            f"WHERE {self.prefix}claims.deadline <= $4 OR {self.prefix}claims.token = EXCLUDED.token "
            "RETURNING token"
        )
        won = await self._run(lambda conn: conn.fetchval(sql, key, token, now + ttl, now))
        return token if won is not None else None

    async def release(self, key: str, token: str) -> None:
        """Free the lock `key` if `token` still holds it (`LockStore.release`)."""
        sql = f"DELETE FROM {self.prefix}claims WHERE key = $1 AND token = $2"  # noqa: S608
        await self._run(lambda conn: conn.execute(sql, key, token))

    async def close(self) -> None:
        """Close the connection pool; call it once, at shutdown."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()


async def _keys_after(sql: str, after: str, prefix: str, conn: Connection) -> list[Any]:
    return list(await conn.fetch(sql, after, prefix, _KEYS_BATCH))


async def migrate(conn: asyncpg.Connection, prefix: str) -> int:
    """Bring the tables to `SCHEMA_VERSION`, once, whichever replica gets there first.

    The version lives in `<prefix>schema`; each step runs in one transaction with the advisory
    lock held, so replicas starting together wait for each other instead of racing. Returns the
    version found before migrating (0 for a new database)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"{prefix}schema")
        await conn.execute(f"CREATE TABLE IF NOT EXISTS {prefix}schema (version integer NOT NULL)")
        found = await conn.fetchval(f"SELECT max(version) FROM {prefix}schema")  # noqa: S608
        found = int(found or 0)
        if found > SCHEMA_VERSION:
            raise StoreUnavailableError(
                f"The PostgreSQL tables {prefix}* are at schema version {found}, newer than this "
                f"elicitkit knows ({SCHEMA_VERSION}); upgrade elicitkit on every replica."
            )
        for version in range(found + 1, SCHEMA_VERSION + 1):
            await conn.execute(_MIGRATIONS[version - 1].format(p=prefix))
            await conn.execute(f"INSERT INTO {prefix}schema (version) VALUES ($1)", version)  # noqa: S608
    return found
