"""Every URL-mode page, mounted on an `MCPServer`'s own app, goes out with the security headers:
a refusal, the stylesheet, a page of the identity check, the same as a form."""

from __future__ import annotations

import httpx
from mcp.server.mcpserver import MCPServer
from support.security_headers import assert_hardened

from elicitkit.server import Elicitation, KeyRing, McpUsers, MemoryStore, UrlMode


async def test_the_pages_mounted_on_the_server_carry_the_headers() -> None:
    server = MCPServer("headers")
    url_mode = UrlMode(
        users=McpUsers.single_user_local(),
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        public_url="http://127.0.0.1:8000",
    )
    Elicitation(server, url_mode=url_mode)
    app = server.streamable_http_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        unknown = await http.get(f"/elicit/{'x' * 40}")
        css = await http.get("/elicit/static/style.css")
        callback = await http.get("/elicit/callback/nothing")
        post = await http.post(f"/elicit/{'x' * 40}", data={"csrf": "x"})
    assert (unknown.status_code, css.status_code, callback.status_code) == (404, 200, 404)
    for response in (unknown, css, callback, post):
        assert_hardened(response.headers)
