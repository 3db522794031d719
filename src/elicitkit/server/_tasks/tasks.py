"""`Tasks`: task-augmented requests run in the background, their state in elicitkit's store.

The core knows nothing of a wire. A wire (the 2025-11-25 `tasks/*` methods in `wire.py`, the
2026-07-28 tasks extension beside it) uses it like this:

- `create(caller, tool, request, ttl=..., run=...)` when a request asks to run as a task: the
  task is stored `working`, counted under the user's limit, and `run` (one run of the request
  from the top, returning its wire result or raising `MCPError`) starts in the background;
- `get`, `list`, `cancel` for the requestor's reads, each bound to the user who created the
  task (`UnknownTaskError` for another user's id, as for an unknown one); pass `resume=` to
  `get` (or set it around the request with `resuming`) so that a task whose process died runs
  again from a request of its user;
- `open_questions(record)` and `answer(caller, task_id, key, result)`: what the task asks the
  requestor while `input_required`, and the requestor's reply (the 2025-11-25 wire sends each
  question as an `elicitation/create` on the `tasks/result` stream; the extension returns them
  from `tasks/get` and takes the replies from `tasks/update`);
- `changed(task_id, since)`, to wait (a bounded while) until a task moves on.

Inside the run, a tool asks as any tool does (`elicit.form`, a `Secret`, an `OAuthConnection`):
`current_run()` is set, and `_ask` hands the question to `TaskRun.ask`, which stores it, moves
the task to `input_required`, and waits for the answer (from any replica: the store holds it,
the bus wakes the waiter, a short poll covers a lost wake-up), then back to `working`.

The model for a process that dies (restart, a replica killed): the task's request is run again
from the top with its stored params, by the first replica that reads the task after its runner
stopped saying it is alive (`lease` seconds). Questions already answered are replayed from the
store by their identity (the key and a digest of the question, as the 2026-07-28 rounds do
with `requestState`), so nobody is asked twice; a question still open is asked by the new run
and waits for the same answer. A URL-mode flow notes its record in the task (`TaskRun.note`),
so a run again waits for the same page: a person who finishes it after a restart completes the
task. Code before a question must therefore be safe to run again, as on 2026-07-28.

A task lives `ttl` seconds from creation (the requested one, bounded by `max_ttl`); then it is
cancelled if it still runs, deleted, and its place under the user's limit freed: reads treat it
as gone at once, and `sweep` (run in the background by `running`) deletes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Literal

import anyio
import anyio.abc
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, ElicitRequest, ElicitResult

from elicitkit.server._errors import ElicitationError, ElicitationTimeoutError, PendingLimitError
from elicitkit.server._rounds import digest
from elicitkit.server._tasks.record import TaskRecord, TaskStatus
from elicitkit.server._user import Caller, McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server.bus import Bus, LocalBus
from elicitkit.server.store import ACTIVE, Record, State, Store, new_elicitation_id

__all__ = [
    "Resume",
    "Runner",
    "TaskRun",
    "TaskSupport",
    "Tasks",
    "TerminalTaskError",
    "UnknownTaskError",
    "current_run",
]

logger = logging.getLogger(__name__)

TaskSupport = Literal["forbidden", "optional", "required"]
"""A tool's `execution.taskSupport`: whether it may, must or must not run as a task."""

Runner = Callable[[], Awaitable[Mapping[str, Any]]]
"""One run of a task's request from the top: its wire result, or an `MCPError` it raises."""

Resume = Callable[[TaskRecord], Runner]
"""How a wire runs a stored task's request again (from a request of the task's user)."""

_TASK = "elicitkit-task:"
_INDEX = "elicitkit-tasks-of:"
_PURPOSE = "task"
_SLOT_FLOW = "elicitkit.task"
_CURSOR = re.compile(r"[0-9]{15}:[A-Za-z0-9_-]{8,64}")
_POLL = 1.0  # seconds between two store reads while waiting, should a bus wake-up be lost


class UnknownTaskError(ElicitationError):
    """No task of this user has that id (unknown, another user's, or expired): -32602 on the wire."""

    def __init__(self) -> None:
        super().__init__("Task not found: it does not exist, has expired, or belongs to another user.")


class TerminalTaskError(ElicitationError):
    """The task already ended, so it cannot be cancelled: -32602 on the wire."""

    def __init__(self, status: str) -> None:
        super().__init__(f"Cannot cancel task: already in terminal status {status!r}.")
        self.status = status


