"""`Elicitation` for a FastMCP server: the same facade, installed through FastMCP's extension points.

    server = FastMCP("bookings")
    elicit = Elicitation(server, url_mode=UrlMode(...))

    @server.tool
    async def book(city: str, ctx: Context) -> str:
        match await elicit.form(ctx, f"When do you want to go to {city}?", Trip):
            ...

Tools, prompts and resources take FastMCP's own `Context`; `elicit.form`, `Secret.get`,
`OAuthConnection.token` and custom flows accept it as they accept the SDK's. On 2025-11-25 a
question is a live `elicitation/create`; on 2026-07-28 it is returned as an input request
and the tool runs again with the answer, like on an `MCPServer`.
"""

from __future__ import annotations

import weakref
from typing import Any

from fastmcp import FastMCP
from starlette.routing import Route

from elicitkit.fastmcp import _bridge
from elicitkit.server import Elicitation as _SdkElicitation
from elicitkit.server import UrlMode, UrlModeError
from elicitkit.server.web.login import OAuthLogin

_installed: weakref.WeakKeyDictionary[UrlMode, weakref.WeakSet[FastMCP[Any]]] = weakref.WeakKeyDictionary()


class Elicitation(_SdkElicitation):
    """Asks questions on behalf of the tools, prompts and resources of one FastMCP server.

    Creating it adds elicitkit's middleware to `server` and, with `url_mode=`, mounts the
    URL-mode pages on the server's own HTTP app (`server.http_app()`), so links share its origin.
    """

    def __init__(
        self, server: FastMCP[Any], *, timeout: float | None = None, url_mode: UrlMode | None = None
    ) -> None:
        if not isinstance(server, FastMCP):
            raise TypeError(
                f"elicitkit.fastmcp.Elicitation takes a FastMCP server, not {type(server).__name__}; "
                "for the SDK's MCPServer use elicitkit.server.Elicitation."
            )
        self.fastmcp = server
        self.timeout = timeout
        self.url_mode = url_mode
        _bridge.install(server)
        if url_mode is not None:
            install_url_mode(url_mode, server)


def install_url_mode(url_mode: UrlMode, server: FastMCP[Any]) -> None:
    """Mount `url_mode`'s pages on `server`'s HTTP app and let its tools ask in URL mode."""
    if isinstance(url_mode.browser, OAuthLogin) and url_mode.browser.token_verifier is None:
        raise UrlModeError(
            "On a FastMCP server, OAuthLogin needs its token_verifier= (FastMCP's auth provider "
            "is not an SDK TokenVerifier elicitkit can borrow)."
        )
    _bridge.install(server)
    done = _installed.setdefault(url_mode, weakref.WeakSet())
    if server in done:
        return
    if url_mode.site.server_name == "This server":
        url_mode.site.server_name = server.name
    for route in url_mode.site.routes():
        assert isinstance(route, Route)
        methods = sorted(route.methods or {"GET"})
        server.custom_route(route.path, methods=methods, include_in_schema=False)(route.endpoint)
    done.add(server)
