"""`ElicitingClient`: an `mcp.Client` whose elicitation is answered by an `ElicitationConfig`.

The SDK parts it needs that are not public come from `elicitkit._sdk` (pinned by
tests/test_sdk_adapter.py): `ExtendedClient` declares exactly the configured modes (C-01; mcp
2.3 declares both whenever an elicitation callback is set), pinned on the wire by
tests/client/test_wire.py, and hands the 2026-07-28 rounds to `rounds.drive_rounds` (one
consent per URL, a waiting screen, cancel sent to the server), pinned by
tests/interop/test_elicitkit_client_rounds.py. `_tapped_http` builds the SDK's default HTTP
client with the C-03 tap of `_association` on the standalone GET stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, fields
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import httpx2
from mcp.client import Client, Transport
from mcp.client.caching import CacheMode
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    InputResponses,
    ReadResourceResult,
    RequestParamsMeta,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._sdk import ExtendedClient, InMemoryTransport, TransportStreams
from elicitkit._sdk import http_client as sdk_http_client
from elicitkit.client._association import RequestWatch, StandaloneStreamTap, WatchedTransport
from elicitkit.client._connection import ServerElicitations
from elicitkit.client._retry import until_urls_complete
from elicitkit.client._rounds import RoundsPolicy, drive_rounds
from elicitkit.client._task_extension import TASKS_EXTENSION, TaskExtension
from elicitkit.client._tasks import ElicitationTasks
from elicitkit.client._tool_tasks import ToolTasks
from elicitkit.errors import ConfigurationError

if TYPE_CHECKING:
    from elicitkit.client._config import ElicitationConfig

_ResultT = TypeVar("_ResultT")

_SDK_INPUT_ROUNDS = next(f.default for f in fields(Client) if f.name == "input_required_max_rounds")
"""`Client.input_required_max_rounds` left as the SDK has it: the config's `input_rounds` then."""


_GET_STREAM_WAIT = 2.0
"""Seconds a new HTTP connection waits at most for the server to answer its standalone GET stream."""


class _GetStream:
    """Whether the server has answered the standalone GET stream the SDK opens after `initialize`.

    A stock server that asks from inside a tool on that stream (the TypeScript SDK's
    `server.server.elicitInput(...)`) drops the question when the stream is not open yet, and
    the call then waits forever; so a connection is handed over once the server has answered
    the stream (with any status), when it gave a session, the only case the SDK opens one.
    """

    def __init__(self) -> None:
        self.expected = False
        self.answered = False
        self._event: anyio.Event | None = None

    async def __call__(self, response: httpx2.Response) -> None:
        if response.request.method == "GET":
            self.answered = True
            if self._event is not None:
                self._event.set()
        elif response.headers.get("mcp-session-id"):
            self.expected = True

    async def wait(self) -> None:
        """Until the GET stream is answered, if one is coming; `_GET_STREAM_WAIT` at most."""
        if self.expected and not self.answered:
            self._event = anyio.Event()
            with anyio.move_on_after(_GET_STREAM_WAIT):
                await self._event.wait()


def _transport_for(
    server: str | StdioServerParameters | Transport | Server[Any] | MCPServer,
    watch: RequestWatch,
    http: httpx2.AsyncClient | None,
    get_stream: _GetStream,
) -> Transport:
    if isinstance(server, str):
        return _tapped_http(server, watch, http, get_stream)
    if isinstance(server, StdioServerParameters):
        return stdio_client(server)
    if isinstance(server, Server | MCPServer):
        return InMemoryTransport(server)
    return server


