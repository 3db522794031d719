"""`SecurityHeaders` puts the hardening headers on every response, once each, in place of any
the app set, and a fresh nonce in the policy per request."""

from __future__ import annotations

import re

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from support.security_headers import assert_hardened, policy_of

from elicitkit.asgi import SecurityHeaders, csp_nonce

POLICY = "default-src 'none'; style-src 'nonce-{nonce}'; frame-ancestors 'none'; base-uri 'none'"


async def loose(request: Request) -> Response:
    """A page that sets looser headers of its own, and a cookie and a header of its own."""
    response = PlainTextResponse(
        csp_nonce(request.scope),
        headers={
            "X-Frame-Options": "SAMEORIGIN",
            "Cache-Control": "public, max-age=600",
            "Content-Security-Policy": "frame-ancestors *",
            "X-Other": "kept",
        },
    )
    response.set_cookie("c", "v")
    return response


def client() -> httpx.AsyncClient:
    app = SecurityHeaders(Starlette(routes=[Route("/", loose)]), content_security_policy=POLICY)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")


async def test_every_response_gets_each_header_once_in_place_of_its_own() -> None:
    async with client() as http:
        page = await http.get("/")
        missing = await http.get("/nowhere")
    for response in (page, missing):
        nonce = re.fullmatch(r"'nonce-([\w-]{16,})'", policy_of(response.headers)["style-src"])
        assert nonce is not None
        expected = {"default-src": "'none'", "style-src": nonce.group(0), "frame-ancestors": "'none'"}
        assert_hardened(response.headers, {**expected, "base-uri": "'none'"})
    assert page.headers["x-other"] == "kept" and page.cookies["c"] == "v"
    assert missing.status_code == 404


async def test_each_request_gets_a_fresh_nonce_the_page_can_read() -> None:
    async with client() as http:
        first, second = await http.get("/"), await http.get("/")
    assert policy_of(first.headers)["style-src"] == f"'nonce-{first.text}'"
    assert len(first.text) >= 16 and first.text != second.text
