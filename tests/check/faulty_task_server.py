"""A small MCP server with tasks (2025-11-25) that breaks exactly one task rule, named on the command line.

`python faulty_task_server.py RULE PORT`: RULE is "good" or one of the IDs below; it serves
streamable HTTP on 127.0.0.1:PORT. Its task wire is a server middleware on the raw SDK, kept in
memory, so the checker meets the wire shapes any server could send: `research` (taskSupport
"required") asks one form question through its task, `quick` ("optional") asks nothing. Every
rule it does not break, it keeps: tasks begin `working`, are `input_required` while asked and
`working` again once answered, stay as they ended, their questions and result carry the
related-task `_meta`, and unknown or another bearer's task ids are -32602.
"side-channel" breaks nothing: it sends a task's question on the standalone GET stream, as the
tasks page lets a server do ("clients SHOULD expect messages to be delivered on any SSE stream").
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitResult

from elicitkit.schema import validate

RULE = sys.argv[1]
PORT = int(sys.argv[2])
RELATED = "io.modelcontextprotocol/related-task"
SUPPORT = {"research": "required", "quick": "optional"}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"topic": {"type": "string", "title": "Which topic?", "enum": ["snakes", "code"]}},
    "required": ["topic"],
}


@dataclass
class Task:
    id: str
    owner: str
    status: str = "working"
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    result: dict[str, Any] | None = None
    question: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    fetched: bool = False
    changed: anyio.Event = field(default_factory=anyio.Event)

    def set(self, status: str) -> None:
        self.status = status
        self.poke()

    def poke(self) -> None:
        """Wake whoever waits for this task to change."""
        self.changed.set()
        self.changed = anyio.Event()

    def wire(self) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat()
        return {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": now,
            "ttl": 300000,
            "pollInterval": 100,
        }


tasks: dict[str, Task] = {}
background: Any = None


def owner(ctx: ServerRequestContext[Any, Any]) -> str:
    request = ctx.request
    headers = getattr(request, "headers", None)
    return str(headers.get("authorization", "")) if headers is not None else ""


def forms(ctx: ServerRequestContext[Any, Any]) -> bool:
    params = ctx.session.client_params
    elicitation = params.capabilities.elicitation if params is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


async def run(task: Task, name: str, asks: bool) -> None:
    """The tool's work in the background: `research` asks its question through the task."""
    await anyio.sleep(0.2)
    text = "Done."
    if name == "research" and asks:
        params: dict[str, Any] = {
            "mode": "form",
            "message": "Which topic do you mean?",
            "requestedSchema": SCHEMA,
        }
        if RULE == "T-40":  # asks its question as a task of the client's, undeclared
            params["task"] = {"ttl": 60000}
        task.question = params
        task.set("working" if RULE == "T-07-asking" else "input_required")
        while task.answer is None:
            await task.changed.wait()
        answer = task.answer
        if RULE == "T-07-stuck":  # answered, yet it says it still waits for input
            await anyio.sleep(2.5)
        else:
            task.set("working")
        if answer.get("action") != "accept":
            text = f"Nothing researched ({answer.get('action')})."
        elif validate(SCHEMA, answer.get("content")):
            task.result = {"content": [{"type": "text", "text": "That is no topic."}], "isError": True}
            task.set("failed")
            return
        else:
            text = f"Researched {answer['content']['topic']}."
        await anyio.sleep(0.2)
    task.result = {"content": [{"type": "text", "text": text}], "isError": False}
    task.set("completed")