@asynccontextmanager
async def _tapped_http(
    url: str, watch: RequestWatch, given: httpx2.AsyncClient | None, get_stream: _GetStream
) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP (the caller's client or the SDK's default), tapped on the GET stream (C-03)."""
    async with AsyncExitStack() as stack:
        http = given if given is not None else await stack.enter_async_context(sdk_http_client())
        hooks: list[Callable[[httpx2.Response], Awaitable[None]]] = [StandaloneStreamTap(watch), get_stream]
        http.event_hooks["response"].extend(hooks)
        try:
            async with streamable_http_client(url, http_client=http) as streams:
                yield streams
        finally:  # a client given for several connections keeps only its own hooks
            http.event_hooks["response"] = [h for h in http.event_hooks["response"] if h not in hooks]


@dataclass
class ElicitingClient(ExtendedClient):
    """An `mcp.Client` that answers elicitation under `config`'s rules and waits out -32042.

    `call_tool`, `get_prompt` and `read_resource` keep their SDK signatures; a -32042 answer is
    handled by `until_urls_complete` and the call retried, so a caller sees the final result or
    one of the client's errors (`elicitkit.client`).
    """

    config: ElicitationConfig | None = field(default=None, kw_only=True)
    http_client: httpx2.AsyncClient | None = field(default=None, kw_only=True, repr=False)
    """For a URL `server`: the HTTP client to use (headers, auth, timeouts); the caller closes it."""
    rounds: RoundsPolicy = field(default_factory=RoundsPolicy, kw_only=True)
    """How a 2026-07-28 call waits for a URL: backoff and the re-ask bound (see `rounds`)."""
    wire: Callable[[Transport], Transport] | None = field(default=None, kw_only=True, repr=False)
    """Wraps the transport this client builds, below its own watch of the wire (a proxy's layer)."""
    elicitations: ServerElicitations = field(init=False, repr=False, compare=False)
    _elicitation_tasks: ElicitationTasks = field(init=False, repr=False, compare=False)
    _tool_tasks: ToolTasks = field(init=False, repr=False, compare=False)
    _get_stream: _GetStream = field(default_factory=_GetStream, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.config is None:
            raise ConfigurationError(
                "ElicitingClient needs its configuration: pass config=ElicitationConfig(...)."
            )
        if self.elicitation_callback is not None:
            raise ConfigurationError(
                "ElicitingClient answers elicitation under its config; omit elicitation_callback."
            )
        watch = RequestWatch(standalone=self.config.standalone_stream)
        self.elicitations = ServerElicitations(self.config, watch)
        self.elicitation_callback = self.elicitations
        self._elicitation_tasks = ElicitationTasks(self.elicitations)
        if self.config.tasks:  # the server's questions asked as tasks (T-10..T-19)
            self.tasks_capability = self.config.tasks_capability
            self.server_requests = self._elicitation_tasks
        self.message_handler = _tee(self.elicitations.on_message, self.message_handler)
        self._tool_tasks = ToolTasks(self, self.elicitations)
        watch.task_status = self._tool_tasks.status_arrived
        self.message_handler = _tee(self._tool_tasks.on_message, self.message_handler)
        if self.input_required_max_rounds == _SDK_INPUT_ROUNDS:
            self.input_required_max_rounds = self.config.input_rounds
        if not any(e.identifier == TASKS_EXTENSION for e in self.extensions or ()):  # 2026-07-28 tasks
            tasks = TaskExtension(self.elicitations, self.rounds, self.input_required_max_rounds)
            self.extensions = [*(self.extensions or ()), tasks]
        self.elicitation_capability = self.config.capability  # exactly the configured modes (C-01)
        self.input_required_driver = self._drive_rounds
        transport = _transport_for(self.server, watch, self.http_client, self._get_stream)
        if self.wire is not None:
            transport = self.wire(transport)
        self.server = WatchedTransport(transport, watch)
        super().__post_init__()

    async def _drive_rounds(
        self,
        first: _ResultT | InputRequiredResult,
        retry: Callable[[InputResponses | None, str | None], Awaitable[_ResultT | InputRequiredResult]],
    ) -> _ResultT:
        """2026-07-28 rounds by `drive_rounds`: one consent per URL, a waiting screen, cancel wins."""
        return await drive_rounds(
            self.elicitations,
            self.session,
            first,
            retry,
            policy=self.rounds,
            max_rounds=self.input_required_max_rounds,
        )

    async def __aenter__(self) -> ElicitingClient:
        await self._elicitation_tasks.__aenter__()  # its questions outlive a call, not the client
        try:
            await super().__aenter__()
        except BaseException:
            await self._elicitation_tasks.__aexit__(None, None, None)
            raise
        info = self.server_info
        if info is not None:
            self.elicitations.learn_server_name(info.title or info.name)
        if self.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await self._get_stream.wait()  # see `_GetStream`
        return self

    async def tasks_answered(self) -> None:
        """Until every question the server asked as a task (T-12) has its answer or was cancelled.

        Such a question outlives the call that asked it; a UI that shares its screen with
        something else (`elicitkit client`'s prompt) waits here before taking the screen back."""
        await self._elicitation_tasks.answered()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            await super().__aexit__(kind, error, trace)
        finally:
            await self._elicitation_tasks.__aexit__(None, None, None)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: ProgressFnT | None = None,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
        meta: RequestParamsMeta | None = None,
        task: bool | None = None,
        task_timeout: float | None = None,
    ) -> CallToolResult:
        """`mcp.Client.call_tool`, retried after the URL elicitations a -32042 lists complete (C-21).

        On 2025-11-25 a tool whose `execution.taskSupport` is "required" is called as a task, and
        so is an "optional" one with `task=True` (`task=False` never): the client polls the task,
        answers its questions and returns its result as a plain call would (T-20..T-25).
        `task_timeout` seconds bound such a call: when they run out the task is cancelled on the
        server (`ToolTaskCancelledError`), as it is when the call is cancelled here (Ctrl-C).
        """
        if await self._tool_tasks.wanted(name, task):
            call_as_task = self._tool_tasks.call  # a malformed result, a -32042: as a plain call
            return await self._explained(
                lambda: call_as_task(name, arguments, deadline=task_timeout, meta=meta)
            )
        call = super().call_tool
        result = await self._explained(
            lambda: call(
                name,
                arguments,
                read_timeout_seconds,
                progress_callback,
                input_responses=input_responses,
                request_state=request_state,
                meta=meta,
            )
        )
        if result.is_error:
            said = [c.text for c in result.content if isinstance(c, TextContent)]
            self.elicitations.explain_no_questions(self.protocol_version, said)
        return result

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
        meta: RequestParamsMeta | None = None,
    ) -> GetPromptResult:
        """`mcp.Client.get_prompt`, with the same -32042 handling as `call_tool`."""
        get = super().get_prompt
        return await self._explained(
            lambda: get(
                name, arguments, input_responses=input_responses, request_state=request_state, meta=meta
            )
        )

    async def read_resource(
        self,
        uri: str,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
        meta: RequestParamsMeta | None = None,
        cache_mode: CacheMode = "use",
    ) -> ReadResourceResult:
        """`mcp.Client.read_resource`, with the same -32042 handling as `call_tool`."""
        read = super().read_resource
        return await self._explained(
            lambda: read(
                uri,
                input_responses=input_responses,
                request_state=request_state,
                meta=meta,
                cache_mode=cache_mode,
            )
        )

    async def _explained(self, call: Callable[[], Awaitable[_ResultT]]) -> _ResultT:
        """`call` through the -32042 retry; an error saying the server cannot ask on this
        revision gets its one-sentence cure for the person (`explain_no_questions`)."""
        try:
            return await until_urls_complete(self.elicitations, call)
        except MCPError as error:
            self.elicitations.explain_no_questions(self.protocol_version, [error.error.message])
            raise


def _tee(first: MessageHandlerFnT, then: MessageHandlerFnT | None) -> MessageHandlerFnT:
    async def handle(message: IncomingMessage) -> None:
        await first(message)
        if then is not None:
            await then(message)

    return handle
