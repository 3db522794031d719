"""The example FastMCP server (examples/fastmcp/server.py) served by uvicorn on 127.0.0.1, and a
person who completes its URL-mode pages in a scripted browser (httpx with a cookie jar)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from support.oauth_harness import continue_url
from support.scripts import ROOT, load
from support.url_harness import Browser, serve

from elicitkit.demo.provider import DemoProvider
from elicitkit.server import KeyRing, MemoryStore, Wait

build = load(ROOT / "examples" / "fastmcp" / "server.py").build

WEATHER_KEY = "wk-fastmcp-0c3b-SECRET"
BOOKING = {"day": "2026-12-24", "party": 4}


@dataclass
class Served:
    """The running example: its base URL, its MCP endpoint, and its URL-mode store."""

    base: str
    store: MemoryStore
    tables: Any = None

    @property
    def mcp(self) -> str:
        return f"{self.base}/mcp"


@asynccontextmanager
async def fastmcp_example(calendar: DemoProvider | None = None, wait: Wait = "live") -> AsyncIterator[Served]:
    store = MemoryStore()
    served = Served("", store)

    def app(url: str) -> Any:
        served.tables = build(
            url,
            calendar.issuer if calendar is not None else None,
            calendar_client=(calendar.client_id, calendar.client_secret) if calendar else ("-", "-"),
            store=store,
            keys=KeyRing.from_string(KeyRing.generate()),
            wait=wait,
        )
        if calendar is not None:
            calendar.set_redirect_uris([served.tables.calendar.redirect_uri])
        return served.tables.server.http_app()

    async with serve(app) as base:
        served.base = base
        yield served


@dataclass
class Person:
    """Opens each URL handed to `open` in a browser and enters the weather key there."""

    secret: str = WEATHER_KEY
    opened: list[str] = field(default_factory=list)
    pages: list[Any] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def open(self, url: str) -> bool:
        self.opened.append(url)
        if url in self.opened[:-1]:
            return True  # one browser tab per link, however often it is opened
        self.tasks.append(asyncio.get_running_loop().create_task(self._complete(url)))
        return True

    async def _complete(self, url: str) -> None:
        async with Browser(auth=None, person="local-user") as browser:
            page = await browser.open(url)
            self.pages.append(page)
            done = await browser.submit(page, secret=self.secret, action="save")
            assert done.status_code == 200 and "Saved" in done.text, done.text[:500]

    async def finished(self) -> None:
        await asyncio.gather(*self.tasks)


@dataclass
class CalendarPerson(Person):
    """Opens the connection link, allows it, signs in at the provider as alice, comes back."""

    provider: DemoProvider | None = None

    async def _complete(self, url: str) -> None:
        assert self.provider is not None
        async with Browser(auth=None, person="local-user") as browser:
            page = await browser.open(url)
            self.pages.append(page)
            assert page.status_code == 200 and "read your calendar" in page.text, page.text[:500]
            moving_on = await browser.submit(page, action="connect")
            assert moving_on.status_code == 200, moving_on.text[:500]
            authorize = continue_url(moving_on.text)
            callback = await self.provider.sign_in(browser.http, authorize, "alice")
            done = await browser.http.get(callback)
            assert done.status_code == 200 and "account is connected" in done.text, done.text[:500]
