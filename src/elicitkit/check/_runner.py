"""`run`: connect to the target several ways, call its tools, answer every way, and judge.

For each revision the server speaks (2025-11-25 by initialize, 2026-07-28 by discover), it
connects declaring form+url, then form only, url only and no elicitation, and calls each tool
with arguments built from its input schema. On the form+url connection every tool that asked
something is called again to decline, to cancel and with each invalid answer. At 2025-11-25
a server with tasks has its task-required tools called as tasks throughout, then `tasks` probes
the task rules (T-01 ... T-09, T-40). Two concurrent sessions then watch where completion notices go
(S-23). Nothing opens a URL here.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp_types import Tool

from elicitkit.check._answers import arguments, invalid_answers
from elicitkit.check._findings import Findings
from elicitkit.check._observed import Call, Connection, Observations
from elicitkit.check._rules import judge
from elicitkit.check._session import LEGACY, MODERN, CheckSession
from elicitkit.check._target import Target, TargetError

DECLARATIONS: tuple[frozenset[str], ...] = (
    frozenset({"form", "url"}),
    frozenset({"form"}),
    frozenset({"url"}),
    frozenset(),
)

Progress = Callable[[str], None]


@dataclass
class Options:
    """What to call and how long to wait."""

    #: tool name -> arguments (None: built from the input schema); empty: every listed tool
    tools: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    timeout: float = 10.0
    other_token: str | None = None
    browser: bool = False


@dataclass
class Report:
    """The outcome of one run."""

    target: str
    protocol_versions: list[str]
    findings: Findings
    seen: Observations

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data: the target, the revisions it spoke, and one finding per
        ID (what `elicitkit check --json` prints; `seen` stays out)."""
        return {
            "target": self.target,
            "protocol_versions": self.protocol_versions,
            "findings": [f.to_dict() for f in self.findings.all()],
        }


