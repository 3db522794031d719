"""`ElicitationConfig`: the configuration a host writes once (modes, UI, limits, timeouts).

Configuration only: it imports nothing of the engine it configures. Each connection gets its
own `ServerElicitations` (`elicitkit.client._connection`), which reads the config and is the
one owner of that connection's state; the retry and rounds drivers receive that. The one way
from here into the engine is `connect`, a convenience that makes an `ElicitingClient` when
called.
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio
from mcp_types import (
    ClientTasksCapability,
    ClientTasksRequestsCapability,
    ElicitationCapability,
    FormElicitationCapability,
    TasksCancelCapability,
    TasksCreateElicitationCapability,
    TasksElicitationCapability,
    TasksListCapability,
    UrlElicitationCapability,
)

from elicitkit.client._limits import RateLimit, Sizes
from elicitkit.client._ui import ElicitationUI
from elicitkit.errors import ConfigurationError

__all__ = [
    "DEFAULT_INPUT_ROUNDS",
    "ElicitationConfig",
    "Mode",
    "StandalonePolicy",
    "UrlOpener",
    "open_in_system_browser",
]

if TYPE_CHECKING:
    from mcp.client import Transport
    from mcp.client.client import ConnectMode
    from mcp.client.session import MessageHandlerFnT
    from mcp.client.stdio import StdioServerParameters
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from elicitkit.client._eliciting import ElicitingClient


Mode = Literal["form", "url"]
UrlOpener = Callable[[str], bool]

StandalonePolicy = Literal["one-call", "refuse"]
"""What a request on the standalone GET stream gets: the open call's when it is the only one
("one-call"), or -32602 always ("refuse")."""

DEFAULT_INPUT_ROUNDS = 10_000
"""2026-07-28 rounds before giving up. The SDK polls a waiting server at most every 250 ms, so
its default of 10 rounds gives up after about 2 s; 10 000 allows about 40 minutes, time for a
person to finish a browser flow."""


def open_in_system_browser(url: str) -> bool:
    """Open `url` in the system browser: `webbrowser` only, never a shell, never fetched (C-22)."""
    return webbrowser.open(url, new=2)


@dataclass
class ElicitationConfig:
    """How this client answers elicitation: which modes, which UI, what limits and timeouts.

    `modes` ("form", "url" or both) is declared exactly as given (C-01). `wait_timeout` is how
    long a call held by -32042 waits for completion notices before the person is pressed to
    retry or cancel (C-21). `input_rounds` caps the 2026-07-28 rounds. `rate_limit` and `sizes`
    bound what one server may put in front of the person (see `elicitkit.client._limits`).
    `open_url` is the system browser unless a test injects a recorder.

    `standalone_stream` decides an `elicitation/create` that arrives on streamable HTTP's
    standalone GET stream, which names no call. "one-call" (the default) takes it as the open
    call's when exactly one call is open on the connection: that is how stock servers ask from
    inside a tool (the TypeScript SDK's `server.server.elicitInput(...)`, the official
    conformance harness's mock server). "refuse" is the strict reading of C-03 (that stream
    carries messages unrelated to any request) and answers -32602 always. Either way it is
    refused before any call, after the last one, and while several calls are open, since
    nothing says which one it belongs to (C-03).

    `tasks` (on by default) declares `tasks.requests.elicitation.create` with `list` and
    `cancel` on 2025-11-25 connections: a server may then ask as a task, which returns at once
    and waits for the person in the background, asked the same way under the same rules
    (T-10..T-19). With `tasks=False` nothing is declared, and a task-augmented request is
    answered as a plain one.

    `url_required` decides a call the server refuses with -32042 (URL elicitation required):
    "wait" (the default) asks the person's consent, opens each URL, waits for its completion
    and retries the call (C-21); "pass" raises it to the caller as the server sent it, for a
    gateway whose own host answers it.
    """

    ui: ElicitationUI
    modes: str | Collection[str] = ("form",)
    rate_limit: RateLimit = field(default_factory=RateLimit)
    sizes: Sizes = field(default_factory=Sizes)
    wait_timeout: float = 300.0
    input_rounds: int = DEFAULT_INPUT_ROUNDS
    allow_http: bool = False
    server_name: str | None = None
    open_url: UrlOpener = open_in_system_browser
    standalone_stream: StandalonePolicy = "one-call"
    tasks: bool = True
    url_required: Literal["wait", "pass"] = "wait"
    _turn: anyio.Lock | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.modes, str):
            self.modes = (self.modes,)
        unknown = set(self.modes) - {"form", "url"}
        if unknown or not self.modes:
            raise ConfigurationError(
                f"modes must be a non-empty choice of 'form' and 'url', not {sorted(self.modes)!r}."
            )
        if self.url_required not in ("wait", "pass"):
            raise ConfigurationError(f"url_required must be 'wait' or 'pass', not {self.url_required!r}.")
        if self.standalone_stream not in ("one-call", "refuse"):
            raise ConfigurationError(
                f"standalone_stream must be 'one-call' or 'refuse', not {self.standalone_stream!r}."
            )

    @property
    def capability(self) -> ElicitationCapability:
        """The `elicitation` capability object to declare: exactly the configured modes (C-01)."""
        return ElicitationCapability(
            form=FormElicitationCapability() if "form" in self.modes else None,
            url=UrlElicitationCapability() if "url" in self.modes else None,
        )

    @property
    def tasks_capability(self) -> ClientTasksCapability | None:
        """The `tasks` capability to declare on 2025-11-25 (T-10), or None with `tasks=False`."""
        if not self.tasks:
            return None
        elicitation = TasksElicitationCapability(create=TasksCreateElicitationCapability())
        return ClientTasksCapability(
            list=TasksListCapability(),
            cancel=TasksCancelCapability(),
            requests=ClientTasksRequestsCapability(elicitation=elicitation),
        )

    if not TYPE_CHECKING:  # run time only: mypy keeps rejecting the config where the SDK types a callback

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            raise ConfigurationError(
                "An ElicitationConfig is the configuration, not the callback: give fastmcp.Client "
                "**for_fastmcp(config).client_options(), an SDK session or google-adk "
                "for_sdk_session(config) (both in elicitkit.client), or connect with "
                "config.connect(url)."
            )

    def ui_turn(self) -> anyio.Lock:
        """One question on the UI at a time, across every server answered under this config."""
        if self._turn is None:
            self._turn = anyio.Lock()
        return self._turn

    def connect(
        self,
        server: str | StdioServerParameters | Transport | Server[Any] | MCPServer,
        *,
        mode: ConnectMode = "auto",
        message_handler: MessageHandlerFnT | None = None,
        **client_options: Any,
    ) -> ElicitingClient:
        """An `mcp.Client` for `server` (URL, stdio parameters or Transport) answering under this config.

        The same as `ElicitingClient(server, config=self, ...)`; the engine is imported only here."""
        from elicitkit.client._eliciting import ElicitingClient

        return ElicitingClient(
            server, config=self, mode=mode, message_handler=message_handler, **client_options
        )
