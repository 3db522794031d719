"""`HostAudit`: the MCP server a person adds to a host; one tool per question of the battery.

Every form question is asked with `elicitkit.server.Elicitation`, so it is asked the way a
correct server asks (tied to the tool call, only in a declared mode, as a live request on
2025-11-25 and as an input-required round on 2026-07-28). URL-mode questions go through the
SDK's `elicit_url` on 2025-11-25 and in the tool's own input-required result on 2026-07-28
(their URLs are not elicitkit pages); the one that tests C-02 is sent, on 2025-11-25 only, to a
host that did *not* declare URL mode, on purpose. `Tap` keeps what came back as it came. Each
question's wait is bounded by one deadline for the whole audit.

Two questions are about 2025-11-25 tasks. The task-augmented question is sent raw on the
connection (the SDK checks an `elicitation/create` result as an `ElicitResult`, so it has no way
to send one that may come back a `CreateTaskResult`), to every host that declared form mode:
the audit then plays the requestor, polling the host's `tasks/get` beside a waiting
`tasks/result`. The task tool is served by `elicitkit.server.Tasks` as `required`, and
`TaskWatch` sees whether the host called it as a task, polled and read its result.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import anyio
import pydantic
from mcp.server.connection import Connection
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult

from elicitkit._sdk import connection_of
from elicitkit.check._host._battery import BATTERY, TASK_TTL_MS, Question
from elicitkit.check._host._records import MODERN, Asked, HostSeen
from elicitkit.check._host._report import HostReport
from elicitkit.check._host._tap import Tap, TaskWatch, heard
from elicitkit.check._wire import RELATED_TASK, related_task
from elicitkit.results import AcceptedElicitation, DeclinedElicitation
from elicitkit.server import (
    Elicitation,
    ElicitationTimeoutError,
    InvalidAnswerError,
    KeyRing,
    McpUsers,
    MemoryStore,
    ModeNotDeclaredError,
    Tasks,
)

REPORT_TOOL = "audit_report"
TASK_TOOL = next(q.tool for q in BATTERY if q.kind == "task-tool")
UNKNOWN_TASK = "elicitkit-host-audit-no-such-task"
"""A task id no host gave out: asking for it must be -32602."""
POLL_INTERVAL = 0.5
"""The pause the task tool's task suggests between two `tasks/get` (seconds)."""


