"""The upstream server: where it is, and the elicitkit client that speaks to it for one host session."""

from __future__ import annotations

import importlib
import importlib.util
import logging
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.client import ConnectMode
from mcp.client.session import LoggingFnT, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters

from elicitkit._sdk import ExtendedClient
from elicitkit._sdk import http_client as create_mcp_http_client
from elicitkit.bridge._answering import RoutedUI, capture_params, host_opened
from elicitkit.bridge._calls import PostStreamTap, UpstreamCalls
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
from elicitkit.errors import ConfigurationError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["Limits", "Upstream", "upstream_client", "upstream_of"]

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

    @property
    def name(self) -> str:
        if self.url is not None:
            return self.url
        assert self.stdio is not None
        return " ".join([self.stdio.command, *self.stdio.args])

    def http_client(self, auth: Any = None) -> httpx2.AsyncClient:
        """The HTTP client for one upstream session: headers, and `auth` (or this upstream's own)."""
        return create_mcp_http_client(headers=self.headers or None, auth=self.auth or auth)

    def default_auth(self) -> Any:
        """The bridge's OAuth client for this server (`elicitkit.bridge.upstream_auth`), when it
        is an HTTP server without an `auth` of its own."""
        if self.url is None or self.auth is not None or importlib.util.find_spec(_AUTHORIZATION) is None:
            return None
        return importlib.import_module(_AUTHORIZATION).upstream_auth(self.url)

    def target(self) -> str | StdioServerParameters:
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
) -> Client:
    """The client of one host session: elicitkit's, declaring `modes`; a plain one when none.
    With `relay`, it declares the sampling and roots its host declared and passes those
    requests to the host."""
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