class TaskWire:
    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "initialize":
            result = dumped(await call_next(ctx))
            if result.get("protocolVersion") == "2025-11-25" and RULE != "T-01":  # T-01: none declared
                caps = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
                result["capabilities"]["tasks"] = caps
            return result
        if ctx.protocol_version != "2025-11-25":
            return await call_next(ctx)
        if ctx.method == "tools/list":
            result = dumped(await call_next(ctx))
            for tool in result["tools"]:
                tool["execution"] = {"taskSupport": SUPPORT[tool["name"]]}
            return result
        if ctx.method == "tools/call":
            return await self.call(ctx, call_next)
        if ctx.method.startswith("tasks/"):
            return await self.task_method(ctx)
        return await call_next(ctx)

    async def call(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = dict(ctx.params or {})
        name = str(params.get("name"))
        if "task" not in params:
            if SUPPORT[name] == "required" and RULE != "T-04":  # T-04: it runs as a plain call
                raise MCPError(-32601, f"The tool {name!r} runs only as a task.")
            return await call_next(ctx)
        task = Task(uuid.uuid4().hex, owner(ctx))
        tasks[task.id] = task
        background.start_soon(run, task, name, forms(ctx))
        created = task.wire()
        if RULE == "T-03":  # a task that does not begin `working`
            created["status"] = "input_required"
        return {"task": created}

    async def task_method(self, ctx: ServerRequestContext[Any, Any]) -> HandlerResult:
        task_id = str((ctx.params or {}).get("taskId"))
        task = tasks.get(task_id)
        if task is None:
            if RULE == "T-05":  # an unknown id is an internal error, not -32602
                raise MCPError(-32603, f"KeyError: {task_id!r}")
            raise MCPError(-32602, "Failed to retrieve task: Task not found")
        if task.owner != owner(ctx) and RULE != "T-06":  # T-06: anyone's task is anyone's
            raise MCPError(-32602, "Failed to retrieve task: Task not found")
        if ctx.method == "tasks/get":
            if RULE == "T-07-flip" and task.fetched:  # its result fetched, it says it works again
                return {**task.wire(), "status": "working"}
            if RULE == "T-09":  # no ttl, though a tasks/get must give the actual one
                return {k: v for k, v in task.wire().items() if k != "ttl"}
            return task.wire()
        if ctx.method == "tasks/cancel":
            if task.status in ("completed", "failed", "cancelled") and RULE != "T-07":
                raise MCPError(-32602, f"Cannot cancel task: already in terminal status {task.status!r}")
            task.set("cancelled")  # T-07: a completed task becomes cancelled
            return task.wire()
        return await self.result(ctx, task)

    async def result(self, ctx: ServerRequestContext[Any, Any], task: Task) -> HandlerResult:
        """Block until the task ends; ask its question on this stream meanwhile."""
        while task.result is None:
            question = task.question
            if question is not None and task.answer is None:
                task.question = None
                meta = {} if RULE == "T-08" else {"_meta": {RELATED: {"taskId": task.id}}}
                request = ElicitRequest.model_validate(
                    {"method": "elicitation/create", "params": {**question, **meta}}, by_name=False
                )
                # "side-channel": on the standalone GET stream, which the tasks page allows
                tie = (
                    None
                    if RULE == "side-channel"
                    else ServerMessageMetadata(related_request_id=ctx.request_id)
                )
                answer = await ctx.session.send_request(request, ElicitResult, metadata=tie)
                task.answer = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
                task.poke()
                continue
            await task.changed.wait()
        task.fetched = True
        return {**task.result, "_meta": {RELATED: {"taskId": task.id}}}


def dumped(result: HandlerResult) -> dict[str, Any]:
    if isinstance(result, Mapping):
        return dict(result)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[union-attr]


server = MCPServer(f"faulty-tasks-{RULE}", middleware=[TaskWire()])


@server.tool()
async def research(topic: str = "python") -> str:
    """Research a topic; asks which one is meant (as a task)."""
    return f"Researched {topic} without asking."


@server.tool()
async def quick() -> str:
    """Answers at once."""
    return "Quick."


async def main() -> None:
    global background
    async with anyio.create_task_group() as group:
        background = group
        await server.run_streamable_http_async(host="127.0.0.1", port=PORT)
        group.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
