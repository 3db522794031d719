"""`Bridge`: a local MCP server in front of another one, carrying elicitation completely.

Toward the host it is an MCP server (stdio, or Streamable HTTP at `/mcp`); toward the
upstream server it is elicitkit's client, one session per host session. Questions from the
upstream reach the host for the modes it declared, or the bridge's own UI (`answer`).
"""

from __future__ import annotations

import logging
import shlex
import sys
import webbrowser
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from os import PathLike
from pathlib import PurePath
from typing import Any, Literal

import anyio
import httpx2
from mcp.client import Client
from mcp.client.client import ConnectMode
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, DiscoverResult, LoggingMessageNotificationParams
from starlette.applications import Starlette
from starlette.middleware import Middleware

from elicitkit.bridge._answering import Answer, RoutedUI
from elicitkit.bridge._credential import Credential, CredentialFile, credential_path
from elicitkit.bridge._guard import Guard, bind_names, host_entry, is_loopback, origin_entry
from elicitkit.bridge._host import HostSession
from elicitkit.bridge._profiles import host_profile
from elicitkit.bridge._relayed import Relay
from elicitkit.bridge._rounds import Rounds
from elicitkit.bridge._server import Forwarder, forwarding_server, host_logger, host_message_handler
from elicitkit.bridge._sessions import Links
from elicitkit.bridge._upstream import Limits, Revisions, Upstream, connect, upstream_client, upstream_of
from elicitkit.client import (
    ElicitationUI,
    ElicitingClient,
    RateLimit,
    Sizes,
    UrlOpener,
    open_in_system_browser,
)
from elicitkit.errors import ConfigurationError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["ANSWERS", "PROTOCOLS", "Answer", "Bridge", "Upstream", "UpstreamProtocol"]

Stored = Literal["stored"]
"""`credential="stored"`: the bridge's own credential file, made and shown once on first use."""

ANSWERS: tuple[Answer, ...] = ("host", "browser", "terminal", "auto")
UpstreamProtocol = Literal["find", "host", "auto", "2025-11-25", "2026-07-28"]
PROTOCOLS: tuple[UpstreamProtocol, ...] = ("find", "host", "auto", "2025-11-25", "2026-07-28")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _browser_page(url: str) -> bool:
    """The bridge's own page: where it is on stderr (to open by hand), then the system browser.

    `url` is the `file://` URL of a page only this user can read, which carries the browser
    into the bridge's page; neither stderr (often the host's log) nor the browser's command
    line holds anything that lets another user in."""
    _say(
        f"elicitkit bridge: the server's questions open in your browser from {url} (a file only "
        "you can read); if no browser shows them, open that file, or read it for the page's "
        "address and a one-time code."
    )
    return webbrowser.open(url, new=2)


