"""The upstream server: where it is, which revision it speaks, and the elicitkit client that
speaks to it for one host session."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import re
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.client import ConnectMode
from mcp.client.session import LoggingFnT, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import (
    HEADER_MISMATCH,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._sdk import ExtendedClient
from elicitkit._sdk import http_client as create_mcp_http_client
from elicitkit.bridge._answering import RoutedUI, capture_params, host_opened
from elicitkit.bridge._calls import PostStreamTap, UpstreamCalls
from elicitkit.bridge._keepalive import finish_event_streams
from elicitkit.bridge._relayed import Relay
from elicitkit.bridge._rounds import passing_driver
from elicitkit.client import (
    ElicitationConfig,
    ElicitingClient,
    RateLimit,
    Sizes,
    UrlOpener,
    WatchedTransport,
    open_in_system_browser,
)
from elicitkit.errors import ConfigurationError, LifecycleError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["Limits", "Revisions", "Upstream", "connect", "upstream_client", "upstream_of"]

_AUTHORIZATION = "elicitkit.bridge._authorization"


@dataclass(frozen=True)
class Upstream:
    """The server behind the bridge: a Streamable HTTP `url`, or a `stdio` command.

    `headers` go with every HTTP request (a static token, say); `auth` is an `httpx.Auth`
    (by default, the bridge's own OAuth client for the server, when it is installed).
    """

    url: str | None = None
    stdio: StdioServerParameters | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth: Any = None
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if (self.url is None) == (self.stdio is None):
            raise ConfigurationError(
                "Give the upstream server as a URL or as a stdio command, not both or neither."
            )

    def http_client(self, auth: Any = None) -> httpx2.AsyncClient:
        """The HTTP client for one upstream session (its connections kept alive between calls):
        headers, and `auth` (or this upstream's own)."""
        client = create_mcp_http_client(headers=self.headers or None, auth=self.auth or auth)
        client.event_hooks["response"].append(finish_event_streams)
        return client

    def default_auth(self) -> Any:
        """The bridge's OAuth client for this server (`elicitkit.bridge.upstream_auth`), when it
        is an HTTP server without an `auth` of its own."""
        if self.url is None or self.auth is not None or importlib.util.find_spec(_AUTHORIZATION) is None:
            return None
        return importlib.import_module(_AUTHORIZATION).upstream_auth(self.url)

    def target(self) -> str | StdioServerParameters:
        """What the SDK's `Client` connects to: the URL, or the stdio command's parameters."""
        return self.url if self.url is not None else self.stdio  # type: ignore[return-value]


def upstream_of(target: str | StdioServerParameters | Upstream) -> Upstream:
    if isinstance(target, Upstream):
        return target
    if isinstance(target, StdioServerParameters):
        return Upstream(stdio=target)
    return Upstream(url=target)


def bridge_opener(fallback: UrlOpener) -> UrlOpener:
    """The client's URL opener: nothing when the host took the URL, `fallback` otherwise."""

    def open_url(url: str) -> bool:
        return True if host_opened() else fallback(url)

    return open_url


@dataclass
class _WatchedCalls(Client):
    """Comes between `ElicitingClient` and `Client` in `BridgeClient`: wraps the transport
    `ElicitingClient` built in one more watch, `calls`, before `Client` connects it."""

    calls: UpstreamCalls | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.calls is not None:
            self.server = WatchedTransport(self.server, self.calls)  # type: ignore[arg-type]
        super().__post_init__()


@dataclass
class BridgeClient(ElicitingClient, _WatchedCalls):
    """elicitkit's client, also noting which host call each upstream request is made for."""


@dataclass
class Limits:
    """Client limits for every upstream session (elicitkit's client defaults)."""

    rate_limit: RateLimit = field(default_factory=RateLimit)
    sizes: Sizes = field(default_factory=Sizes)
    wait_timeout: float = 300.0
    open_url: UrlOpener = open_in_system_browser


def upstream_client(
    upstream: Upstream,
    ui: RoutedUI,
    modes: frozenset[str],
    limits: Limits,
    *,
    http: httpx2.AsyncClient | None,
    message_handler: MessageHandlerFnT,
    logging_callback: LoggingFnT,
    mode: ConnectMode = "auto",
    calls: UpstreamCalls | None = None,
    relay: Relay | None = None,
    passes_url_required: bool = False,
) -> Client:
    """The client of one host session: elicitkit's, declaring `modes`; a plain one when none.
    With `relay`, it declares the sampling and roots its host declared and passes those
    requests to the host; with `passes_url_required`, a -32042 goes to the host unchanged."""
    options: dict[str, Any] = {
        "message_handler": message_handler,
        "logging_callback": logging_callback,
        "cache": None,
        "read_timeout_seconds": None,
        "mode": mode,
    }
    if relay is not None and relay.host.sampling is not None:
        options["sampling_callback"] = relay.sample
        options["sampling_capabilities"] = relay.host.sampling
    if relay is not None and relay.host.roots is not None:
        options["list_roots_callback"] = relay.list_roots
    roots = relay.host.roots if relay is not None else None
    if not modes:
        plain: ExtendedClient
        if upstream.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            transport: Any = streamable_http_client(upstream.url, http_client=http)
            if relay is not None and http is not None and calls is not None:
                # Sampling and roots go to the host call they serve: tie them as questions are.
                http.event_hooks["response"].append(PostStreamTap(calls))
                transport = WatchedTransport(transport, calls)
            plain = ExtendedClient(transport, **options)
        else:
            plain = ExtendedClient(upstream.target(), **options)
        plain.input_required_driver = passing_driver(plain, relay.host.relays if relay else frozenset())
        plain.roots_capability = roots
        return plain
    config = ElicitationConfig(
        ui=ui,
        modes=tuple(sorted(modes)),
        rate_limit=limits.rate_limit,
        sizes=limits.sizes,
        wait_timeout=limits.wait_timeout,
        open_url=bridge_opener(limits.open_url),
        url_required="pass" if passes_url_required else "wait",
    )
    if http is not None and calls is not None:
        http.event_hooks["response"].append(PostStreamTap(calls))
    client = BridgeClient(
        upstream.target(),
        config=config,
        http_client=http,
        calls=calls,
        **options,
    )
    client.elicitation_callback = capture_params(client.elicitations, ui)
    client.input_required_driver = passing_driver(client)
    client.roots_capability = roots
    return client


# -- which revision, and a connection that says what went wrong


_PINS: dict[str, ConnectMode] = {"auto": "auto", "2025-11-25": "legacy", "2026-07-28": "2026-07-28"}
_VERSION_WORDS = re.compile(r"protocol[ _-]?version", re.IGNORECASE)


class Revisions:
    """The revision the bridge speaks upstream for a host of either era.

    `setting` "find" (the default) tries the host's own revision first (stock servers answer it
    best) and, when the server refuses it as one it does not speak, the other; what the first
    session of each era found is kept for the bridge's life, so no later session probes again.
    "host" pins the host's revision, "auto" the newest both speak (the SDK's probe), and a
    revision pins that one."""

    def __init__(self, setting: str) -> None:
        self.setting = setting
        self._found: dict[bool, ConnectMode] = {}

    def to_try(self, modern: bool) -> tuple[ConnectMode, ...]:
        """The connect modes for a host session (`modern`: a 2026-07-28 host), in order."""
        if self.setting in _PINS:
            return (_PINS[self.setting],)
        if self.setting == "host":
            return ("auto",) if modern else ("legacy",)
        found = self._found.get(modern)
        if found is not None:
            return (found,)
        return ("auto",) if modern else ("legacy", "auto")

    def found(self, modern: bool, client: Client) -> None:
        """`client` connected: what its server speaks is what the next session of that era uses."""
        if self.setting == "find":
            version = client.protocol_version
            self._found[modern] = version if version in MODERN_PROTOCOL_VERSIONS else "legacy"


def speaks_another_revision(error: BaseException) -> bool:
    """Did the server refuse the connection for its revision (an initialize refused as
    unsupported or unknown, a 400 that names the protocol version), not for anything else?"""
    if not isinstance(error, MCPError):
        return False
    codes = (UNSUPPORTED_PROTOCOL_VERSION, METHOD_NOT_FOUND, HEADER_MISMATCH)
    return error.code in codes or bool(_VERSION_WORDS.search(error.message))


class EndpointWatch:
    """An httpx response hook on an upstream session's HTTP client: the last answer the server's
    URL gave a POST, for the sentence a failed connection gets (`sentence`).

    The SDK's transport reads a 404 as "Method not found" and a web page as an unexpected
    content type, which blame the protocol; a person needs to hear that the URL is wrong."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._target = httpx2.URL(url)
        self._last: tuple[int, str, str] | None = None

    async def __call__(self, response: httpx2.Response) -> None:
        request = response.request
        if request.method == "POST" and request.url == self._target:
            kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            self._last = (response.status_code, response.reason_phrase, kind)

    def sentence(self) -> str | None:
        """What the URL's last answer says is wrong, in a sentence; None when it was MCP's own
        (a JSON-RPC body, an event stream) or an authorization step."""
        if self._last is None:
            return None
        status, reason, kind = self._last
        said = f"{status} {reason}".strip()
        if kind in ("application/json", "text/event-stream") or status in (401, 403) or 300 <= status < 400:
            return None  # MCP's own answer, an authorization step, or a redirect the SDK explains
        if status in (404, 405) or status < 300:
            answered = said if status >= 400 else f"{said} with {_content(kind)}, not MCP"
            return (
                f"The upstream URL {self.url} answered {answered}: is the path right "
                "(most servers serve MCP at /mcp)?"
            )
        return (
            f"The upstream URL {self.url} answered {said}; check that the server runs and that "
            "this address is its MCP endpoint, then try again."
        )


def _content(kind: str) -> str:
    return "a web page" if kind == "text/html" else (kind or "no content type")


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def connect(
    upstream: Upstream,
    stack: AsyncExitStack,
    modes: Sequence[ConnectMode],
    make: Callable[[ConnectMode, httpx2.AsyncClient | None], Client],
    *,
    auth: Any = None,
) -> Client:
    """A client of `upstream` (`make(mode, http)`), connected in the first of `modes` the
    server accepts and entered in `stack`, with its HTTP client (made here, with `auth`).

    A connection refused for its revision tries the next mode; one the URL refuses at the HTTP
    level (a 404, a web page, an HTTP error) ends with a `LifecycleError` that says so."""
    for number, mode in enumerate(modes, 1):
        async with AsyncExitStack() as attempt:
            http = watch = None
            if upstream.url is not None:
                http = await attempt.enter_async_context(upstream.http_client(auth))
                watch = EndpointWatch(upstream.url)
                http.event_hooks["response"].append(watch)
            client = make(mode, http)
            try:
                await attempt.enter_async_context(client)
            except Exception as error:
                said = watch.sentence() if watch is not None else None
                if said is not None:
                    raise LifecycleError(said) from None
                if number == len(modes) or not speaks_another_revision(_innermost(error)):
                    raise
                logger.debug("the upstream refused %s (%s); trying %s", mode, error, modes[number])
                continue
            stack.push_async_exit(attempt.pop_all())
            return client
    raise AssertionError("unreachable")  # pragma: no cover - the last mode returns or raises
