"""What the checker saw: connections, calls, the questions asked in them, and notices.

The runner fills these in; the rules only read them. Everything keeps the raw JSON as it came
off the wire, so a finding can quote the exact request or response that shows it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["form", "url"]
Source = Literal["request", "input-required", "-32042"]


@dataclass
class Connection:
    """One client connection: the revision it speaks and the modes it declared."""

    number: int
    revision: str
    declared: frozenset[str]

    @property
    def label(self) -> str:
        modes = "+".join(sorted(self.declared)) or "no elicitation"
        return f"connection {self.number} ({self.revision}, {modes})"


@dataclass
class Asked:
    """One elicitation as the server sent it, raw."""

    connection: Connection
    tool: str | None
    source: Source
    params: dict[str, Any]
    #: for a wire `elicitation/create`: was a tools/call, prompts/get or resources/read open?
    in_flight: bool = True
    #: for HTTP: did it arrive on the standalone GET stream?
    standalone: bool = False

    @property
    def mode(self) -> str:
        mode = self.params.get("mode")
        return mode if isinstance(mode, str) else "form"

    def quote(self) -> str:
        where = f"tool {self.tool!r}" if self.tool else "no tool call"
        return f"{self.connection.label}, {where}, {self.source}: {short(self.params)}"


@dataclass
class Call:
    """One tool call, how the checker answered, and how it ended."""

    connection: Connection
    tool: str
    strategy: str
    asked: list[Asked] = field(default_factory=list)
    #: the answers sent, in order: (action, content or None)
    answers: list[tuple[str, dict[str, Any] | None]] = field(default_factory=list)
    #: for an invalid-answer call: the content sent and what is wrong with it
    invalid: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    outcome: Literal["result", "error", "timeout", "crash", "pending"] = "pending"
    is_error: bool = False
    text: str = ""
    error: dict[str, Any] | None = None

    def quote(self) -> str:
        if self.outcome == "result":
            ends = f"result isError={self.is_error}: {self.text[:200]!r}"
        elif self.outcome == "error":
            ends = f"JSON-RPC error {short(self.error)}"
        else:
            ends = self.outcome
        return f"{self.connection.label}, tool {self.tool!r} ({self.strategy}) -> {ends}"


@dataclass
class Notice:
    """A `notifications/elicitation/complete`, and the ids this connection had been given by then."""

    connection: Connection
    elicitation_id: Any
    known: frozenset[str]


@dataclass
class Reply:
    """One request the checker sent about a task (`tasks/get`, say), and the server's raw reply."""

    connection: Connection
    method: str
    params: dict[str, Any]
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def status(self) -> str | None:
        """The task status a `tasks/get` or `tasks/cancel` result gives (a `CreateTaskResult`'s too)."""
        task = self.result.get("task", self.result) if self.result is not None else None
        status = task.get("status") if isinstance(task, dict) else None
        return status if isinstance(status, str) else None

    def quote(self) -> str:
        sent = f"{self.method} {short(self.params, 160)}"
        said = f"error {short(self.error)}" if self.error is not None else f"result {short(self.result)}"
        return f"{self.connection.label}, {sent} -> {said}"


@dataclass
class Poll:
    """One `tasks/get` of a task run: the status it gave, when, and whether a question was open."""

    reply: Reply
    at: float
    asking: bool


@dataclass
class TaskRun:
    """One tool called as a task (2025-11-25): created, polled, its result fetched, probed after."""

    call: Call
    created: Reply
    polls: list[Poll] = field(default_factory=list)
    result: Reply | None = None
    #: the answers' times (anyio's clock), to tell a status seen after an answer from one before
    answered_at: list[float] = field(default_factory=list)
    #: once the task ended: a `tasks/get` again, and a `tasks/cancel` (which must be refused)
    after: Reply | None = None
    cancel: Reply | None = None

    @property
    def task_id(self) -> str | None:
        task = self.created.result.get("task") if self.created.result is not None else None
        task_id = task.get("taskId") if isinstance(task, dict) else None
        return task_id if isinstance(task_id, str) else None


@dataclass
class Observations:
    """Everything one run saw."""

    connections: list[Connection] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    asked: list[Asked] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    #: -32042 errors: (connection, tool, raw error object)
    url_required: list[tuple[Connection, str | None, dict[str, Any]]] = field(default_factory=list)
    #: results of the optional browser checks: (rule, verdict, evidence)
    browser: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: tools called as tasks, and the task probes: (what was probed, the reply)
    task_runs: list[TaskRun] = field(default_factory=list)
    task_probes: list[tuple[str, Reply]] = field(default_factory=list)
    #: the server's `tasks` capability at 2025-11-25 (None: it declared none)
    server_tasks: dict[str, Any] | None = None
    #: each tool's `execution.taskSupport` as listed at 2025-11-25 (tools that say none are left out)
    task_support: dict[str, str] = field(default_factory=dict)
    #: do all connections reach one server? (HTTP: yes; stdio: each connection starts its own)
    one_server: bool = True


def short(value: Any, limit: int = 400) -> str:
    """Compact JSON, cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
