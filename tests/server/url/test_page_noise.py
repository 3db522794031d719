"""What a stranger can make a page do costs them, not the log: over raw HTTP to a real
uvicorn, a POST is refused from its headers alone when it carries no session, a browser that
goes away mid-form is one log line (never a traceback), and a body over the limit is refused
before it is read."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from support.url_harness import serve

from elicitkit.server import Elicitation, HookIdentity, KeyRing, MemoryStore, UrlMode
from elicitkit.server._user import User
from elicitkit.server._web.sessions import SessionCookies

pytestmark = pytest.mark.timeout(60)

KEYS = KeyRing.from_string(KeyRing.generate())
ALICE = User("https://as.example", "alice")


async def alice(request: Request) -> User | None:
    return ALICE


@asynccontextmanager
async def site() -> AsyncIterator[int]:
    def build(url: str) -> Starlette:
        url_mode = UrlMode(browser=HookIdentity(alice), public_url=url, keys=KEYS, store=MemoryStore())
        elicit = Elicitation(MCPServer("noise"), url_mode=url_mode)
        elicit.secret("api-key", title="API key", message="The tool needs it.")
        return Starlette(routes=url_mode.site.routes())

    async with serve(build) as url:
        yield int(url.rsplit(":", 1)[1])


def cookie() -> str:
    response = Response()
    SessionCookies().save(response, SessionCookies().new(ALICE), KEYS)
    return response.headers["set-cookie"].split(";", 1)[0]


def post_head(length: int, extra: str = "") -> bytes:
    page = secrets.token_urlsafe(32)
    return (
        f"POST /elicit/{page} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n{extra}\r\n"
    ).encode()


async def answer_to(port: int, request: bytes) -> bytes:
    """Send `request` (headers and maybe part of a body) and read what comes back at once."""
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(request)
        with anyio.fail_after(5):  # the code before this fix waited here for a body never sent
            return await stream.receive()


async def test_a_post_without_a_session_is_refused_before_its_body_is_read() -> None:
    async with site() as port:
        start = time.monotonic()
        answer = await answer_to(port, post_head(1_000_000))
        assert answer.startswith(b"HTTP/1.1 403"), answer[:80]
        assert time.monotonic() - start < 2


async def test_a_body_over_the_limit_is_refused_from_its_length() -> None:
    async with site() as port:
        answer = await answer_to(port, post_head(50_000_000, f"Cookie: {cookie()}\r\n"))
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("with_session", [False, True])
async def test_browsers_that_go_away_mid_form_leave_no_traceback(with_session: bool) -> None:
    kept = Kept()
    async with site() as port:
        watched = [logging.getLogger(name) for name in ("uvicorn", "elicitkit")]  # uvicorn's keep to itself
        for logger in watched:
            logger.addHandler(kept)
        try:
            for _ in range(10):
                async with await anyio.connect_tcp("127.0.0.1", port) as stream:
                    extra = f"Cookie: {cookie()}\r\n" if with_session else ""
                    await stream.send(post_head(4096, extra) + b"csrf=abc&secret=")
                await anyio.sleep(0.05)
            await anyio.sleep(0.5)  # the server notices the last one went away
        finally:
            for logger in watched:
                logger.removeHandler(kept)
    tracebacks = [r.getMessage() for r in kept.records if r.exc_info]
    assert tracebacks == []
    text = "\n".join(kept.format(r) for r in kept.records)
    assert "ClientDisconnect" not in text
    assert len(text.encode()) < 10 * 200, "one short line per abandoned POST at most"
