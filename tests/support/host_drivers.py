"""Host programs the host audit (`elicitkit check --host`) drives unattended, each a `HostDriver`.

    report = await audit_host(SdkHost(), deadline=30)

Each connects its host to the audit's endpoint, calls the tools in order and lets the host
answer with the audit's fixed policy (`elicitkit.check._host.policy_answer`; the node scripts
carry the same policy in tests/peers/ts-sdk/host_policy.mjs). `SdkHost(callback=...)` plants
a broken host: the callback answers however the test wants.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ClientTasksCapability, ElicitRequestFormParams, ElicitResult, Request

from elicitkit._sdk import ExtendedClient, send_raw_request
from elicitkit.check import HostEndpoint
from elicitkit.check._host import policy_answer
from elicitkit.client import ElicitationConfig, RateLimit, ScriptedUI
from elicitkit.client._ui import FormQuestion, Reply
from elicitkit.results import AcceptedElicitation, CancelledElicitation, DeclinedElicitation
from support.inspector import InspectorHost

TS_SDK = Path(__file__).parents[1] / "peers" / "ts-sdk"
NODE = shutil.which("node")

Callback = Callable[[Any, Any], Awaitable[Any]]
RELATED = "io.modelcontextprotocol/related-task"

PAUSE = 4.0
"""Seconds a scripted person takes over a question whose `To do:` line says to take a moment."""


async def policy(context: Any, params: Any) -> ElicitResult:
    """The fixed policy as an SDK elicitation callback."""
    schema = params.requested_schema if isinstance(params, ElicitRequestFormParams) else None
    action, content = policy_answer(params.message, schema)
    return ElicitResult(action=action, content=content)


def _server(endpoint: HostEndpoint) -> Any:
    if endpoint.url is not None:
        return endpoint.url
    assert endpoint.command is not None
    return StdioServerParameters(command=endpoint.command[0], args=list(endpoint.command[1:]))


async def _each(endpoint: HostEndpoint, call: Callable[[str], Awaitable[Any]]) -> None:
    """Call every tool in order; a call that fails is the audit's to grade, not the driver's."""
    for tool in endpoint.tools:
        try:
            await call(tool)
        except Exception:  # a host that fails a call is graded, not raised
            continue


class _Unhurried(ScriptedUI):
    """A scripted person who takes a moment when the `To do:` line says to (the task question:
    the audit then sees the host's task `input_required` while they are asked)."""

    async def ask_form(self, question: FormQuestion) -> Reply:
        if question.message.rpartition("To do:")[2].strip().startswith("Take a moment"):
            await asyncio.sleep(PAUSE)
        return await super().ask_form(question)


@dataclass
class ElicitkitHost:
    """elicitkit's own `ElicitingClient`, its UI a `ScriptedUI` that follows the policy."""

    mode: str = "legacy"
    name: str = field(init=False)

    def __post_init__(self) -> None:
        era = "2025-11-25" if self.mode == "legacy" else "2026-07-28"
        self.name = f"elicitkit ElicitingClient ({era})"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        def reply(question: Any) -> Reply:
            if not isinstance(question, FormQuestion):
                return AcceptedElicitation()
            action, content = policy_answer(question.message, question.schema)
            if action == "decline":
                return DeclinedElicitation()
            if action == "cancel":
                return CancelledElicitation()
            return AcceptedElicitation({**question.initial, **(content or {})})

        # a person answers the battery one question at a time; the default rate limit is for floods
        config = ElicitationConfig(
            _Unhurried(otherwise=reply), modes=("form", "url"), rate_limit=RateLimit(burst=30), open_url=print
        )
        async with config.connect(_server(endpoint), mode=self.mode) as client:
            await _each(endpoint, lambda tool: client.call_tool(tool, {}))


@dataclass
class SdkHost:
    """The SDK's `mcp.Client` with an elicitation callback (the policy, or a planted one)."""

    name: str = "mcp.Client 2.3.0 with a callback"
    mode: str = "auto"
    callback: Callback = policy

    async def __call__(self, endpoint: HostEndpoint) -> None:
        async with Client(_server(endpoint), mode=self.mode, elicitation_callback=self.callback) as client:
            await _each(endpoint, lambda tool: client.call_tool(tool, {}))


@dataclass
class FastMCPHost:
    """FastMCP's `Client` with its documented four-argument handler, answering through the
    `response_type` FastMCP builds from the schema, as an application does."""

    name: str = "FastMCP Client 4.2.3"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        from fastmcp import Client as FastMCPClient
        from fastmcp.client.elicitation import ElicitResult as FastResult

        async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
            schema = params.requested_schema if isinstance(params, ElicitRequestFormParams) else None
            action, content = policy_answer(message, schema)
            if action != "accept" or response_type is None:
                return FastResult(action=action)
            return response_type(**(content or {}))

        assert endpoint.url is not None, "FastMCP's driver speaks Streamable HTTP"
        async with FastMCPClient(endpoint.url, elicitation_handler=handler, timeout=60) as client:
            await _each(endpoint, lambda tool: client.call_tool_mcp(tool, {}))


@dataclass
class TsSdkHost:
    """A TypeScript SDK client (v1 or v2) in a node script under tests/peers/ts-sdk."""

    version: int = 2
    pin_2026: bool = False
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = {1: "TypeScript SDK v1 1.32.2", 2: "TypeScript SDK v2 2.4.0"}[self.version]
        if self.pin_2026:
            self.name += " (pinned to 2026-07-28)"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        assert NODE is not None and endpoint.url is not None
        script = TS_SDK / f"host_audit_v{self.version}.mjs"
        process = await asyncio.create_subprocess_exec(
            NODE,
            str(script),
            *(["--2026"] if self.pin_2026 else []),
            endpoint.url,
            *endpoint.tools,
            cwd=TS_SDK,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _, err = await process.communicate()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert process.returncode == 0, err.decode()


HOSTS: tuple[Callable[[], Any], ...] = (
    lambda: ElicitkitHost("legacy"),
    lambda: ElicitkitHost("auto"),
    lambda: SdkHost("mcp.Client 2.3.0 with a callback (2025-11-25)", mode="legacy"),
    lambda: SdkHost(),
    lambda: FastMCPHost(),
    lambda: TsSdkHost(1),
    lambda: TsSdkHost(2),
    lambda: TsSdkHost(2, pin_2026=True),
    lambda: InspectorHost(),
    lambda: InspectorHost(era="auto"),
)
"""Every host this machine can run, in the order docs/hosts.md's matrix lists them."""


@dataclass
class PlantedTaskHost:
    """A planted host that declares `tasks.requests.elicitation.create` and runs the task-augmented
    question as a task of its own, by hand, with one `fault` (or none): "never" (the task stays
    input_required and tasks/result never returns), "plain" (a plain answer instead of a task),
    "no-meta" (tasks/result without the related-task `_meta`), "cancel-ok" (an ended task's
    cancel accepted), "unknown-ok" (an unknown task id answered). It calls only `tools`."""

    fault: str = ""
    tools: tuple[str, ...] = ("audit_task_question", "audit_report")
    name: str = "a planted task host"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        tasks: dict[str, dict[str, Any]] = {}
        answers: dict[str, dict[str, Any]] = {}

        async def server_requests(session: Any, request_id: Any, method: str, params: Any) -> Any:
            params = dict(params or {})
            if method == "elicitation/create" and "task" in params and self.fault != "plain":
                now = datetime.now(UTC).isoformat()
                task = {"taskId": f"t{len(tasks) + 1}", "status": "working", "createdAt": now}
                task.update(lastUpdatedAt=now, ttl=params["task"].get("ttl"), pollInterval=100)
                tasks[task["taskId"]] = task
                action, content = policy_answer(params["message"], params.get("requestedSchema"))
                answers[task["taskId"]] = {"action": action, "content": content}
                return {"task": task}
            task = tasks.get(str(params.get("taskId")))
            if method not in ("tasks/get", "tasks/result", "tasks/cancel"):
                return None
            if task is None and self.fault != "unknown-ok":
                raise MCPError(INVALID_PARAMS, "No such task.")
            task = task or {"taskId": params.get("taskId"), "status": "completed"}
            task["status"] = "input_required" if self.fault == "never" else "completed"
            if method == "tasks/get":
                return task
            if method == "tasks/cancel":
                if self.fault == "cancel-ok":
                    return {**task, "status": "cancelled"}
                raise MCPError(INVALID_PARAMS, "The task has ended.")
            if self.fault == "never":
                await anyio.sleep_forever()
            meta = {} if self.fault == "no-meta" else {"_meta": {RELATED: {"taskId": task["taskId"]}}}
            return {**answers.get(task["taskId"], {}), **meta}

        client = ExtendedClient(_server(endpoint), mode="legacy", elicitation_callback=policy)
        client.tasks_capability = ClientTasksCapability.model_validate(
            {"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}}
        )
        client.server_requests = server_requests
        async with client:
            await _each(
                HostEndpoint(None, None, self.tools, endpoint.deadline), lambda t: client.call_tool(t, {})
            )


class _Raw(Request[dict[str, Any] | None, str]):
    """Any request, sent as written (its raw reply read back by `send_raw_request`)."""


@dataclass
class PlantedTaskCaller:
    """A planted host that calls `audit_task_tool` as a 2025-11-25 task by hand and polls it
    `polls` times, `gap` seconds apart; then reads `tasks/result` (where the task's question
    comes to the policy callback) unless `reads_result` is False; then calls `audit_report`."""

    gap: float = 0.6
    polls: int = 3
    reads_result: bool = True
    name: str = "a planted task caller"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        async with Client(_server(endpoint), mode="legacy", elicitation_callback=policy) as client:

            async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
                return await send_raw_request(client.session, _Raw(method=method, params=params))

            await client.list_tools()
            created = await send(
                "tools/call", {"name": "audit_task_tool", "arguments": {}, "task": {"ttl": 60_000}}
            )
            task = {"taskId": created["task"]["taskId"]}
            for _ in range(self.polls):
                await anyio.sleep(self.gap)
                await send("tasks/get", task)
            if self.reads_result:
                await send("tasks/result", task)
            await client.call_tool("audit_report", {})
