"""Defence in depth on the URL-mode pages: a POST whose `Origin` or `Sec-Fetch-Site` says it
came from another site is refused even when it carries a valid session cookie and CSRF token."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult

from elicitkit.server import Elicitation
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import MemoryStore

PUBLIC = "http://127.0.0.1:1"

CROSS_SITE = [
    {"origin": "https://evil.example"},
    {"origin": "null", "sec-fetch-site": "cross-site"},
    {"origin": "http://127.0.0.1:2"},  # another port is another origin
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"sec-fetch-site": "cross-site", "origin": PUBLIC},  # the browser's word wins
    {"sec-fetch-site": "same-site", "origin": "https://sub.127.0.0.1"},
]


async def test_cross_site_posts_are_refused_and_change_nothing() -> None:
    server = MCPServer("cross")
    store = MemoryStore()
    url_mode = UrlMode(
        public_url=PUBLIC,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=store,
        users=McpUsers.single_user_local(),
    )
    elicit = Elicitation(server, url_mode=url_mode)
    token = elicit.secret("token", title="Token", message="The tool needs your token.")

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
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=PUBLIC) as browser,
    ):
        call = asyncio.create_task(client.call_tool("use", {}))
        url = await asyncio.wait_for(urls.get(), 10)
        page = await browser.get(url)
        cookie = page.headers["set-cookie"].split(";", 1)[0]
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        form = {"csrf": csrf, "secret": "s3cret-value", "action": "save"}
        elicitation_id = url.rsplit("/", 1)[1]
        for headers in CROSS_SITE:
            refused = await browser.post(url, data=form, headers={"cookie": cookie, **headers})
            assert refused.status_code == 403, headers
            assert "from another site" in refused.text
            record = await store.get(elicitation_id)
            assert record is not None and record.state == "opened", headers
        assert not call.done()
        done = await browser.post(
            url,
            data=form,
            headers={"cookie": cookie, "origin": PUBLIC, "sec-fetch-site": "same-origin"},
        )
        assert done.status_code == 200 and "Saved" in done.text
        result = await asyncio.wait_for(call, 10)
    assert not result.is_error and "got 12 characters" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("headers", "cross"),
    [
        ({}, False),  # not a browser, or an old one: the CSRF token alone decides
        ({"sec-fetch-site": "none"}, False),  # typed or bookmarked by the person
        ({"origin": "HTTP://127.0.0.1:1"}, False),
        ({"origin": "https://127.0.0.1:1"}, True),
        ({"origin": "null"}, False),  # what our no-referrer pages make a browser send for our own forms
        ({"origin": "https://evil.example", "sec-fetch-site": "same-origin"}, False),
    ],
)
def test_cross_site_rule(headers: dict[str, str], cross: bool) -> None:
    from starlette.requests import Request

    url_mode = UrlMode(
        public_url=PUBLIC,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/elicit/x",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    assert url_mode.site.cross_site(Request(scope)) is cross