_current: ContextVar[TaskRun | None] = ContextVar("elicitkit_task_run", default=None)
_resuming: ContextVar[Resume | None] = ContextVar("elicitkit_task_resume", default=None)


def current_run() -> TaskRun | None:
    """The task the running code belongs to, or None outside a task's run."""
    return _current.get()


class Tasks:
    """Runs task-augmented requests and keeps their state in a `Store`.

    `tools` maps a tool name to its `TaskSupport` (a tool not named is "forbidden"). `store`,
    `bus`, `users` and `keys` default to the `UrlMode`'s when `Elicitation(server, url_mode=...,
    tasks=...)` wires them (else a `MemoryStore`-free default: see `attach`). `ttl` is the
    lifetime a task gets when the requestor asks for none, `max_ttl` the most it may ask for
    (seconds); `poll_interval` the pause suggested between two polls; `max_per_user` how many
    tasks and URL elicitations one user may have open at once (one count, in the store);
    `lease` how long a runner may stay silent before another replica runs the task again.
    Task results, arguments and answers are sealed in the store with `keys` (purpose "task").
    """

    def __init__(
        self,
        tools: Mapping[str, TaskSupport] | None = None,
        *,
        store: Store | None = None,
        bus: Bus | None = None,
        users: McpUsers | None = None,
        keys: KeyRing | None = None,
        ttl: float = 3600.0,
        max_ttl: float = 86400.0,
        poll_interval: float = 1.0,
        max_per_user: int | None = 20,
        lease: float = 15.0,
        sweep_every: float = 60.0,
    ) -> None:
        self.tools: dict[str, TaskSupport] = dict(tools or {})
        self.store = store
        self.bus = bus
        self.users = users
        self.keys = keys
        self.ttl = ttl
        self.max_ttl = max_ttl
        self.poll_interval = poll_interval
        self.max_per_user = max_per_user
        self.lease = lease
        self.sweep_every = sweep_every
        self.instance = secrets.token_hex(8)
        """This process's name as a runner (a task's `runner`)."""
        self._group: anyio.abc.TaskGroup | None = None
        self._local: dict[str, anyio.CancelScope] = {}

    # -- wiring ------------------------------------------------------------------------------

    def support(self, tool: str) -> TaskSupport:
        """`tool`'s `execution.taskSupport` ("forbidden" unless `tools` names it)."""
        return self.tools.get(tool, "forbidden")

    def attach(
        self,
        *,
        store: Store | None = None,
        bus: Bus | None = None,
        users: McpUsers | None = None,
        keys: KeyRing | None = None,
    ) -> None:
        """Fill what was not given from a `UrlMode` (its store, bus, users, keys) or the defaults:
        the key ring from the environment, a `LocalBus`, the verified MCP user."""
        if self.keys is None:
            self.keys = keys if keys is not None else KeyRing.from_env()
        if self.store is None:
            if store is None:
                raise ElicitationError(
                    "Tasks need a store to keep their state in: pass Tasks(store=...) (a SQLiteStore, "
                    "RedisStore or PostgresStore), or create the Elicitation with url_mode=."
                )
            self.store = store
        if self.bus is None:
            self.bus = bus if bus is not None else LocalBus()
        if self.users is None:
            self.users = users if users is not None else McpUsers()

    def caller(self) -> Caller:
        """The verified user of the current request (what every task is bound to)."""
        return self._users.caller()

    @property
    def _store(self) -> Store:
        if self.store is None:
            raise ElicitationError("These Tasks are not attached to a server yet: pass them to Elicitation.")
        return self.store

    @property
    def _bus(self) -> Bus:
        return self.bus if self.bus is not None else LocalBus()

    @property
    def _users(self) -> McpUsers:
        return self.users if self.users is not None else McpUsers()

    @property
    def _keys(self) -> KeyRing:
        if self.keys is None:
            self.keys = KeyRing.from_env()
        return self.keys

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Where runs live, and the sweep: enter it around the server (`Elicitation` does it in the
        server's lifespan). Leaving it cancels the runs of this process (their tasks stay in the
        store and run again elsewhere, or here after a restart)."""
        if self._group is not None:
            yield
            return
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._sweep_forever)
            try:
                yield
            finally:
                self._group = None
                group.cancel_scope.cancel()

    @contextlib.contextmanager
    def resuming(self, resume: Resume) -> Iterator[None]:
        """While the block runs, `get` runs a task whose runner died again with `resume` (unless its
        caller passes one): a wire sets it around each request it handles (the 2025-11-25 middleware
        does, on every revision), so any method that reads a task can bring it back to life."""
        token = _resuming.set(resume)
        try:
            yield
        finally:
            _resuming.reset(token)

    # -- the requestor's operations ---------------------------------------------------------------

    async def create(
        self,
        caller: Caller,
        tool: str,
        request: Mapping[str, Any],
        *,
        run: Runner,
        ttl: float | None = None,
    ) -> TaskRecord:
        """Store a new `working` task for `caller` and start `run` in the background.

        `request` is what `run` runs, kept so another replica can run it again; `ttl` the
        requested lifetime in seconds (bounded by `max_ttl`; None: `self.ttl`).

        Raises:
            PendingLimitError: the user has `max_per_user` tasks and URL elicitations open.
        """
        store = self._store
        self._require_running()
        now = store.clock()
        lifetime = self.ttl if ttl is None else max(1.0, min(float(ttl), self.max_ttl))
        slot = Record.new(caller.user, caller.client_id, _SLOT_FLOW, tool, ttl=lifetime, now=now)
        if not await store.create(slot, max_active=self.max_per_user):
            raise PendingLimitError(self.max_per_user or 0, lifetime)
        record = TaskRecord(
            id=new_elicitation_id(),
            user=caller.user,
            client_id=caller.client_id,
            tool=tool,
            request=dict(request),
            created_at=now,
            updated_at=now,
            ttl=lifetime,
            poll_interval=self.poll_interval,
            slot=slot.id,
            runner=self.instance,
            seen_at=now,
            runs=1,
        )
        await store.put_blob(_TASK + record.id, self._seal(record))
        await store.put_blob(self._index_key(record), b"-")
        self._start(record, run)
        return record

    async def get(self, caller: Caller, task_id: str, *, resume: Resume | None = None) -> TaskRecord:
        """`caller`'s task as it stands; with `resume`, a task whose runner died runs again here.

        Raises:
            UnknownTaskError: no such task of this user (another user's id reads the same).
        """
        record = await self._mine(caller, task_id)
        resume = resume if resume is not None else _resuming.get()
        if resume is not None and not record.terminal and self._orphaned(record):
            record = await self._adopt(record, resume)
        return record

    async def list(
        self, caller: Caller, cursor: str | None = None, *, limit: int = 50
    ) -> tuple[Sequence[TaskRecord], str | None]:
        """`caller`'s tasks, oldest first, `limit` at a time; the cursor of the next page or None.

        Raises:
            UnknownTaskError: `cursor` is not one this call returned (-32602 on the wire).
        """
        prefix = self._index_prefix(caller)
        after = ""
        if cursor is not None:
            if not _CURSOR.fullmatch(cursor):
                raise UnknownTaskError()
            after = prefix + cursor
        keys = sorted([key async for key in self._store.blob_keys(prefix)])
        page: list[TaskRecord] = []
        last = None
        for key in keys:
            if key <= after:
                continue
            record = await self.read(key.rsplit(":", 1)[1])
            if record is None or record.user != caller.user:
                continue
            if len(page) == limit:
                return page, last
            page.append(record)
            last = key[len(prefix) :]
        return page, None

    async def cancel(self, caller: Caller, task_id: str) -> TaskRecord:
        """Move `caller`'s task to `cancelled` (before returning) and stop its run, here or wherever
        it runs (at its next heartbeat).

        Raises:
            UnknownTaskError: no such task of this user.
            TerminalTaskError: the task already ended.
        """
        await self._mine(caller, task_id)

        def cancelling(record: TaskRecord) -> TaskRecord:
            if record.terminal:
                raise TerminalTaskError(record.status)
            now = self._store.clock()
            return record.moved("cancelled", now=now, message="The task was cancelled by request.")

        record = await self.update(task_id, cancelling)
        if record is None:
            raise UnknownTaskError()
        await self._free(record, "cancelled")
        scope = self._local.get(task_id)
        if scope is not None:
            scope.cancel()
        await self._bus.publish(_TASK + task_id)
        return record

    def open_questions(self, record: TaskRecord) -> dict[str, ElicitRequest]:
        """The questions `record` waits on, by key, as the `elicitation/create` each one is."""
        return {
            key: ElicitRequest.model_validate(
                {"method": "elicitation/create", "params": open_["request"]}, by_name=False
            )
            for key, open_ in record.questions.items()
        }

    async def answer(self, caller: Caller, task_id: str, key: str, result: Mapping[str, Any]) -> TaskRecord:
        """Record the requestor's `result` (an `elicitation/create` result, as sent) to question `key`
        and wake the run; the task goes back to `working` when nothing else is open. An answer to a
        question no longer open changes nothing.

        Raises:
            UnknownTaskError: no such task of this user.
        """
        await self._mine(caller, task_id)
        answer = ElicitResult.model_validate(dict(result), by_name=False)
        wire = answer.model_dump(mode="json", by_alias=True, exclude_none=True)

        def answering(record: TaskRecord) -> TaskRecord | None:
            asked = record.questions.get(key)
            if asked is None or record.terminal:
                return None
            questions = {k: v for k, v in record.questions.items() if k != key}
            answers = {**record.answers, key: {"q": asked["q"], "r": wire}}
            updated = replace(record, questions=questions, answers=answers)
            if not questions:
                updated = updated.moved("working", now=self._store.clock())
            return updated

        record = await self.update(task_id, answering)
        if record is None:
            raise UnknownTaskError()
        await self._bus.publish(_TASK + task_id)
        return record

    async def changed(self, task_id: str, since: TaskRecord, *, within: float = 30.0) -> TaskRecord | None:
        """Wait up to `within` seconds for the task to move on from `since`; the task then (None
        once it is gone)."""
        woken = anyio.Event()

        async def wake(_: str) -> None:
            woken.set()

        with anyio.move_on_after(within):
            while True:
                unsubscribe = self._bus.subscribe(_TASK + task_id, wake)
                try:
                    now = await self.read(task_id)
                    if now is None or now.version != since.version:
                        return now
                    with anyio.move_on_after(_POLL):
                        await woken.wait()
                finally:
                    unsubscribe()
                woken = anyio.Event()
        return await self.read(task_id)

    async def sweep(self) -> int:
        """Cancel and delete the tasks past their TTL, free their places; how many went."""
        gone = 0
        async for key in self._store.blob_keys(_TASK):
            task_id = key[len(_TASK) :]
            raw = await self._store.get_blob(key)
            if raw is None:
                continue
            record = self._open(task_id, raw)
            if record is None or self._store.clock() < record.expires_at:
                continue
            await self._expire(task_id, record)
            gone += 1
        return gone

    # -- inside a run ------------------------------------------------------------------------

    async def ask_in(
        self,
        task_id: str,
        key: str,
        request: ElicitRequest,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> ElicitResult:
        """`TaskRun.ask`: store the question (unless answered before), wait for its answer."""
        q = digest(request)
        params = request.params.model_dump(mode="json", by_alias=True, exclude_none=True)
        clock = self._store.clock

        def asking(record: TaskRecord) -> TaskRecord | None:
            if record.terminal:
                return None  # cancelled meanwhile: the wait below says so
            given = record.answers.get(key)
            if given is not None and given.get("q") == q:
                return None
            open_ = record.questions.get(key)
            if open_ is not None and open_.get("q") == q:
                return None
            now = clock()
            answers = {k: v for k, v in record.answers.items() if k != key}
            questions = {**record.questions, key: {"q": q, "request": params, "t": now}}
            updated = replace(record, questions=questions, answers=answers)
            return updated.moved("input_required", now=now, message="Waiting for the person to answer.")

        record = await self.update(task_id, asking)
        if record is None:
            raise ElicitationError("The task is gone (cancelled or expired); its question was not asked.")
        await self._bus.publish(_TASK + task_id)  # a tasks/result waiting on this task sends it now
        try:
            with anyio.fail_after(timeout) if timeout is not None else contextlib.nullcontext():
                while True:
                    given = record.answers.get(key)
                    if given is not None and given.get("q") == q:
                        return ElicitResult.model_validate(given["r"], by_name=False)
                    if record.terminal:
                        raise ElicitationError(
                            f"The task ended ({record.status}) before its question was answered."
                        )
                    later = await self.changed(task_id, record)
                    if later is None:
                        raise ElicitationError("The task expired before its question was answered.")
                    record = later
        except TimeoutError:
            await self.update(task_id, lambda record: _withdrawn(record, key, clock()))
            raise ElicitationTimeoutError(timeout or 0.0) from None

    # -- the run ---------------------------------------------------------------------------

    def _require_running(self) -> anyio.abc.TaskGroup:
        if self._group is None:
            raise ElicitationError(
                "Tasks run in the background of a running server: enter `tasks.running()` around it "
                "(Elicitation(server, tasks=...) does this in the server's lifespan)."
            )
        return self._group

    def _start(self, record: TaskRecord, run: Runner) -> None:
        group = self._require_running()
        scope = anyio.CancelScope()
        self._local[record.id] = scope
        group.start_soon(self._run, record.id, run, scope)

    async def _run(self, task_id: str, run: Runner, scope: anyio.CancelScope) -> None:
        token = _current.set(TaskRun(self, task_id))
        try:
            with scope:
                outcome: dict[str, Any]
                async with anyio.create_task_group() as group:
                    group.start_soon(self._heartbeat, task_id, scope)
                    try:
                        outcome = {"result": dict(await run())}
                    except MCPError as error:
                        outcome = {"error": error.error.model_dump(mode="json", exclude_none=True)}
                    except Exception as error:  # a crash fails the task; the log keeps the trace
                        logger.exception("task %s... failed", task_id[:8])
                        outcome = {"error": {"code": INTERNAL_ERROR, "message": _sentence(error)}}
                    group.cancel_scope.cancel()
                await self._finish(task_id, outcome)
        finally:
            _current.reset(token)
            if self._local.get(task_id) is scope:
                del self._local[task_id]

    async def _finish(self, task_id: str, outcome: dict[str, Any]) -> None:
        result = outcome.get("result")
        failed = "error" in outcome or (isinstance(result, dict) and result.get("isError") is True)
        status: TaskStatus = "failed" if failed else "completed"
        message = _failure(outcome) if failed else None

        def finishing(record: TaskRecord) -> TaskRecord | None:
            if record.terminal:
                return None  # cancelled stays cancelled, whatever the run did
            now = self._store.clock()
            return replace(record.moved(status, now=now, message=message), outcome=outcome, questions={})

        record = await self.update(task_id, finishing)
        if record is not None:
            await self._free(record, "completed")
            await self._bus.publish(_TASK + task_id)

    async def _heartbeat(self, task_id: str, scope: anyio.CancelScope) -> None:
        """Say every lease/3 that this process still runs the task; stop the run when the task
        was cancelled, expired, or taken over."""
        while True:
            await anyio.sleep(self.lease / 3)

            def beating(record: TaskRecord) -> TaskRecord | None:
                if record.terminal or record.runner != self.instance:
                    return None
                return replace(record, seen_at=self._store.clock())

            try:
                record = await self.update(task_id, beating, quiet=True)
            except Exception as error:  # a store outage: the run goes on, the next beat tries again
                logger.warning("task heartbeat failed: %s", _sentence(error))
                continue
            if record is None or record.terminal or record.runner != self.instance:
                scope.cancel()
                return

    def _orphaned(self, record: TaskRecord) -> bool:
        if record.id in self._local:
            return False
        return record.runner is None or self._store.clock() - record.seen_at > self.lease

    async def _adopt(self, record: TaskRecord, resume: Resume) -> TaskRecord:
        """Run a task whose runner stopped beating again here: one replica wins the write."""
        seen = record.version

        def adopting(current: TaskRecord) -> TaskRecord | None:
            if current.version != seen or current.terminal:
                return None
            return replace(current, runner=self.instance, seen_at=self._store.clock(), runs=current.runs + 1)

        adopted = await self.update(record.id, adopting, quiet=True)
        if adopted is None or adopted.runner != self.instance or adopted.version == seen:
            return (await self.read(record.id)) or record
        logger.info("task %s... runs again here (run %d): its runner stopped", record.id[:8], adopted.runs)
        self._start(adopted, resume(adopted))
        return adopted

    # -- store -------------------------------------------------------------------------------

    async def _mine(self, caller: Caller, task_id: str) -> TaskRecord:
        record = await self.read(task_id) if isinstance(task_id, str) and task_id else None
        if record is None or record.user != caller.user:
            raise UnknownTaskError()
        return record

    async def read(self, task_id: str) -> TaskRecord | None:
        """The task as stored, whoever made it (None when unknown, unreadable or past its TTL): for a
        run, which belongs to its task already; a requestor's read goes through `get`."""
        raw = await self._store.get_blob(_TASK + task_id)
        if raw is None:
            return None
        record = self._open(task_id, raw)
        if record is None:
            return None  # not ours to delete: another key ring may read it
        if self._store.clock() >= record.expires_at:
            await self._expire(task_id, record)
            return None
        return record

    async def update(
        self, task_id: str, change: Callable[[TaskRecord], TaskRecord | None], *, quiet: bool = False
    ) -> TaskRecord | None:
        """Apply `change` atomically (compare and set on the sealed blob); the record after it, the
        record unchanged when `change` returns None, None when the task is gone."""
        store = self._store
        key = _TASK + task_id
        while True:
            raw = await store.get_blob(key)
            if raw is None:
                return None
            record = self._open(task_id, raw)
            if record is None:
                return None
            updated = change(record)
            if updated is None:
                return record
            updated = replace(updated, version=record.version + 1)
            if await store.replace_blob(key, raw, self._seal(updated)):
                return updated
            if not quiet:
                logger.debug("task %s... changed meanwhile; trying again", task_id[:8])

    async def _expire(self, task_id: str, record: TaskRecord) -> None:
        """A task past its TTL: its run stops, its place is freed, and it is deleted."""
        scope = self._local.get(task_id)
        if scope is not None:
            scope.cancel()
        with contextlib.suppress(Exception):  # the slot expired by itself at the same moment
            await self._free(record, "expired")
        await self._store.delete_blob(self._index_key(record))
        await self._store.delete_blob(_TASK + task_id)
        await self._bus.publish(_TASK + task_id)

    async def _free(self, record: TaskRecord, state: State) -> None:
        await self._store.transition(record.slot, from_states=ACTIVE, to=state)

    def _seal(self, record: TaskRecord) -> bytes:
        return self._keys.seal(record.dumps(), (_TASK + record.id).encode(), purpose=_PURPOSE)

    def _open(self, task_id: str, raw: bytes) -> TaskRecord | None:
        try:
            return TaskRecord.loads(self._keys.open(raw, (_TASK + task_id).encode(), purpose=_PURPOSE))
        except Exception as error:  # a key gone from the ring, a foreign blob: reads as no task
            logger.warning("task %s... could not be read: %s", task_id[:8], _sentence(error))
            return None

    def _index_prefix(self, caller: Caller) -> str:
        who = hashlib.sha256(f"{caller.user.issuer}\0{caller.user.subject}".encode()).hexdigest()[:32]
        return f"{_INDEX}{who}:"

    def _index_key(self, record: TaskRecord) -> str:
        created = int(record.created_at * 1000)
        return f"{self._index_prefix(Caller(record.user, record.client_id))}{created:015d}:{record.id}"

    async def _sweep_forever(self) -> None:
        while True:
            await anyio.sleep(self.sweep_every)
            try:
                gone = await self.sweep()
            except Exception as error:  # a store that is down must not end the server: next time
                logger.warning(
                    "task sweep failed (%s); it runs again in %g s", _sentence(error), self.sweep_every
                )
            else:
                if gone:
                    logger.info("task sweep: %d tasks past their TTL cancelled and deleted", gone)


class TaskRun:
    """The task a run belongs to, as the code inside it sees it: `ask` a question of the requestor,
    keep a `note` for a run again (URL mode keeps its record id there)."""

    def __init__(self, tasks: Tasks, task_id: str) -> None:
        self.tasks = tasks
        self.task_id = task_id

    async def ask(self, key: str, request: ElicitRequest, timeout: float | None = None) -> ElicitResult:  # noqa: ASYNC109
        """The requestor's answer to `request`: replayed when an earlier run got it, else asked
        (the task goes `input_required`) and waited for, from whichever replica it comes.

        Raises:
            ElicitationTimeoutError: no answer within `timeout` seconds.
            ElicitationError: the task ended (cancelled, expired) while it waited.
        """
        return await self.tasks.ask_in(self.task_id, key, request, timeout)

    async def note(self, key: str) -> Any:
        """What this task noted under `key` in an earlier run (None: nothing)."""
        record = await self.tasks.read(self.task_id)
        return None if record is None else record.notes.get(key)

    async def set_note(self, key: str, value: Any) -> None:
        """Keep a small JSON value under `key` for a run again of this task."""
        await self.tasks.update(
            self.task_id, lambda record: replace(record, notes={**record.notes, key: value})
        )


def _withdrawn(record: TaskRecord, key: str, now: float) -> TaskRecord | None:
    """`record` without the open question `key` (its wait timed out); None when it is not open."""
    if key not in record.questions or record.terminal:
        return None
    questions = {k: v for k, v in record.questions.items() if k != key}
    updated = replace(record, questions=questions)
    return updated if questions else updated.moved("working", now=now)


def _sentence(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _failure(outcome: Mapping[str, Any]) -> str:
    error = outcome.get("error")
    if isinstance(error, dict):
        return f"The request failed: {error.get('message', 'an error')}"
    return "The tool reported an error; tasks/result has its result."