@dataclass
class Bridge:
    """An MCP proxy that answers elicitation for hosts that cannot.

    `upstream` is a Streamable HTTP URL, `StdioServerParameters`, or an `Upstream`.
    `answer` picks who answers: "host", "browser", "terminal" or "auto" (the host for the
    modes it declared, the browser for the rest; with "host" the host answers everything, a
    -32042 included). `upstream_protocol` is found by default ("find": the host's revision when
    the server speaks it, else the other, once) or pinned. `ui` replaces the bridge's own UI (a
    `WebUI` for "browser" and "auto", a `TerminalUI` for "terminal"); `open_url` opens a URL
    the person agreed to (the system browser). `serve_stdio()` and `serve_http()` run it whole;
    `asgi_app()` is the same for a gateway to mount (its lifespan runs the bridge); for another
    transport, run `server` inside `async with bridge.running():`.
    """

    upstream: str | StdioServerParameters | Upstream
    answer: Answer = "auto"
    ui: ElicitationUI | None = None
    open_url: UrlOpener = open_in_system_browser
    rate_limit: RateLimit = field(default_factory=RateLimit)
    sizes: Sizes = field(default_factory=Sizes)
    wait_timeout: float = 300.0
    question_timeout: float = 600.0
    upstream_protocol: UpstreamProtocol = "find"
    """"find": the host's revision when the server speaks it, else the other, found once per
    host era and kept for the bridge's life; or a pin: "host" (the host's revision), "auto" (the
    newest both sides speak), "2025-11-25" or "2026-07-28". The host keeps its own revision
    either way: the bridge translates between the two (docs/bridge.md, Revisions)."""
    max_sessions: int = 16
    idle_timeout: float = 3600.0
    hold_timeout: float = 600.0
    """How long a call a 2026-07-28 host drives round by round waits for its answer."""
    max_held: int = 8
    """How many such calls one host session may leave waiting for answers at once."""
    host_profile: str | PathLike[str] | None = None
    """With answer "auto": what the host really answers, beyond what it declares: a profile's
    name (docs/hosts.md, Host profiles) or the JSON report of `elicitkit check --host`. A form
    with fields it cannot render goes to the bridge's page, or is offered in kinds it renders
    where that is exact."""

    def __post_init__(self) -> None:
        if self.answer not in ANSWERS:
            raise ConfigurationError(f"answer must be one of {', '.join(ANSWERS)}, not {self.answer!r}.")
        if self.upstream_protocol not in PROTOCOLS:
            raise ConfigurationError(
                f"upstream_protocol must be one of {', '.join(PROTOCOLS)}, not {self.upstream_protocol!r}."
            )
        if self.host_profile is not None and self.answer != "auto":
            raise ConfigurationError(
                f'host_profile goes with answer="auto" (with {self.answer!r}, who answers does not depend '
                "on the host's profile)."
            )
        self._profile = host_profile(self.host_profile) if self.host_profile is not None else None
        self._upstream = upstream_of(self.upstream)
        self._revisions = Revisions(self.upstream_protocol)
        self._auth = self._upstream.default_auth()
        """One sign-in for every upstream session."""
        self._limits = Limits(self.rate_limit, self.sizes, self.wait_timeout, self.open_url)
        self._links = Links(
            self._open_upstream, max_sessions=self.max_sessions, idle_timeout=self.idle_timeout
        )
        self._forwarder = Forwarder(self._links)
        self._forwarder.rounds = Rounds(
            hold_timeout=self.hold_timeout, max_held=self.max_held, to_host=self.answer in ("host", "auto")
        )
        self.server: Server[Any] = forwarding_server(self._forwarder, "elicitkit-bridge")
        """The low-level MCP server the host talks to, for a transport of your own."""
        self._local: ElicitationUI | None = self.ui
        self._local_stack: AsyncExitStack | None = None

    @property
    def sessions(self) -> int:
        """Upstream sessions open now (one per host session)."""
        return len(self._links)

    @asynccontextmanager
    async def running(self, *, learn: bool = True) -> AsyncIterator[Bridge]:
        """Hold upstream sessions until the block ends.

        With `learn`, first one short upstream session learns the server's name, instructions
        and capabilities, so every host session is told them at once (what HTTP needs); on
        stdio the one host's own upstream session tells them instead."""
        if learn:
            await self._learn_upstream()
        async with AsyncExitStack() as stack, anyio.create_task_group() as tasks:
            self._local_stack = stack
            self._links.attach(tasks)
            self._forwarder.rounds.attach(tasks)
            try:
                yield self
            finally:
                self._links.attach(None)
                self._forwarder.rounds.attach(None)
                tasks.cancel_scope.cancel()
        self._local_stack = None

    async def serve_stdio(self) -> None:
        """Serve one host on this process's stdin and stdout until it closes them."""
        async with self.running(learn=False), stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def asgi_app(
        self,
        *,
        path: str = "/mcp",
        host: str = "127.0.0.1",
        credential: Credential | CredentialFile | None,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
    ) -> Starlette:
        """A Starlette app serving Streamable HTTP at `path`; its lifespan runs the bridge.

        Each request meets a guard first (docs/bridge.md, "Trust model"): its Host must name
        the bridge (the names of `host`, the address it is served on, or `allowed_hosts`), its
        Origin, if it has one, be the bridge's own or in `allowed_origins`, a POST be JSON, and
        it must present `credential` as `Authorization: Bearer ...`. Give `credential=None` only
        where something in front authenticates every request (a gateway's own sign-in)."""
        return self._http_app(path, host, None, credential, *_allowed(host, allowed_hosts, allowed_origins))

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8787,
        *,
        path: str = "/mcp",
        credential: Credential | CredentialFile | Stored | None = "stored",
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
    ) -> None:
        """Serve Streamable HTTP at http://HOST:PORT/mcp until cancelled, behind the same guard.

        Hosts present this bridge's credential: by default (`"stored"`) the one kept for this
        upstream server at this address under the user's state folder, made and shown on
        stderr the first time. `credential=None` asks for none, on a loopback address only.
        A port in use, or an address that is not this machine's, is a `LifecycleError`."""
        import uvicorn

        from elicitkit.bridge._listening import Serving, listen

        if credential is None and not is_loopback(host):
            raise ConfigurationError(
                f"A bridge listening on {host}, beyond this machine, needs a credential; "
                'leave credential="stored" or give one.'
            )
        hosts, origins = _allowed(host, allowed_hosts, allowed_origins)
        stored = self._credential_file(host, port) if credential == "stored" else None
        given = None if isinstance(credential, str) else credential
        sockets = listen(host, port)  # a port in use stops it here, before anything is said
        try:
            await self._learn_upstream()  # a server it cannot reach stops it here, before serving
            bound = int(sockets[0].getsockname()[1])
            url = f"http://{_netloc(host, bound)}{path}"
            if not is_loopback(host):
                _say(
                    f"elicitkit bridge: {_netloc(host, bound)} is reachable from other machines: anyone who "
                    "can reach it and holds its credential acts as you on the server behind it."
                )
            made = stored.make() if stored is not None else None
            if stored is not None and made is not None:
                _show(made, stored, url, "this bridge's credential")
            if stored is None and given is None:
                _say(f"elicitkit bridge: {url} asks for no credential: any program or user here can use it.")
            app = self._http_app(path, host, bound, stored or given, hosts, origins)
            kept = f" (hosts present the credential kept in {stored.path})" if stored is not None else ""
            config = uvicorn.Config(app, log_level="warning", lifespan="on")
            await Serving(config, lambda: _say(f"elicitkit bridge: serving MCP at {url}{kept}")).serve(
                sockets
            )
        finally:
            for sock in sockets:
                sock.close()

    def rotate_credential(
        self, host: str = "127.0.0.1", port: int = 8787, *, path: str = "/mcp"
    ) -> Credential:
        """Replace the stored credential of this bridge at HOST:PORT and show the new one on
        stderr; a bridge serving there takes it at its next request, and the old one stops working."""
        stored = self._credential_file(host, port)
        made = stored.rotate()
        _show(made, stored, f"http://{_netloc(host, port)}{path}", "a new credential for this bridge")
        return made

    def _http_app(
        self,
        path: str,
        host: str,
        port: int | None,
        credential: Credential | CredentialFile | None,
        hosts: list[str],
        origins: list[str],
    ) -> Starlette:
        # The guard checks Host and Origin on every bind; the SDK's own check knows loopback names only.
        unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        inner = self.server.streamable_http_app(
            streamable_http_path=path, host=host, max_sessions=self.max_sessions, transport_security=unchecked
        )
        manager = self.server.session_manager

        @asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with self.running(learn=self._forwarder.capabilities is None), manager.run():
                yield

        # The guard outermost: nothing (the SDK, the upstream) sees a request before it.
        guard = Middleware(Guard, hosts=hosts, origins=origins, credential=credential, port=port)
        middleware = [guard, *inner.user_middleware]
        return Starlette(routes=inner.routes, middleware=middleware, lifespan=lifespan)

    def _credential_file(self, host: str, port: int) -> CredentialFile:
        """This bridge's stored credential: one per upstream server and listen address."""
        upstream = self._upstream
        if upstream.url is not None:
            from elicitkit.bridge._authorization_store import canonical_url

            identity = canonical_url(upstream.url)
            label = identity.split("://", 1)[-1]
        else:
            assert upstream.stdio is not None
            identity = shlex.join([upstream.stdio.command, *upstream.stdio.args])
            label = PurePath(upstream.stdio.command).name  # never its arguments: they may hold secrets
        return CredentialFile(credential_path(identity, label, host, port))

    # -- inside

    async def _learn_upstream(self) -> None:
        """One short session upstream: its name, instructions and capabilities, declared as they are
        (and, with "find", the revision it speaks to a 2025-11-25 host)."""
        plain = HostSession(frozenset())

        def make(mode: ConnectMode, http: httpx2.AsyncClient | None) -> Client:
            ui = RoutedUI(plain, "host", None)
            return upstream_client(
                self._upstream,
                ui,
                frozenset(),
                self._limits,
                http=http,
                message_handler=_no_messages,
                logging_callback=_no_logs,
                mode=mode,
            )

        with anyio.fail_after(self._upstream.timeout):
            async with AsyncExitStack() as stack:
                client = await connect(self._upstream, stack, self._mode(plain), make, auth=self._auth)
                self._revisions.found(plain.modern, client)
                await _discover(client)
                self._forwarder.learn(client)

    def _mode(self, host: HostSession) -> tuple[ConnectMode, ...]:
        """The upstream's protocol, in the order to try it: with "find", the host's revision
        first (stock servers answer it best), then the other; once found, that one alone."""
        return self._revisions.to_try(host.modern)

    async def _open_upstream(self, host: HostSession, stack: AsyncExitStack) -> Client:
        # A 2026-07-28 host answers its declared modes too, as input-required rounds.
        modes = host.modes if self.answer == "host" else frozenset({"form", "url"})
        host.profile = self._profile
        ui = RoutedUI(
            host, self.answer, None if self.answer == "host" else self._local_ui, self.question_timeout
        )

        def make(mode: ConnectMode, http: httpx2.AsyncClient | None) -> Client:
            return upstream_client(
                self._upstream,
                ui,
                modes,
                self._limits,
                http=http,
                message_handler=host_message_handler(host),
                logging_callback=host_logger(host),
                mode=mode,
                calls=host.upstream,
                relay=Relay(host, self.question_timeout) if host.relays else None,
                # --answer host: the host answers everything, a -32042 included, as the server sent it.
                passes_url_required=self.answer == "host",
            )

        client = await connect(self._upstream, stack, self._mode(host), make, auth=self._auth)
        self._revisions.found(host.modern, client)
        await _discover(client)
        # Results pass through unchanged: the host checks a tool's output against the listing it
        # got. The SDK client would check it here too, and list the tools again before each call
        # to a tool it has not listed itself (a second round trip per call).
        client.session.validate_tool_result = _passed_unchanged  # type: ignore[method-assign]
        return client

    def _local_ui(self) -> ElicitationUI:
        """The bridge's own UI, made on first use and closed with the bridge."""
        if self._local is None:
            self._local = self._make_local_ui()
        return self._local

    def _make_local_ui(self) -> ElicitationUI:
        if self.answer == "terminal":
            from elicitkit.client import TerminalUI

            return TerminalUI()
        from elicitkit.client import WebUI

        ui = WebUI(opener=_browser_page)
        if self._local_stack is not None:
            self._local_stack.push_async_callback(ui.aclose)
        return ui


