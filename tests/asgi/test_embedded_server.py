"""`EmbeddedServer` serves an app on 127.0.0.1 inside the caller's loop, built knowing its URL."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from elicitkit.asgi import EmbeddedServer


def saying_its_url(url: str) -> ASGIApp:
    async def home(request: object) -> PlainTextResponse:
        return PlainTextResponse(url)

    return Starlette(routes=[Route("/", home)])


async def test_it_answers_at_the_url_the_app_was_built_with_until_stopped() -> None:
    server = EmbeddedServer(saying_its_url)
    async with server:
        assert server.url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient() as http:
            page = await http.get(server.url + "/")
        assert page.text == server.url
        url = server.url
    with pytest.raises(RuntimeError, match="start"):
        server.url  # noqa: B018
    async with httpx.AsyncClient() as http:
        with pytest.raises(httpx.ConnectError):
            await http.get(url + "/")
    await server.stop()  # twice: harmless


async def test_a_port_in_use_is_one_sentence_that_says_what_to_do() -> None:
    async with EmbeddedServer(saying_its_url) as first:
        port = int(first.url.rsplit(":", 1)[1])
        with pytest.raises(RuntimeError, match=rf"Cannot listen on 127\.0\.0\.1:{port} .*port=0"):
            await EmbeddedServer(saying_its_url, port=port).start()
