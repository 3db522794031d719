"""URL mode for a server: records, pages, the three ways a tool waits, and the completion notice.

One `UrlMode` per server holds the store, the vault, the bus and the pages. Flows (`Secret`,
and later OAuth connections) call `UrlMode.ask(ctx, flow)`, which binds a record to the
verified user and waits in the way the connection allows, with the same tool code:

- 2025-11-25, `wait="live"`: a URL-mode `elicitation/create` tied to the tool call, then the
  tool waits until the page completes the record.
- 2025-11-25, `wait="error"` (or when the connection cannot carry a server request): the call
  fails with -32042 listing the elicitation; the client retries once the completion notice
  arrives.
- 2026-07-28: the call returns an input request; the round's `requestState` names the record
  (the SDK seals it and binds it to the user); each retry is checked against the store and the
  user, and finds the record completed once the page is done.

Where the pages live. A remote (HTTP) server mounts them on its own Starlette app
(`install`), so the link's origin is the server's. A stdio server runs them on a loopback
listener (`loopback()`, http://127.0.0.1:<port>). Threat model of that mode: the listener is
reachable by every user and process on the machine, not from the network; a link is only its
192-bit random record id (no secret, no personal data, nothing pre-authenticated), so a local
process that never saw the link cannot guess one; the page still identifies the browser person
before it accepts anything, and with `McpUsers.single_user_local()` (no MCP authorization,
one person) every record belongs to that one user, so a link cannot steer one person into
another's elicitation, but anyone on the machine who obtains a live link can answer it
before its owner does. Use an authorization server (`OAuthLogin`) when that matters, or when
more than one person uses the machine. Cookies there are `__Host-`/Secure on plain http,
which Chromium accepts because it treats 127.0.0.1 and localhost as secure contexts
(checked by the Playwright test); check other browsers before relying on them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Protocol
from urllib.parse import urlsplit

import anyio
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequest, ElicitRequestURLParams

from elicitkit._sdk import connection_of, run_in_lifespan, token_verifier_of
from elicitkit.asgi import EmbeddedServer
from elicitkit.errors import ConfigurationError
from elicitkit.extras import needs
from elicitkit.server._ask import ask, request_in_flight
from elicitkit.server._capabilities import require_mode
from elicitkit.server._errors import (
    PendingLimitError,
    RequestStateRejectedError,
    UrlElicitationNotCompletedError,
    UrlModeError,
)
from elicitkit.server._rounds import RoundsMiddleware, current_round, uses_rounds
from elicitkit.server._tasks import TaskRun, current_run
from elicitkit.server._user import Caller, McpUsers
from elicitkit.server._vault import KeyRing, Vault
from elicitkit.server._web.flows import Flow
from elicitkit.server._web.identity import BrowserIdentity, LocalUserIdentity
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server._web.site import Site
from elicitkit.server.bus import Bus, Held, LocalBus, Unsubscribe
from elicitkit.server.store import ACTIVE, Record, State, Store

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.session import ServerSession

__all__ = [
    "ContextAdapter",
    "PageHost",
    "RequestStateRejectedError",
    "RoundsMiddleware",
    "UrlMode",
    "Wait",
]

logger = logging.getLogger(__name__)

Wait = Literal["live", "error"]

ContextAdapter = Callable[[Any], "Context[Any, Any] | None"]
"""Turns a framework's own tool context into the SDK `Context`; None when `ctx` is not its kind."""


@dataclass(frozen=True)
class FlowContext:
    """The few things a URL-mode flow (`Secret`, `OAuthConnection`, your own) works with.

    A flow gets this from `UrlMode.add` and uses nothing else of the `UrlMode`: `users`
    names the MCP user, `vault` keeps their values, `store` holds records and single-use
    values, `site` renders pages and completes records (it is the one that announces a
    completion), `browser` is who is in the browser, `ask` runs a URL-mode elicitation, and
    `clock` is the wall clock every expiry and date a flow keeps is read by (the store's).
    """

    users: McpUsers
    vault: Vault
    store: Store
    site: Site
    browser: BrowserIdentity
    ask: Callable[..., Awaitable[Record]]
    clock: Callable[[], float]