class _Run:
    def __init__(self, target: Target, options: Options, progress: Progress) -> None:
        self.target = target
        self.options = options
        self.progress = progress
        self.seen = Observations(one_server=target.is_http)
        self.versions: list[str] = []
        self.tools: list[Tool] = []

    def connection(self, revision: str, declared: frozenset[str]) -> Connection:
        connection = Connection(len(self.seen.connections) + 1, revision, declared)
        self.seen.connections.append(connection)
        return connection

    def session(self, revision: str, declared: frozenset[str], target: Target | None = None) -> CheckSession:
        mode = "legacy" if revision == LEGACY else MODERN
        session = CheckSession(
            target or self.target,
            self.connection(revision, declared),
            self.seen,
            timeout=self.options.timeout,
            mode=mode,
        )
        if revision == LEGACY:
            session.as_task = frozenset(t.name for t in self.tools if self.task_support(t) == "required")
        return session

    def task_support(self, tool: Tool) -> str | None:
        """How `tool` may be called as a task at 2025-11-25: "required", "optional", or None (not
        at all: forbidden, or the server declared no `tasks.requests.tools.call`)."""
        requests = (self.seen.server_tasks or {}).get("requests")
        tools = requests.get("tools") if isinstance(requests, dict) else None
        if not (isinstance(tools, dict) and isinstance(tools.get("call"), dict)):
            return None
        support = tool.execution.task_support if tool.execution is not None else None
        return support if support in ("required", "optional") else None

    async def revisions(self) -> tuple[list[str], list[Tool]]:
        """The revisions the target speaks, and its tools; TargetError when it speaks neither."""
        found: list[str] = []
        tools: list[Tool] = []
        why = ""
        for revision, mode in ((LEGACY, "legacy"), (MODERN, "auto")):
            self.progress(f"connecting at {revision}")
            connection = self.connection(revision, DECLARATIONS[0])
            try:
                async with CheckSession(
                    self.target, connection, self.seen, timeout=self.options.timeout, mode=mode
                ) as probe:
                    if revision == MODERN and connection.revision != MODERN:
                        continue
                    found.append(connection.revision)
                    tools = tools or await probe.tools()
                    if revision == LEGACY:
                        self.seen.server_tasks = probe.server_tasks
                        self.seen.task_support = {
                            t.name: t.execution.task_support
                            for t in tools
                            if t.execution is not None and t.execution.task_support is not None
                        }
            except Exception as error:  # any failure here is "cannot connect", said in a sentence
                why = why or _reason(error)
        if not found and self.target.last_http_error is not None:
            status = self.target.last_http_error
            why = (
                f"it answered HTTP {status}: it needs authorization; pass --user-token"
                if status in (401, 403)
                else f"it answered HTTP {status}; is it an MCP endpoint (streamable HTTP)? "
                "Check the URL's path (often /mcp)"
            )
        if not found:
            raise TargetError(
                f"Could not connect to {self.target.name}: {why or 'no protocol revision in common'}."
            )
        return found, tools

    async def calls(self, revision: str, tools: Sequence[Tool]) -> None:
        asking: dict[str, dict[str, Any]] = {}
        for declared in DECLARATIONS:
            names = [t.name for t in tools] if declared == DECLARATIONS[0] else list(asking)
            if not names:
                continue
            async with self.session(revision, declared) as session:
                for tool in tools:
                    if tool.name not in names:
                        continue
                    args = self._arguments(tool)
                    self.progress(f"{session.connection.label}: tool {tool.name}")
                    call = await session.call(tool.name, args)
                    if declared == DECLARATIONS[0] and call.asked:
                        asking[tool.name] = args
                if declared == DECLARATIONS[0]:
                    await self._answers(session, asking)

    async def _answers(self, session: CheckSession, asking: dict[str, dict[str, Any]]) -> None:
        for name, args in asking.items():
            label = f"{session.connection.label}: tool {name}"
            for strategy in ("decline", "cancel"):
                self.progress(f"{label} ({strategy})")
                await session.call(name, args, strategy)
            first = _first_form(self.seen.calls, session.connection, name)
            if first is None:
                continue
            for what, content, problems in invalid_answers(first):
                self.progress(f"{label} (invalid: {what})")
                await session.call(name, args, "invalid", (content, problems))

    async def notices(self, tools: Sequence[Tool]) -> None:
        """Two sessions at once, both asked, only the first accepts: a notice in the second is misrouted."""
        url_tools = sorted(
            {
                a.tool
                for a in self.seen.asked
                if a.mode == "url" and a.tool and a.connection.revision == LEGACY
            }
        )
        if not url_tools:
            return
        by_name = {t.name: t for t in tools}
        async with (
            self.session(LEGACY, DECLARATIONS[0]) as first,
            self.session(LEGACY, DECLARATIONS[0]) as second,
        ):
            for name in url_tools:
                args = self._arguments(by_name[name]) if name in by_name else {}
                self.progress(f"{first.connection.label} and {second.connection.label}: tool {name}")
                await second.call(name, args, "decline")
                await first.call(name, args)
            await anyio.sleep(0.5)

    async def tasks(self, tools: Sequence[Tool]) -> None:
        """The task rules (2025-11-25): each optional task tool called as a task (the required ones
        were, in the calls), each required one called without `task`, task ids nobody was given,
        and, with both tokens, the first user's tasks asked for as the second user."""
        if self.seen.server_tasks is None:
            return
        supports = {t.name: self.task_support(t) for t in tools}
        async with self.session(LEGACY, DECLARATIONS[0]) as session:
            for tool in tools:
                args = self._arguments(tool)
                if supports[tool.name] == "optional":
                    self.progress(f"{session.connection.label}: tool {tool.name} (as a task)")
                    await session.call_as_task(tool.name, args)
                elif supports[tool.name] == "required":
                    self.progress(f"{session.connection.label}: tool {tool.name} (without a task)")
                    reply = await session.request("tools/call", {"name": tool.name, "arguments": args})
                    self.seen.task_probes.append(("without-task", reply))
            unknown = f"elicitkit-check-no-such-task-{uuid.uuid4().hex}"
            methods = ["tasks/get", "tasks/result"] + (["tasks/cancel"] if session.cancels else [])
            self.progress(f"{session.connection.label}: a task id nobody was given")
            for method in methods:
                self.seen.task_probes.append(("unknown", await session.request(method, {"taskId": unknown})))
        other = self.options.other_token
        ids = [run.task_id for run in self.seen.task_runs if run.task_id is not None][:2]
        if not (other and self.target.token and self.target.is_http and ids):
            return
        async with self.session(
            LEGACY, DECLARATIONS[0], dataclasses.replace(self.target, token=other)
        ) as second:
            self.progress(f"{second.connection.label}: the first user's tasks, as the other user")
            for task_id in ids:
                for method in ("tasks/get", "tasks/result"):
                    self.seen.task_probes.append(
                        ("other-user", await second.request(method, {"taskId": task_id}))
                    )

    async def users(self, browser: Any) -> None:
        """S-34 on live URLs: each tool that asked in URL mode, called again as the first user."""
        from elicitkit.check._users import check_users

        if not (self.options.other_token and self.target.token):
            return
        by_name = {t.name: t for t in self.tools}
        names = dict.fromkeys(a.tool for a in self.seen.asked if a.mode == "url" and a.tool in by_name)
        revision = LEGACY if LEGACY in self.versions else MODERN
        await check_users(
            browser,
            [(name, self._arguments(by_name[name])) for name in names if name is not None],
            lambda: self.session(revision, DECLARATIONS[0]),
            (self.target.token, self.options.other_token),
            self.seen,
            self.progress,
        )

    async def guarded(self, stage: Awaitable[None], what: str) -> None:
        """Run one stage; a server that dies or hangs up ends that stage with a note, not the run."""
        try:
            await stage
        except Exception as error:  # the report goes on with what was seen
            note = f"{what} stopped early: {_reason(error)}"
            self.seen.notes.append(note)
            self.progress(note)

    def _arguments(self, tool: Tool) -> dict[str, Any]:
        given = self.options.tools.get(tool.name)
        return given if given is not None else arguments(tool.input_schema or {})


