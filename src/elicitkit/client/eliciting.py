"""`ElicitingClient`: an `mcp.Client` whose elicitation is answered by an `ElicitationHandler`.

It is the only place elicitkit reaches below the SDK's public API. `_tapped_http` builds the
SDK's default HTTP client with the C-03 tap of `_association` on the standalone GET stream.
mcp 2.3.0 declares both `form` and `url` whenever an elicitation callback is set, with no
switch; `_build_session` swaps in a capability builder that declares exactly the configured
modes (C-01), on every path the SDK builds capabilities from (initialize, discover, the
2026-07-28 per-request `_meta`). tests/client/test_wire.py pins the result on the wire. The
SDK's `_drive_input_required` is replaced too: the 2026-07-28 rounds go through
`rounds.drive_rounds` (one consent per URL, a waiting screen, cancel sent to the server),
pinned by tests/interop/test_elicitkit_client_rounds.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import httpx2
from mcp.client import Client, ClientSession, Transport
from mcp.client._input_required import DEFAULT_INPUT_REQUIRED_MAX_ROUNDS
from mcp.client._memory import InMemoryTransport
from mcp.client._transport import TransportStreams
from mcp.client.caching import CacheMode
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp_types import (
    CallToolResult,
    ClientCapabilities,
    GetPromptResult,
    InputRequiredResult,
    InputResponses,
    ReadResourceResult,
    RequestParamsMeta,
)

from elicitkit.client._association import RequestWatch, StandaloneStreamTap, WatchedTransport
from elicitkit.client.connection import ServerElicitations
from elicitkit.client.retry import until_urls_complete
from elicitkit.client.rounds import RoundsPolicy, drive_rounds

if TYPE_CHECKING:
    from elicitkit.client.handler import ElicitationHandler

_ResultT = TypeVar("_ResultT")


def _transport_for(
    server: str | StdioServerParameters | Transport | Server[Any] | MCPServer,
    watch: RequestWatch,
    http: httpx2.AsyncClient | None,
) -> Transport:
    if isinstance(server, str):
        return _tapped_http(server, watch, http)
    if isinstance(server, StdioServerParameters):
        return stdio_client(server)
    if isinstance(server, Server | MCPServer):
        return InMemoryTransport(server)
    return server


@asynccontextmanager
async def _tapped_http(
    url: str, watch: RequestWatch, given: httpx2.AsyncClient | None
) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP (the caller's client or the SDK's default), tapped on the GET stream (C-03)."""
    async with AsyncExitStack() as stack:
        http = given if given is not None else await stack.enter_async_context(create_mcp_http_client())
        http.event_hooks["response"].append(StandaloneStreamTap(watch))
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


@dataclass
class ElicitingClient(Client):
    """An `mcp.Client` that answers elicitation under `handler`'s rules and waits out -32042.

    `call_tool`, `get_prompt` and `read_resource` keep their SDK signatures; a -32042 answer is
    handled by `until_urls_complete` and the call retried, so a caller sees the final result or
    one of `elicitkit.client.errors`.
    """

    handler: ElicitationHandler | None = field(default=None, kw_only=True)
    http_client: httpx2.AsyncClient | None = field(default=None, kw_only=True, repr=False)
    """For a URL `server`: the HTTP client to use (headers, auth, timeouts); the caller closes it."""
    rounds: RoundsPolicy = field(default_factory=RoundsPolicy, kw_only=True)
    """How a 2026-07-28 call waits for a URL: backoff and the re-ask bound (see `rounds`)."""
    elicitations: ServerElicitations = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.handler is None:
            raise TypeError("ElicitingClient needs handler=ElicitationHandler(...).")
        if self.elicitation_callback is not None:
            raise ValueError(
                "ElicitingClient answers elicitation with its handler; omit elicitation_callback."
            )
        watch = RequestWatch(trust_standalone=self.handler.standalone_stream == "during-call")
        self.elicitations = ServerElicitations(self.handler, watch)
        self.elicitation_callback = self.elicitations
        self.message_handler = _tee(self.elicitations.on_message, self.message_handler)
        if self.input_required_max_rounds == DEFAULT_INPUT_REQUIRED_MAX_ROUNDS:
            self.input_required_max_rounds = self.handler.input_rounds
        self.server = WatchedTransport(_transport_for(self.server, watch, self.http_client), watch)
        super().__post_init__()

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        sdk_build = session._build_capabilities
        declared = self.elicitations.handler.capability

        def declare_configured_modes(version: str) -> ClientCapabilities:
            return sdk_build(version).model_copy(update={"elicitation": declared})

        session._build_capabilities = declare_configured_modes  # type: ignore[method-assign]
        return session

    async def _drive_input_required(
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
        await super().__aenter__()
        info = self.server_info
        if info is not None:
            self.elicitations.learn_server_name(info.title or info.name)
        return self

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
    ) -> CallToolResult:
        """`mcp.Client.call_tool`, retried after the URL elicitations a -32042 lists complete (C-21)."""
        call = super().call_tool
        return await until_urls_complete(
            self.elicitations,
            lambda: call(
                name,
                arguments,
                read_timeout_seconds,
                progress_callback,
                input_responses=input_responses,
                request_state=request_state,
                meta=meta,
            ),
        )

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
        return await until_urls_complete(
            self.elicitations,
            lambda: get(
                name, arguments, input_responses=input_responses, request_state=request_state, meta=meta
            ),
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
        return await until_urls_complete(
            self.elicitations,
            lambda: read(
                uri,
                input_responses=input_responses,
                request_state=request_state,
                meta=meta,
                cache_mode=cache_mode,
            ),
        )


def _tee(first: MessageHandlerFnT, then: MessageHandlerFnT | None) -> MessageHandlerFnT:
    async def handle(message: IncomingMessage) -> None:
        await first(message)
        if then is not None:
            await then(message)

    return handle