class HostAudit:
    """The audit server and what it saw. `server` is the `MCPServer` to serve (stdio or HTTP);
    `records` the questions asked so far; `deadline` seconds bound the whole audit, from now."""

    def __init__(
        self,
        *,
        deadline: float = 600.0,
        on_report: Callable[[HostAudit], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server: MCPServer[Any] = MCPServer(
            "elicitkit-host-audit",
            instructions="Call the audit_ tools one by one, in order, and answer each question as its "
            "'To do:' line says; then call audit_report.",
        )
        tasks = Tasks(
            {TASK_TOOL: "required"},
            users=McpUsers.single_user_local(),  # the audit serves one person, on 127.0.0.1 or stdio
            keys=KeyRing.from_string(KeyRing.generate()),
            store=MemoryStore(),
            poll_interval=POLL_INTERVAL,
        )
        self.elicit = Elicitation(self.server, tasks=tasks)
        self.tap = Tap()
        self.server.middleware.append(self.tap)
        self.watch = TaskWatch(TASK_TOOL, clock)
        self.server.middleware.insert(0, self.watch)
        self.records: dict[str, Asked] = {}
        self.host = HostSeen()
        self.clock = clock
        self.ends = clock() + deadline
        self.on_report = on_report
        for question in BATTERY:
            self._add(question)
        self.server.tool(name=REPORT_TOOL, description="The audit's verdicts so far, as text.")(self._report)

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools to call, in order: every question's, then the report's."""
        return (*(q.tool for q in BATTERY), REPORT_TOOL)

    def _add(self, question: Question) -> None:
        async def tool(ctx: Context) -> str | InputRequiredResult:  # the URL questions' 2026-07-28 rounds
            return await self.ask(ctx, question)

        self.server.tool(name=question.tool, description=f"Host audit question: {question.label}.")(tool)

    async def _report(self, ctx: Context) -> str:
        self._see(ctx)
        if self.on_report is not None:
            self.on_report(self)
        return HostReport.of(self).to_text()

    def _see(self, ctx: Context) -> tuple[str, tuple[str, ...]]:
        session = ctx.request_context.session
        capabilities = session.client_capabilities
        modes = tuple(m for m in ("form", "url") if self.elicit.supports(ctx, m))
        info = session.client_params.client_info if session.client_params is not None else None
        tasks = capabilities.tasks if capabilities is not None else None
        requests = tasks.requests if tasks is not None else None
        elicitation = requests.elicitation if requests is not None else None
        self.host = HostSeen(
            name=f"{info.name} {info.version}" if info is not None else self.host.name,
            protocol=ctx.request_context.protocol_version,
            declared=capabilities is not None and capabilities.elicitation is not None,
            modes=modes,
            tasks=elicitation is not None and elicitation.create is not None,
        )
        return self.host.protocol, modes

    def asked(self) -> list[Asked]:
        """Every question asked so far; the task tool's record holds what `TaskWatch` saw."""
        if self.watch.calls:
            question = next(q for q in BATTERY if q.kind == "task-tool")
            sent = {"mode": "form", "message": question.message, "requestedSchema": dict(question.schema)}
            record = self.records.setdefault(
                question.key, Asked(question.key, self.host.protocol, self.host.modes, sent)
            )
            gaps = [b - a for a, b in pairwise(self.watch.polls)]
            record.task = {
                "as_task": any(self.watch.calls),
                "plain_calls": self.watch.calls.count(False),
                "poll_interval_ms": round(POLL_INTERVAL * 1000),
                "shortest_gap_ms": round(min(gaps) * 1000) if gaps else None,
                "results": self.watch.results,
            }
            if not any(self.watch.calls):
                record.outcome = "not-asked"
                record.detail = "called without task, so the task wire refused it (-32601)"
            elif record.outcome == "unanswered" and not self.watch.results:
                record.outcome = "not-asked"
                record.detail = "the host never called tasks/result, which carries the task's question"
        return list(self.records.values())

    def _left(self) -> float:
        return self.ends - self.clock()

    async def ask(self, ctx: Context, question: Question) -> str | InputRequiredResult:
        """Ask `question` of the host behind `ctx` and keep what came of it."""
        protocol, modes = self._see(ctx)
        if question.kind == "task":
            return await self._task_question(ctx, question, protocol, modes)
        if question.kind == "task-tool" and protocol >= MODERN:
            record = self.records[question.key] = Asked(question.key, protocol, modes, {"mode": "form"})
            record.outcome, record.detail = (
                "not-asked",
                "asked on 2025-11-25 only (on 2026-07-28 tasks are an extension)",
            )
            return record.detail
        if question.kind in ("form", "rounds", "task-tool"):
            keys = [question.key] if question.kind != "rounds" else [f"{question.key}-1", f"{question.key}-2"]
            said = [await self._form(ctx, question, key, protocol, modes) for key in keys]
            return " ".join(said)
        return await self._url(ctx, question, protocol, modes)

    async def _form(
        self, ctx: Context, question: Question, key: str, protocol: str, modes: tuple[str, ...]
    ) -> str:
        sent = {"mode": "form", "message": question.message, "requestedSchema": dict(question.schema)}
        record = self.records.get(key)
        if record is None or record.outcome != "unanswered":
            record = self.records[key] = Asked(key, protocol, modes, sent)
        if self._left() <= 0:
            record.outcome, record.detail = "not-asked", "the audit's deadline had passed"
            return record.detail
        before = len(heard())
        try:
            result = await self.elicit.form(
                ctx, question.message, question.schema, key=key, timeout=self._left()
            )
        except ModeNotDeclaredError:
            record.outcome, record.detail = "not-asked", "the host did not declare form mode"
        except InvalidAnswerError as error:
            record.outcome, record.detail = "answered", " ".join(p.message for p in error.problems)
            record.answer = self._raw(protocol, key, before)
        except ElicitationTimeoutError:
            record.outcome, record.detail = "unanswered", "no answer before the audit's deadline"
        except MCPError as error:
            record.outcome, record.detail = "error", f"error {error.code}: {error.message}"
        else:
            record.outcome = "answered"
            record.answer = self._raw(protocol, key, before) or _typed(result)
        return f"{question.key}: {record.outcome} {record.detail}".strip()

    def _raw(self, protocol: str, key: str, before: int) -> dict[str, Any] | None:
        if protocol >= MODERN:
            raw = self.tap.rounds.get(key)
            return raw if isinstance(raw, dict) else None
        got = heard()[before:]
        return got[-1] if got else None

    async def _url(
        self, ctx: Context, question: Question, protocol: str, modes: tuple[str, ...]
    ) -> str | InputRequiredResult:
        sent = {"mode": "url", "message": question.message, "url": question.url}
        record = self.records[question.key] = Asked(question.key, protocol, modes, sent)
        undeclared = question.kind == "url-undeclared"
        if undeclared and protocol >= MODERN:
            record.outcome, record.detail = "not-asked", "asked on 2025-11-25 only"
        elif undeclared and ("url" in modes or not self.host.declared):
            record.outcome, record.detail = "not-asked", "asked only of a host that declared form mode alone"
        elif not undeclared and "url" not in modes:
            record.outcome, record.detail = "not-asked", "the host did not declare URL mode"
        elif self._left() <= 0:
            record.outcome, record.detail = "not-asked", "the audit's deadline had passed"
        elif protocol >= MODERN:
            return self._url_round(ctx, question, record)
        else:
            session = ctx.request_context.session
            with anyio.move_on_after(self._left()):
                try:
                    result = await session.elicit_url(
                        question.message, question.url, uuid.uuid4().hex, related_request_id=ctx.request_id
                    )
                except MCPError as error:
                    record.outcome, record.detail = "error", f"error {error.code}: {error.message}"
                except pydantic.ValidationError as error:
                    record.outcome, record.detail = "answered", f"not an ElicitResult: {error}"
                else:
                    record.outcome = "answered"
                    record.answer = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            if record.outcome == "unanswered":
                record.detail = "no answer before the audit's deadline"
        return f"{question.key}: {record.outcome} {record.detail}".strip()

    def _url_round(self, ctx: Context, question: Question, record: Asked) -> str | InputRequiredResult:
        """On 2026-07-28 a URL question rides in the tool's own input-required result (the SDK's
        hand-rolled round: its answer comes back in the retry's `inputResponses`)."""
        answer = (ctx.input_responses or {}).get(question.key)
        if answer is None:
            params = ElicitRequestURLParams(
                message=question.message, url=question.url, elicitation_id=uuid.uuid4().hex
            )
            return InputRequiredResult(input_requests={question.key: ElicitRequest(params=params)})
        raw = self.tap.rounds.get(question.key)
        record.outcome = "answered"
        record.answer = (
            raw if isinstance(raw, dict) else answer.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
        return f"{question.key}: answered"

    async def _task_question(
        self, ctx: Context, question: Question, protocol: str, modes: tuple[str, ...]
    ) -> str:
        sent = {
            "mode": "form",
            "message": question.message,
            "requestedSchema": dict(question.schema),
            "task": {"ttl": TASK_TTL_MS},
        }
        record = self.records[question.key] = Asked(question.key, protocol, modes, sent)
        connection = connection_of(ctx.request_context.session)
        if protocol >= MODERN:
            record.outcome, record.detail = (
                "not-asked",
                "asked on 2025-11-25 only (on 2026-07-28 tasks are an extension)",
            )
        elif "form" not in modes:
            record.outcome, record.detail = "not-asked", "the host did not declare form mode"
        elif self._left() <= 0:
            record.outcome, record.detail = "not-asked", "the audit's deadline had passed"
        elif connection is None:
            record.outcome, record.detail = "not-asked", "the SDK gave no connection to send it on"
        else:
            record.task = {"declared": self.host.tasks, "created": None, "statuses": []}
            with anyio.move_on_after(self._left()):
                await self._as_requestor(connection, record)
            if record.outcome == "unanswered":
                statuses = record.task["statuses"]
                record.detail = "no answer before the audit's deadline" + (
                    f" (the task stayed {statuses[-1]})" if statuses else ""
                )
        return f"{question.key}: {record.outcome} {record.detail}".strip()

    async def _as_requestor(self, connection: Connection, record: Asked) -> None:
        """Send the task-augmented question and, if a task comes back, follow it as a requestor:
        `tasks/get` at its `pollInterval` while `tasks/result` waits; then cancel the ended task
        and ask for an unknown one, both of which must be -32602."""
        task = record.task or {}
        try:
            first = await connection.send_raw_request("elicitation/create", record.sent)
        except MCPError as error:
            record.outcome, record.detail = "error", f"error {error.code}: {error.message}"
            return
        created = first.get("task")
        if not isinstance(created, dict):
            record.outcome, record.answer = "answered", first
            return
        task["created"] = {k: created.get(k) for k in ("status", "createdAt", "ttl") if k in created}
        task_id = {"taskId": created.get("taskId")}
        statuses: list[str] = task["statuses"]
        statuses.append(str(created.get("status")))
        pause = created.get("pollInterval")
        pause = max(0.1, pause / 1000) if isinstance(pause, int | float) else POLL_INTERVAL
        ended = anyio.Event()

        async def read_result() -> None:
            try:
                result = await connection.send_raw_request("tasks/result", task_id)
            except MCPError as error:
                record.outcome, record.detail = "error", f"tasks/result: error {error.code}: {error.message}"
            else:
                meta = result.pop("_meta", None)
                task["related"] = related_task(meta) == task_id["taskId"]
                record.outcome, record.answer = "answered", result
            ended.set()

        async def poll() -> None:
            try:
                got = await connection.send_raw_request("tasks/get", task_id)
            except MCPError as error:
                task["broke"] = f"tasks/get of its own task: error {error.code}"
                return
            if RELATED_TASK in (got.get("_meta") or {}):
                task["get_meta"] = True
            if got.get("status") != statuses[-1]:
                statuses.append(str(got.get("status")))

        async with anyio.create_task_group() as group:
            group.start_soon(read_result)
            while not ended.is_set() and "broke" not in task:
                with anyio.move_on_after(pause):
                    await ended.wait()
                await poll()  # once more after the result: the status it ended in
        task["cancel"] = await _code(connection, "tasks/cancel", task_id)
        task["unknown"] = await _code(connection, "tasks/get", {"taskId": UNKNOWN_TASK})


async def _code(connection: Connection, method: str, params: dict[str, Any]) -> str:
    """`method`'s reply in short: "error CODE", or "answered" when it did not refuse."""
    try:
        await connection.send_raw_request(method, params)
    except MCPError as error:
        return f"error {error.code}"
    return "answered"


def _typed(result: Any) -> dict[str, Any]:
    if isinstance(result, AcceptedElicitation):
        return {"action": "accept", "content": result.data}
    return {"action": "decline" if isinstance(result, DeclinedElicitation) else "cancel"}