async def _discover(client: Client) -> None:
    """A client pinned to 2026-07-28 (or to what "find" found) adopts it without a probe, so the
    SDK gives it an empty description of the server (no name, no capabilities): ask
    `server/discover` once, so the host is told the server's own, and the bridge's UI names who asks."""
    if client.mode in ("legacy", "auto"):
        return
    try:
        raw = await client.session.send_discover(client.protocol_version)
    except MCPError as error:  # a server that does not describe itself: go on without
        logger.debug("server/discover failed upstream: %s", error)
        return
    client.session.adopt(DiscoverResult.model_validate(raw))
    info = client.server_info
    if info is not None and isinstance(client, ElicitingClient):
        client.elicitations.learn_server_name(info.title or info.name)


async def _passed_unchanged(name: str, result: CallToolResult) -> None:
    return None


async def _no_messages(message: IncomingMessage) -> None:
    return None


async def _no_logs(params: LoggingMessageNotificationParams) -> None:
    return None


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _allowed(host: str, hosts: Sequence[str], origins: Sequence[str]) -> tuple[list[str], list[str]]:
    """The Host values a bridge bound to `host` answers (its own names and `hosts`) and the
    pages it answers besides its own (`origins`), each checked now, before anything starts."""
    named = [*bind_names(host)]
    for entry in hosts:
        name, port = host_entry(entry)
        named.append(name if port is None else f"{name}:{port}")
    return named, [origin_entry(origin) for origin in origins]


def _show(credential: Credential, stored: CredentialFile, url: str, what: str) -> None:
    """A credential on stderr, once, with the line a host's configuration takes."""
    _say(
        f"elicitkit bridge: {what}, shown this once and kept in {stored.path}; give it to your host "
        f"for {url} (docs/bridge.md, Host configuration):"
    )
    _say(f'    "headers": {{"Authorization": "{credential.header}"}}')
