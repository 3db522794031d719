"""Shared pieces for the URL-mode tests, all real: a weather MCP server whose tool needs a
`Secret`, served by uvicorn on 127.0.0.1; MCP clients (plain `mcp.Client`) that tap every byte
on the wire; and a scripted browser (httpx with a cookie jar) that signs in at the demo
authorization server like a person would.

Run as a script it is the MCP server alone (the durability test starts it in a subprocess and
kills it with SIGKILL): `python url_harness.py --db PATH --issuer URL --introspection ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import http.cookiejar
import json
import socket
import sys
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitCompleteNotification, ElicitRequestURLParams, ElicitResult
from starlette.types import ASGIApp

from elicitkit.server._elicitation import Elicitation
from elicitkit.server._secret import Secret
from elicitkit.server._url_mode import UrlMode, Wait
from elicitkit.server._user import McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.identity import BrowserIdentity
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import Store
from elicitkit.server.store._sqlite import SQLiteStore

SECRET = "wk-4f1dd9e0c3-SECRET-of-alice"
"""What alice types into the page; the tests look for these bytes everywhere but the vault."""


def fingerprint(value: str) -> str:
    """What the tool returns to prove it got the secret, without sending the secret itself."""
    return hashlib.sha256(value.encode()).hexdigest()[:16]


def validate_weather_key(value: str) -> str | None:
    return None if value.startswith("wk-") else "A weather API key starts with wk-."


@dataclass
class Weather:
    server: MCPServer[Any]
    url_mode: UrlMode
    api_key: Secret


def build_weather(
    *,
    public_url: str | None,
    issuer: str | None,
    verifier: TokenVerifier | None,
    keys: KeyRing,
    store: Store,
    wait: Wait = "live",
    browser: BrowserIdentity | None = None,
    users: McpUsers | None = None,
    ttl: float = 900.0,
    lifespan: Any = None,
    request_state_security: Any = None,
) -> Weather:
    """The weather server; with `issuer=None` it has no MCP authorization at all."""
    if issuer is not None:
        server: MCPServer[Any] = MCPServer(
            "weather",
            token_verifier=verifier,
            request_state_security=request_state_security,
            auth=AuthSettings(issuer_url=issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
        )
        browser = browser if browser is not None else OAuthLogin(issuer, scopes=["openid"])
    else:
        server = MCPServer("weather", lifespan=lifespan)
    url_mode = UrlMode(
        browser=browser,
        public_url=public_url,
        keys=keys,
        store=store,
        wait=wait,
        ttl=ttl,
        users=users,
    )
    elicit = Elicitation(server, url_mode=url_mode)
    api_key = elicit.secret(
        "weather-api-key",
        title="Weather API key",
        message="The forecast tool needs your weather.example API key.",
        description="Find it under Account > API keys at weather.example.",
        validator=validate_weather_key,
    )

    @server.tool()
    async def forecast(city: str, ctx: Context) -> str:  # type: ignore[type-arg]
        key = await api_key.get(ctx)
        return f"Sunny in {city} (key {fingerprint(key)})"

    return Weather(server, url_mode, api_key)


# -- serving -------------------------------------------------------------------------------


def bound_socket(port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


@asynccontextmanager
async def serve(build: Callable[[str], ASGIApp], port: int = 0) -> AsyncIterator[str]:
    """Serve `build(url)` on 127.0.0.1 in this event loop; yields the base URL."""
    sock = bound_socket(port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(build(url), log_level="warning", timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield url
    finally:
        server.should_exit = True
        await task


# -- the MCP client side ---------------------------------------------------------------------


class _Tee(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, sink: list[bytes]) -> None:
        self._inner, self._sink = inner, sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._sink.append(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class Wire(httpx2.AsyncBaseTransport):
    """A transport that keeps every byte the MCP client sends and receives."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.sent: list[bytes] = []
        self.received: list[bytes] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(await request.aread())
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_Tee(response.stream, self.received),
            extensions=response.extensions,
            request=request,
        )

    def everything(self) -> bytes:
        return b"".join(self.sent) + b"".join(self.received)

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass
class Session:
    """One MCP client session and what it saw."""

    client: Client
    wire: Wire
    urls: asyncio.Queue[ElicitRequestURLParams] = field(default_factory=asyncio.Queue)
    notices: list[str] = field(default_factory=list)
    notice_arrived: asyncio.Event = field(default_factory=asyncio.Event)


@asynccontextmanager
async def mcp_session(
    mcp_url: str, token: str, *, mode: str = "legacy", answer: str = "accept"
) -> AsyncIterator[Session]:
    wire = Wire()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        transport=wire,
        timeout=httpx2.Timeout(30, read=120),
    )
    holder: list[Session] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        assert isinstance(params, ElicitRequestURLParams), params
        holder[0].urls.put_nowait(params)
        return ElicitResult(action=answer)  # type: ignore[arg-type]

    async def on_message(message: Any) -> None:
        if isinstance(message, ElicitCompleteNotification):
            holder[0].notices.append(message.params.elicitation_id)
            holder[0].notice_arrived.set()

    client = Client(
        streamable_http_client(mcp_url, http_client=http),
        mode=mode,  # type: ignore[arg-type]
        elicitation_callback=on_elicit,
        message_handler=on_message,
        cache=None,
    )
    session = Session(client=client, wire=wire)
    holder.append(session)
    async with http, client:
        yield session