async def run(target: Target, options: Options | None = None, *, progress: Progress | None = None) -> Report:
    """Check `target`; raise `TargetError` (with a sentence) when it cannot be reached."""
    options = options or Options()
    state = _Run(target, options, progress or (lambda _: None))
    versions, tools = await state.revisions()
    if options.tools:
        missing = [name for name in options.tools if name not in {t.name for t in tools}]
        if missing:
            raise TargetError(f"{target.name} lists no tool named {', '.join(missing)}.")
        tools = [t for t in tools if t.name in options.tools]
    state.versions, state.tools = versions, tools
    legacy = any(v != MODERN for v in versions)
    if legacy:
        await state.guarded(state.calls(LEGACY, tools), f"the {LEGACY} calls")
        await state.guarded(state.tasks(tools), "the task checks")
    if MODERN in versions:
        await state.guarded(state.calls(MODERN, tools), f"the {MODERN} calls")
    if legacy:
        await state.guarded(state.notices(tools), "the two-session check")
    if options.browser:
        from elicitkit.check._browser import visit

        await visit(state.seen, state.progress, state.users)
    secrets = [s for s in (target.token, options.other_token) if s]
    return Report(target.name, versions, judge(state.seen, secrets=secrets), state.seen)


def _first_form(calls: Sequence[Call], connection: Connection, tool: str) -> dict[str, Any] | None:
    for call in calls:
        if call.connection is connection and call.tool == tool:
            for asked in call.asked:
                schema = asked.params.get("requestedSchema")
                if asked.mode == "form" and isinstance(schema, dict):
                    return schema
    return None


def _reason(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "it did not answer the handshake in time"
    text = str(error).strip() or type(error).__name__
    return text.rstrip(".")