class PageHost(Protocol):
    """A server whose HTTP app takes extra routes: `MCPServer`, and FastMCP's server too."""

    @property
    def name(self) -> str:
        """The server's name, which the pages show when `UrlMode` was given none."""
        ...

    def custom_route(
        self, path: str, methods: list[str], name: str | None = None, include_in_schema: bool = True
    ) -> Any:
        """A decorator that adds a route to the server's own HTTP app."""
        ...


class UrlMode:
    """URL-mode elicitation for one MCP server.

    `keys` defaults to `KeyRing.from_env()` (a missing key stops start-up), `store` to a
    `SQLiteStore` in the user's data directory, `bus` to a `LocalBus`, `users` to the
    verified MCP token (`McpUsers()`). `public_url` is the origin the pages are reached at
    (the MCP server's own; `loopback()` sets it for stdio servers). `ttl` is how long a link
    lives; `max_pending_per_user` bounds the elicitations one user has open at once, across
    replicas sharing the store (None: no limit); past it `ask` raises `PendingLimitError`. On
    2026-07-28 a retry that comes while the person is still on the page is held up to `hold`
    seconds, then answered "still waiting"; past `max_rounds` such retries the call ends.
    The pages speak each browser's `Accept-Language`, or `locale` ("zh_CN") when given.
    Every `sweep_every` seconds a background task expires overdue records (see `running`).

    One clock: the store's (`clock`, `store.clock`). The links, the -32042 listeners they
    hold, the browser's sessions, OAuth tokens and consents, and 2026-07-28 question
    timeouts are all stamped and read by it, so a test moves time for all of them by giving
    the store a clock it moves (`MemoryStore(clock=...)`, `SQLiteStore(clock=...)`). What only
    waits (a held retry, a store call's deadline) counts seconds on the event loop's clock.
    """

    def __init__(
        self,
        *,
        browser: BrowserIdentity | None = None,
        public_url: str | None = None,
        keys: KeyRing | None = None,
        store: Store | None = None,
        bus: Bus | None = None,
        users: McpUsers | None = None,
        wait: Wait = "live",
        ttl: float = 900.0,
        server_name: str | None = None,
        hold: float = 25.0,
        max_rounds: int = 64,
        max_pending_per_user: int | None = 20,
        locale: str | None = None,
        sweep_every: float = 60.0,
    ) -> None:
        self.keys = keys if keys is not None else KeyRing.from_env()
        self.store: Store = store if store is not None else _default_store()
        self.clock = self.store.clock
        """The wall clock every expiry is read by: the store's (see the class docstring)."""
        self.vault = Vault(self.keys, self.store)
        self.bus: Bus = bus if bus is not None else LocalBus()
        self.users = users if users is not None else McpUsers()
        if browser is None:
            if self.users.local_user is None:
                raise UrlModeError(
                    "URL mode needs to know who opens its links: pass browser=OAuthLogin(<issuer>) "
                    "(or a HookIdentity); only McpUsers.single_user_local() works without one."
                )
            browser = LocalUserIdentity(self.users.local_user)
        self.browser = browser
        self.wait: Wait = wait
        self.ttl = ttl
        self.hold = hold
        """2026-07-28: how long a retry waits for the page before answering "still waiting"."""
        self.max_rounds = max_rounds
        """2026-07-28: the most retries one URL elicitation may take before the call ends."""
        self.max_pending_per_user = max_pending_per_user
        self._held = Held(self.clock)
        """-32042 listeners, which outlive the tool call: released on finish, expiry or session end."""
        self.flows: dict[str, Flow] = {}
        self.site = Site(
            server_name=server_name or "This server",
            store=self.store,
            keys=self.keys,
            bus=self.bus,
            browser=browser,
            flows=self.flows,
            public_url=public_url or "",
            locale=locale,
        )
        self.context = FlowContext(
            self.users, self.vault, self.store, self.site, browser, self.ask, self.clock
        )
        """What the flows of this URL mode receive (see `FlowContext`)."""
        self.sweep_every = sweep_every
        """Seconds between two background sweeps (and before one retries after a failure)."""
        self._last_sweep = 0.0
        self._sweeping = False
        self._installed: list[PageHost] = []
        self._context_adapters: list[ContextAdapter] = []
        self._named = server_name is not None
        if public_url:
            _check_public_url(public_url)

    # -- setup -----------------------------------------------------------------------------

    def add(self, flow: Flow) -> FlowContext:
        """Register `flow` (its pages answer under its name) and give it what it works with."""
        if flow.name in self.flows:
            raise UrlModeError(
                f"A URL-mode flow named {flow.name!r} exists already; give each flow its own name."
            )
        self.flows[flow.name] = flow
        return self.context

    def adapt_contexts(self, adapter: ContextAdapter) -> None:
        """Let a framework's own tool context stand for the SDK `Context` in `ask` (elicitkit.fastmcp
        adds FastMCP's when it mounts the pages on a FastMCP server)."""
        if adapter not in self._context_adapters:
            self._context_adapters.append(adapter)

    def sdk_context(self, ctx: Any) -> Context[Any, Any]:
        """`ctx` as the SDK `Context` every flow reads; unchanged when no adapter claims it."""
        for adapter in self._context_adapters:
            found = adapter(ctx)
            if found is not None:
                return found
        return ctx  # type: ignore[no-any-return]

    def mount_pages(self, server: PageHost) -> bool:
        """Add the pages to `server`'s own HTTP app through its `custom_route` (an `MCPServer`, a
        FastMCP server), so links share its origin; once per server: False when they are there.
        `Elicitation(server, url_mode=...)` calls it; so does elicitkit's FastMCP adapter."""
        if any(server is done for done in self._installed):
            return False
        self._installed.append(server)
        if not self._named:
            self.site.server_name = server.name
        for route in self.site.routes():
            methods = sorted(route.methods or {"GET"})
            server.custom_route(route.path, methods=methods, include_in_schema=False)(route.endpoint)
        return True

    def _mount(self, server: MCPServer[Any]) -> None:
        """Mount the pages on the server's own Starlette app; `Elicitation(server, url_mode=)` calls it."""
        if not self.mount_pages(server):
            return
        auth = server.settings.auth
        if auth is not None and self.users.issuer is None:
            self.users.issuer = str(auth.issuer_url).rstrip("/")
        if isinstance(self.browser, OAuthLogin):  # its token is checked as the MCP tokens are
            self.browser.adopt(token_verifier_of(server), auth)
        if not any(isinstance(m, RoundsMiddleware) for m in server.middleware):
            # The 2026-07-28 rounds, shared with forms; their timeouts count by this clock too.
            server.middleware.append(RoundsMiddleware(server, clock=self.clock))
        run_in_lifespan(server, self.running)  # the sweep starts and stops with the server

    @asynccontextmanager
    async def loopback(self, *, port: int = 0) -> AsyncIterator[str]:
        """Serve the pages on 127.0.0.1 for a stdio server; yields the public URL.

        Run it around the server (for example in the `MCPServer` lifespan). See the module
        docstring for this mode's threat model.
        """
        from starlette.applications import Starlette

        def build(url: str) -> Starlette:
            self.site.public_url = url
            return Starlette(routes=self.site.routes())

        async with EmbeddedServer(build, port=port) as server:
            yield server.url

    async def sweep(self) -> int:
        """Expire overdue records and drop old finished ones, and release what waited for them
        here (the background task of `running` calls it every `sweep_every` seconds)."""
        self._last_sweep = self.clock()
        self._held.release_due(self._last_sweep)
        return await self.store.sweep()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Sweep in the background while the block runs: once at start, then every `sweep_every`
        seconds, off the path of any live flow. `Elicitation(server, url_mode=...)` enters it in
        the server's lifespan (`elicitkit.fastmcp.Elicitation` in FastMCP's); enter it yourself
        in another host's (your ASGI app's).
        One task per `UrlMode`: an entry while one runs adds none. Replicas sharing a store may
        sweep at once (each record changes in one conditional step, and the stores work in
        short, paced batches). A failed sweep is logged in one line and tried again next time.
        Without a running task, a new elicitation sweeps when one is due, as it waits."""
        if self._sweeping:
            yield
            return
        self._sweeping = True
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._sweep_forever)
                try:
                    yield
                finally:
                    group.cancel_scope.cancel()
        finally:
            self._sweeping = False

    async def _sweep_forever(self) -> None:
        while True:
            try:
                changed = await self.sweep()
            except Exception as exc:  # a store that is down must not end the server: next time
                logger.warning(
                    "URL-mode sweep failed (%s: %s); it runs again in %g s",
                    type(exc).__name__,
                    " ".join(str(exc).split()),
                    self.sweep_every,
                )
            else:
                if changed:
                    logger.debug("URL-mode sweep changed %d records", changed)
            await anyio.sleep(self.sweep_every)

    @property
    def held(self) -> int:
        """How many -32042 completion listeners this process keeps (a health and leak figure)."""
        return len(self._held)

    # -- asking ----------------------------------------------------------------------------

    async def ask(
        self,
        ctx: Context[Any, Any],
        flow: Flow,
        message: str,
        details: Mapping[str, Any],
        *,
        wait: Wait | None = None,
    ) -> Record:
        """Run `flow` for the current user until its record is completed, and return it.

        `wait` chooses the 2025-11-25 waiting style for this question (default: the server's).

        Raises:
            IdentityRequiredError: there is no verified user to bind the record to (S-30, S-31).
            ModeNotDeclaredError: the client did not declare URL mode; nothing was sent (S-01).
            UrlElicitationRequiredError: the -32042 waiting style; the client retries later (S-24).
            UrlElicitationNotCompletedError: the person declined, cancelled or let it expire.
        """
        ctx = self.sdk_context(ctx)
        if flow.name not in self.flows:
            self.add(flow)
        request_in_flight(ctx)
        require_mode(ctx, "url")
        if not self.site.public_url:
            raise UrlModeError(
                "URL mode does not know where its pages are reached: pass UrlMode(public_url=...) "
                "(the MCP server's public origin), or run the server inside `async with url_mode.loopback()`."
            )
        caller = self.users.caller()
        run = current_run()
        if run is not None:
            return await self._ask_in_task(ctx, run, caller, flow, message, details)
        if uses_rounds(ctx.protocol_version):
            return await self._ask_in_rounds(ctx, caller, flow, message, details)
        record = await self._new_record(caller, flow, message, details)
        url = self.site.url_for(record.id)
        params = ElicitRequestURLParams(message=message, url=url, elicitation_id=record.id)
        if (wait or self.wait) == "error" or not ctx.session.can_send_request:  # no back-channel: -32042
            unsubscribe = self._notify_on_finish(record.id, ctx.session, related_request_id=None)
            # The SDK's per-connection teardown lets it go when the session closes.
            connection = connection_of(ctx.session)
            self._held.hold(record.id, unsubscribe, expires_at=record.expires_at, connection=connection)
            raise UrlElicitationRequiredError([params])
        finished = anyio.Event()
        unsubscribe = self._notify_on_finish(
            record.id, ctx.session, related_request_id=ctx.request_id, finished=finished
        )
        try:
            # Only the action is kept: this frame lives while the person is on the page.
            action = (await ask(ctx, params)).action
            del params, url
            if action != "accept":  # S-22: accept is consent to open, not completion
                unsubscribe()  # the client said no itself: no notice to send back
                await self._close(record, "declined" if action == "decline" else "cancelled")
            with anyio.move_on_after(record.expires_at - self.clock()):
                await finished.wait()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):  # the session ended:
                await self.store.transition(record.id, from_states=ACTIVE, to="cancelled")  # frees its place
            raise
        finally:
            unsubscribe()
        return await self._outcome(record)

    async def _new_record(
        self, caller: Caller, flow: Flow, message: str, details: Mapping[str, Any]
    ) -> Record:
        now = self.clock()
        if not self._sweeping and now - self._last_sweep > self.sweep_every:
            await self.sweep()  # no background task here (see `running`): this flow pays for it
        limit = self.max_pending_per_user
        record = Record.new(
            caller.user, caller.client_id, flow.name, message, ttl=self.ttl, details=dict(details), now=now
        )
        if not await self.store.create(record, max_active=limit):  # counted and created as one step
            logger.warning("URL elicitation refused: the user has %d open already", limit)
            raise PendingLimitError(limit or 0, self.ttl)
        return record

    def _notify_on_finish(
        self,
        elicitation_id: str,
        session: ServerSession,
        *,
        related_request_id: str | int | None,
        finished: anyio.Event | None = None,
    ) -> Unsubscribe:
        """Send the completion notice to this session, and no other, when the record finishes
        (S-23), then set `finished` (what a live wait waits on).

        The listener (and so the session object it sends on) lives until the record finishes or,
        for -32042, until the link expires or the connection closes: never longer than `ttl`."""
        delivery = _Delivery(session, related_request_id, self._held, finished)
        return self.bus.subscribe(elicitation_id, delivery)

    async def _close(self, record: Record, state: State) -> NoReturn:
        await self.store.transition(record.id, from_states=ACTIVE, to=state, user=record.user)
        await self.site.announce(record.id)  # an outage must not hide the decline behind a bus error
        raise UrlElicitationNotCompletedError(state)

    async def _outcome(self, record: Record) -> Record:
        final = await self.store.get(record.id)
        if final is not None and final.state == "completed":
            return final
        if final is not None and final.state in ACTIVE:
            await self.store.transition(record.id, from_states=ACTIVE, to="expired")
        raise UrlElicitationNotCompletedError(final.state if final is not None else "expired")

    async def _ask_in_rounds(
        self, ctx: Context[Any, Any], caller: Caller, flow: Flow, message: str, details: Mapping[str, Any]
    ) -> Record:
        """2026-07-28: the URL is asked once; later retries wait for the page, never re-ask it.

        The round's sealed state names the record; the store counts the retries. A retry is checked
        against the store and the user, held while the page is still open (`hold`), and
        answered "still waiting" (state only, no new `inputRequests`) when the page is not done
        by then. The newest answer in `inputResponses` counts: a decline or cancel sent after an
        accept ends the flow with it.
        """
        current = current_round(ctx)
        key = f"elicitkit.url.{flow.name}"
        named = current.notes.get(key)
        current.claim(key)
        if named is None:  # the link is new, so it is asked whatever this call carries
            record = await self._new_record(caller, flow, message, details)
            current.notes[key] = record.id
            params = ElicitRequestURLParams(message=record.message, url=self.site.url_for(record.id))
            current.ask(key, ElicitRequest(params=params))
        record = await self._named_record(named, caller)
        answer = current.response(key)
        if record.state == "completed":
            return record
        if record.state not in ACTIVE:
            raise UrlElicitationNotCompletedError(record.state)
        if answer is not None and answer.action != "accept":
            await self._close(record, "declined" if answer.action == "decline" else "cancelled")
        # Counted in the store, not in the client-held state: a replayed state cannot reset it.
        rounds = await self.store.increment(
            f"url-rounds:{record.id}", ttl=record.expires_at - self.clock() + 60
        )
        if rounds > self.max_rounds:
            await self.store.transition(record.id, from_states=ACTIVE, to="expired", user=record.user)
            await self.site.announce(record.id)
            raise UrlElicitationNotCompletedError(
                "expired",
                f"The URL elicitation was still not finished after {self.max_rounds} retries, so it "
                "was closed; call the tool again when the user is ready to finish it.",
            )
        final = await self._hold(record)
        if final.state == "completed":
            return final
        if final.state not in ACTIVE:
            raise UrlElicitationNotCompletedError(final.state)
        current.still_waiting()  # the page is still open: never the same URL twice (M-03)

    async def _ask_in_task(
        self,
        ctx: Context[Any, Any],
        run: TaskRun,
        caller: Caller,
        flow: Flow,
        message: str,
        details: Mapping[str, Any],
    ) -> Record:
        """In a task's run: the link is made once per task and noted in it, so a run again (after a
        restart, on another replica) waits for the same page, and the requestor's consent to open
        it is replayed rather than asked again. The task is `working` while the person is on the page.
        """
        key = f"elicitkit.url.{flow.name}"
        named = await run.note(key)
        record = await self.store.get(named) if isinstance(named, str) else None
        if record is None or record.user != caller.user:
            record = await self._new_record(caller, flow, message, details)
            await run.set_note(key, record.id)
        if record.state == "completed":
            return record
        if record.state not in ACTIVE:
            raise UrlElicitationNotCompletedError(record.state)
        finished = anyio.Event()

        async def on_finish(elicitation_id: str) -> None:
            finished.set()

        unsubscribe = self.bus.subscribe(record.id, on_finish)
        try:
            url = self.site.url_for(record.id)
            params = ElicitRequestURLParams(message=record.message, url=url, elicitation_id=record.id)
            action = (await ask(ctx, params, key=key)).action
            if action != "accept":  # S-22: accept is consent to open, not completion
                await self._close(record, "declined" if action == "decline" else "cancelled")
            now = await self.store.get(record.id)  # it may have finished before we listened
            if now is not None and now.state in ACTIVE:
                with anyio.move_on_after(record.expires_at - self.clock()):
                    await finished.wait()
        finally:
            unsubscribe()
        return await self._outcome(record)

    async def _named_record(self, named: object, caller: Caller) -> Record:
        found = await self.store.get(named) if isinstance(named, str) else None
        if found is None or found.user != caller.user or found.client_id != caller.client_id:
            logger.warning("2026-07-28 retry refused: its state names no URL elicitation of this user")
            raise RequestStateRejectedError()
        return found

    async def _hold(self, record: Record) -> Record:
        """Wait up to `hold` seconds (and never past the record's expiry) for the page to finish."""
        limit = min(self.hold, record.expires_at - self.clock())
        if limit <= 0 or record.state not in ACTIVE:
            return record
        finished = anyio.Event()

        async def on_finish(elicitation_id: str) -> None:
            finished.set()

        unsubscribe = self.bus.subscribe(record.id, on_finish)
        try:
            now = await self.store.get(record.id)  # it may have finished before we listened
            if now is not None and now.state in ACTIVE:
                with anyio.move_on_after(limit):
                    await finished.wait()
        finally:
            unsubscribe()
        final = await self.store.get(record.id)
        if final is None:
            return await self._outcome(record)  # gone from the store: reads as expired
        if final.state in ACTIVE and final.expires_at <= self.clock():
            return await self._outcome(final)
        return final


class _Delivery:
    """The completion listener of one elicitation: the notice to the session that asked, then
    `finished` set for a live wait (None on -32042, where nothing waits). One per pending
    elicitation, so a slotted object: a third of the memory of a closure over the same values."""

    __slots__ = ("finished", "held", "related_request_id", "session")

    def __init__(
        self,
        session: ServerSession,
        related_request_id: str | int | None,
        held: Held,
        finished: anyio.Event | None,
    ) -> None:
        self.session = session
        self.related_request_id = related_request_id
        self.held = held
        self.finished = finished

    async def __call__(self, elicitation_id: str) -> None:
        self.held.pop(elicitation_id, None)
        try:
            related = self.related_request_id
            await self.session.send_elicit_complete(elicitation_id, related_request_id=related)
        except Exception as exc:  # the session may be gone; the retry path still works
            logger.info("completion notice not delivered: %s", type(exc).__name__)
        finally:
            if self.finished is not None:
                self.finished.set()


def require_mcp_server(server: object, what: str) -> None:
    """Refuse, with a sentence, a server that is not the SDK's `MCPServer` (the seams we use)."""
    from mcp.server.mcpserver import MCPServer

    if not isinstance(server, MCPServer):
        raise ConfigurationError(
            f"{what} takes the SDK's MCPServer, not {type(server).__name__}; for a FastMCP server use "
            "elicitkit.fastmcp.Elicitation (pip install 'elicitkit[fastmcp]')."
        )


def _check_public_url(url: str) -> None:
    """S-21: links should be https outside development; plain http is fine on loopback only."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UrlModeError(
            f"public_url must be an http(s) origin such as https://mcp.example.com, not {url!r}."
        )
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        logger.warning("URL-mode links use plain http on a non-loopback host; use https outside development")


def _default_store() -> Store:
    """A `SQLiteStore` in the user's data directory; its library comes with `elicitkit[sqlite]`."""
    with needs("sqlite"):
        from elicitkit.server.store import SQLiteStore
    return SQLiteStore()