# -- the scripted browser --------------------------------------------------------------------


class _Form(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "form" and not self.action:
            self.action = values.get("action", "")
        elif tag == "input" and values.get("type") == "hidden":
            self.hidden[values.get("name", "")] = values.get("value", "")


def read_form(html: str) -> tuple[str, dict[str, str]]:
    form = _Form()
    form.feed(html)
    return form.action, form.hidden


def loopback_jar() -> http.cookiejar.CookieJar:
    """A cookie jar that, like Chromium, treats http://127.0.0.1 as a secure context, so it keeps
    and sends `Secure` (and `__Host-`) cookies there. Python's default sends them over https only."""
    policy = http.cookiejar.DefaultCookiePolicy(secure_protocols=("https", "wss", "http"))
    return http.cookiejar.CookieJar(policy)


class _Info:
    def __init__(self, headers: httpx.Headers) -> None:
        self._headers = headers

    def get_all(self, name: str, default: Any = None) -> Any:
        return self._headers.get_list(name) or default


class _Answer:
    def __init__(self, headers: httpx.Headers) -> None:
        self._info = _Info(headers)

    def info(self) -> _Info:
        return self._info


class BrowserCookies(httpx.AsyncBaseTransport):
    """The browser's cookie handling, as a transport: `loopback_jar` rules, every request.

    (httpx copies its jar into a default-policy one per request, which never sends `Secure`
    cookies over http, so the jar lives here instead.)
    """

    def __init__(self) -> None:
        self.jar = loopback_jar()
        self.set_cookie_headers: list[str] = []
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        compat = urllib.request.Request(str(request.url), method=request.method)
        self.jar.add_cookie_header(compat)
        cookie = compat.unredirected_hdrs.get("Cookie")
        if cookie:
            request.headers["Cookie"] = cookie
        elif "Cookie" in request.headers:
            del request.headers["Cookie"]
        response = await self._inner.handle_async_request(request)
        self.jar.extract_cookies(_Answer(response.headers), compat)  # type: ignore[arg-type]
        self.set_cookie_headers.extend(response.headers.get_list("set-cookie"))
        return response

    def cookies(self) -> list[http.cookiejar.Cookie]:
        return list(self.jar)

    async def aclose(self) -> None:
        await self._inner.aclose()


class Browser:
    """A person's browser, scripted: follows redirects, signs in at the demo AS as `person`."""

    def __init__(self, auth: Any, person: str) -> None:
        self.auth = auth
        self.person = person
        self.cookies = BrowserCookies()
        self.http = httpx.AsyncClient(transport=self.cookies, timeout=30)
        self.history: list[str] = []
        self.set_cookie_headers = self.cookies.set_cookie_headers

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    async def open(self, url: str) -> httpx.Response:
        response = await self.http.get(url)
        self.history.append(url)
        while response.is_redirect:
            location = urljoin(str(response.url), response.headers["location"])
            if self.auth is not None and location.startswith(f"{self.auth.url}/authorize"):
                location = await self.auth.sign_in(self.http, location, self.person)
            self.history.append(location)
            response = await self.http.get(location)
        return response

    async def submit(self, page: httpx.Response, **fields: str) -> httpx.Response:
        action, hidden = read_form(page.text)
        return await self.http.post(urljoin(str(page.url), action), data={**hidden, **fields})


# -- the server as its own process -----------------------------------------------------------


def main_stdio(db: str) -> None:
    """A stdio server for one person on this machine: single-user local mode, pages on loopback."""
    holder: list[Weather] = []

    @asynccontextmanager
    async def lifespan(server: Any) -> AsyncIterator[dict[str, Any]]:
        async with holder[0].url_mode.loopback():
            yield {}

    weather = build_weather(
        public_url=None,
        issuer=None,
        verifier=None,
        keys=KeyRing.from_env(),
        store=SQLiteStore(Path(db)),
        users=McpUsers.single_user_local(),
        lifespan=lifespan,
    )
    holder.append(weather)
    weather.server.run("stdio")


def main(argv: list[str] | None = None) -> None:
    from elicitkit.demo.auth_server import IntrospectionTokenVerifier

    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--port", type=int)
    parser.add_argument("--db", required=True)
    parser.add_argument("--issuer")
    parser.add_argument("--introspection", help="JSON: endpoint, client_id, client_secret")
    parser.add_argument("--wait", default="error")
    args = parser.parse_args(argv)
    if args.stdio:
        return main_stdio(args.db)
    spec = json.loads(args.introspection)
    verifier = IntrospectionTokenVerifier(
        spec["endpoint"], client_id=spec["client_id"], client_secret=spec["client_secret"], issuer=args.issuer
    )
    public_url = f"http://127.0.0.1:{args.port}"
    weather = build_weather(
        public_url=public_url,
        issuer=args.issuer,
        verifier=verifier,
        keys=KeyRing.from_env(),
        store=SQLiteStore(Path(args.db)),
        wait=args.wait,
    )
    uvicorn.run(weather.server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
