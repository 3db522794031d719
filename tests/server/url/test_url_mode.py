"""UrlMode set-up checks that need no server."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import Context

from elicitkit.server._errors import UrlModeError
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import MemoryStore


def test_public_url_must_be_http_and_should_be_https(caplog: pytest.LogCaptureFixture) -> None:
    def make(url: str) -> UrlMode:
        return UrlMode(
            public_url=url,
            keys=KeyRing.from_string(KeyRing.generate()),
            store=MemoryStore(),
            users=McpUsers.single_user_local(),
        )

    with pytest.raises(UrlModeError, match="http"):
        make("javascript:alert(1)")
    make("http://127.0.0.1:8000")
    assert "plain http" not in caplog.text
    make("http://mcp.example.com")
    assert "plain http" in caplog.text


async def test_loopback_serves_the_pages_on_127_0_0_1() -> None:
    import httpx

    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )
    async with url_mode.loopback() as base:
        assert base.startswith("http://127.0.0.1:")
        assert url_mode.site.url_for("abc") == f"{base}/elicit/abc"
        async with httpx.AsyncClient() as http:
            page = await http.get(f"{base}/elicit/{'x' * 40}")
    assert page.status_code == 404 and page.headers["x-frame-options"] == "DENY"


def test_flow_names_are_unique() -> None:
    from elicitkit.server._secret import Secret

    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )
    Secret(url_mode, "k", title="Key", message="why")
    with pytest.raises(UrlModeError, match="exists already"):
        Secret(url_mode, "k", title="Key", message="why")


async def test_hook_identity_sends_strangers_to_the_apps_sign_in() -> None:
    import httpx
    from starlette.applications import Starlette

    from elicitkit.server._user import User
    from elicitkit.server._web.identity import HookIdentity
    from elicitkit.server.store import Record

    alice = User("https://as.example", "alice")

    async def from_header(request: object) -> User | None:  # a test double of an app's own sign-in
        name = getattr(request, "headers", {}).get("x-test-person")
        return User("https://as.example", name) if name else None

    def plain(login_url: object = None) -> UrlMode:
        return UrlMode(
            browser=HookIdentity(from_header, login_url=login_url),  # type: ignore[arg-type]
            public_url="http://127.0.0.1:1",
            keys=KeyRing.from_string(KeyRing.generate()),
            store=MemoryStore(),
        )

    for url_mode, expected in ((plain(), 401), (plain(lambda back: f"/signin?next={back}"), 303)):
        from elicitkit.server._secret import Secret

        Secret(url_mode, "k", title="Key", message="why")
        record = Record.new(alice, "c", "k", "why", ttl=60)
        await url_mode.store.create(record)
        app = Starlette(routes=url_mode.site.routes())
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app), base_url="http://127.0.0.1:1"
        ) as http:
            stranger = await http.get(f"/elicit/{record.id}")
            assert stranger.status_code == expected
            if expected == 303:
                assert stranger.headers["location"] == f"/signin?next=/elicit/{record.id}"
            owner = await http.get(f"/elicit/{record.id}", headers={"x-test-person": "alice"})
            assert owner.status_code == 200 and "alice" in owner.text
            other = await http.get(f"/elicit/{record.id}", headers={"x-test-person": "mallory"})
            assert other.status_code == 403


async def test_pages_escape_what_they_show() -> None:
    import httpx
    from starlette.applications import Starlette

    from elicitkit.server._secret import Secret
    from elicitkit.server._user import User
    from elicitkit.server._web.identity import HookIdentity
    from elicitkit.server.store import Record

    alice = User("https://as.example", "<b>alice</b>")

    async def always_alice(request: object) -> User | None:
        return alice

    url_mode = UrlMode(
        browser=HookIdentity(always_alice),
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        server_name="<i>srv</i>",
    )
    Secret(url_mode, "k", title="<u>Key</u>", message="m")
    record = Record.new(
        alice, "c", "k", "<script>alert(1)</script>", ttl=60, details={"description": "<img>"}
    )
    await url_mode.store.create(record)
    app = Starlette(routes=url_mode.site.routes())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1:1") as http:
        page = await http.get(f"/elicit/{record.id}")
    assert page.status_code == 200
    for raw in ("<script>", "<b>alice", "<i>srv", "<u>Key", "<img>"):
        assert raw not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text and "&lt;img&gt;" in page.text


def test_facade_without_url_mode_says_what_to_do() -> None:
    from mcp.server.mcpserver import MCPServer

    from elicitkit.server import Elicitation

    with pytest.raises(UrlModeError, match="url_mode=UrlMode"):
        Elicitation(MCPServer("s")).secret("k", title="Key", message="why")


async def test_facade_secret_end_to_end_in_process() -> None:
    """`Elicitation(server, url_mode=...)` mounts the pages; `elicit.secret(...)` is a `Secret`."""
    import asyncio

    import httpx
    from mcp import Client
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ElicitResult

    from elicitkit.server import Elicitation

    server = MCPServer("facade")
    url_mode = UrlMode(
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )
    elicit = Elicitation(server, url_mode=url_mode)
    token = elicit.secret("token", title="Token", message="The tool needs your token.")
    held = elicit.secret("held", title="Held", message="Asked with -32042.", wait="error")
    assert (token.wait, held.wait) == (None, "error")

    @server.tool()
    async def use(ctx: Context) -> str:  # type: ignore[type-arg]
        return f"got {len(await token.get(ctx))} characters"

    urls: asyncio.Queue[str] = asyncio.Queue()

    async def on_elicit(context: object, params: object) -> ElicitResult:
        urls.put_nowait(params.url)  # type: ignore[attr-defined]
        return ElicitResult(action="accept")

    app = server.streamable_http_app()
    async with (
        Client(server, mode="legacy", elicitation_callback=on_elicit, cache=None) as client,
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1:1") as browser,
    ):
        call = asyncio.create_task(client.call_tool("use", {}))
        url = await asyncio.wait_for(urls.get(), 10)
        page = await browser.get(url)
        assert page.status_code == 200 and "Token" in page.text
        cookie = page.headers["set-cookie"].split(";", 1)[0]
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        done = await browser.post(
            url, data={"csrf": csrf, "secret": "s3cret-value", "action": "save"}, headers={"cookie": cookie}
        )
        assert done.status_code == 200 and "Saved" in done.text
        result = await asyncio.wait_for(call, 10)
    assert not result.is_error and "got 12 characters" in result.content[0].text  # type: ignore[union-attr]
