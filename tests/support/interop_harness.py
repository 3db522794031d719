"""A server stock clients meet on 2026-07-28: one tool needs a `Secret`, one an `OAuthConnection`.

Real parts only: the demo authorization server (MCP users, browser sign-in), the demo provider
(the third party of the OAuth connection), uvicorn on 127.0.0.1, and a scripted browser (httpx
with a cookie jar) that does what a person does on the pages. The URL-mode and OAuth harnesses
of tests/server provide those pieces; this module only puts them together.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import CALENDAR_SCOPE, DemoProvider
from elicitkit.server import Tasks
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore
from support.oauth_harness import auth, connect, provider, token
from support.url_harness import SECRET, Browser, fingerprint, serve, validate_weather_key

T = TypeVar("T")

__all__ = ["SECRET", "Briefing", "auth", "briefing_running", "fingerprint", "provider", "token"]


@dataclass
class Briefing:
    server: MCPServer[Any]
    url_mode: UrlMode
    base: str
    auth: DemoAuthServer
    provider: DemoProvider
    browser_steps: list[str] = field(default_factory=list)
    pending: set[asyncio.Task[None]] = field(default_factory=set)
    failed: asyncio.Event = field(default_factory=asyncio.Event)
    broken: list[BaseException] = field(default_factory=list)

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    async def complete(self, url: str, person: str = "alice") -> None:
        """What the person does on the page `url` leads to: enters the key, or connects the calendar."""
        async with Browser(self.auth, person) as browser:
            page = await browser.open(url)
            if 'name="secret"' in page.text:
                assert page.status_code == 200, page.text
                done = await browser.submit(page, secret=SECRET, action="save")
                assert done.status_code == 200 and "Saved" in done.text, done.text
            else:
                done = await connect(browser, self.provider, url, person)
                assert done.status_code == 200 and "account is connected" in done.text, done.text
        self.browser_steps.append(url)

    async def decline_on_page(self, url: str, person: str = "alice") -> None:
        """The person opens the secret's page and presses Decline there."""
        async with Browser(self.auth, person) as browser:
            page = await browser.open(url)
            done = await browser.submit(page, action="decline")
            assert done.status_code == 200 and "You declined" in done.text, done.text
        self.browser_steps.append(url)

    async def record_state(self, url: str) -> str:
        record = await self.url_mode.store.get(url.rsplit("/", 1)[1])
        assert record is not None
        return record.state

    def complete_soon(
        self, url: str, person: str = "alice", *, decline: bool = False, after: float = 0.0
    ) -> None:
        """Start the browser step (`after` seconds from now) and return, as a client does once it
        has opened the browser."""

        async def step() -> None:
            await asyncio.sleep(after)
            try:
                await (self.decline_on_page(url, person) if decline else self.complete(url, person))
            except BaseException as exc:
                self.broken.append(exc)
                self.failed.set()
                raise

        task = asyncio.get_running_loop().create_task(step())
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def run(self, call: Coroutine[Any, Any, T]) -> T:
        """`call`'s result; a failed browser step ends it at once, with the step's error."""
        running = asyncio.ensure_future(call)
        broken = asyncio.ensure_future(self.failed.wait())
        try:
            await asyncio.wait({running, broken}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the test cancels the call: cancel it, and let it finish
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            raise
        finally:
            broken.cancel()
        if self.broken:
            running.cancel()
            raise self.broken[0]
        result = running.result()
        for task in list(self.pending):
            await task
        return result


@asynccontextmanager
async def briefing_running(
    auth: DemoAuthServer, provider: DemoProvider, *, tasks: Tasks | None = None, **url_options: Any
) -> AsyncIterator[Briefing]:
    """The server on 127.0.0.1: `forecast` needs a weather API key, `agenda` the user's calendar
    (with `tasks`, those of them it names run as tasks too)."""
    built: list[Briefing] = []

    def build(base: str) -> Any:
        server: MCPServer[Any] = MCPServer(
            "briefing",
            token_verifier=auth.token_verifier(),
            auth=AuthSettings(issuer_url=auth.issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
        )
        url_mode = UrlMode(
            browser=OAuthLogin(auth.issuer, scopes=["openid"]),
            public_url=base,
            keys=KeyRing.from_string(KeyRing.generate("k1")),
            store=MemoryStore(),
            **url_options,
        )
        elicit = Elicitation(server, url_mode=url_mode, tasks=tasks)
        api_key = elicit.secret(
            "weather-api-key",
            title="Weather API key",
            message="The forecast tool needs your weather.example API key.",
            validator=validate_weather_key,
        )
        calendar = elicit.oauth(
            "calendar",
            service="Demo Calendar",
            client_id=provider.client_id,
            client_secret=provider.client_secret,
            scopes=[CALENDAR_SCOPE],
            scope_descriptions={CALENDAR_SCOPE: "read your calendar"},
            authorization_endpoint=provider.authorization_endpoint,
            token_endpoint=provider.token_endpoint,
            revocation_endpoint=provider.revocation_endpoint,
        )
        provider.set_redirect_uris([calendar.redirect_uri])

        @server.tool()
        async def forecast(ctx: Context) -> str:  # type: ignore[type-arg]
            return f"Sunny (key {fingerprint(await api_key.get(ctx))})"

        @server.tool()
        async def agenda(ctx: Context) -> str:  # type: ignore[type-arg]
            async with httpx.AsyncClient(auth=calendar.auth(ctx), timeout=10) as http:
                answer = await http.get(provider.api_url)
            answer.raise_for_status()
            return answer.text

        built.append(Briefing(server, url_mode, base, auth, provider))
        return server.streamable_http_app()

    async with serve(build):
        yield built[0]
