"""An upstream URL that is no MCP endpoint is named as such, in one sentence a person can act on.

A wrong path (the SDK's server and the reference "everything" server's Express app answer 404),
a web page where MCP should be, and another HTTP error (Python's own `http.server`, which answers
a POST with 501): the host gets the sentence as the JSON-RPC error of its `initialize` (a
2025-11-25 host) or of its first request (a 2026-07-28 host, which the bridge still lets in), and
`elicitkit bridge --listen` says it on stderr and stops, instead of "Not Found", an unexpected
content type, or a refusal of the handshake that blames the protocol.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from bridge_harness import PY, SDK, bridge_args, bridge_stdio, environment, http_process
from mcp import Client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from support.server_process import free_port
from support.url_harness import serve

pytestmark = pytest.mark.timeout(300)

PATH_QUESTION = "is the path right (most servers serve MCP at /mcp)?"


async def home_page(request: Request) -> HTMLResponse:
    return HTMLResponse("<!doctype html><title>Example</title><h1>Welcome</h1>")


@asynccontextmanager
async def wrong_url(kind: str, tmp_path: Path, everything_http: str) -> AsyncIterator[tuple[str, str]]:
    """An upstream URL of `kind`, and the sentence it should get."""
    if kind == "sdk-404":
        with http_process([*SDK, "http", "PORT"], tmp_path / "sdk.log") as url:
            nope = url.replace("/mcp", "/nope")
            yield nope, f"The upstream URL {nope} answered 404 Not Found: {PATH_QUESTION}"
    elif kind == "express-404":
        root = everything_http.removesuffix("mcp")
        yield root, f"The upstream URL {root} answered 404 Not Found: {PATH_QUESTION}"
    elif kind == "web-page":
        site = Starlette(routes=[Route("/", home_page, methods=["GET", "POST"])])
        async with serve(lambda url: site) as base:
            page = f"{base}/"
            yield page, f"The upstream URL {page} answered 200 OK with a web page, not MCP: {PATH_QUESTION}"
    else:
        port = free_port()
        command = [PY, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)]
        with http_process(command, tmp_path / "files.log", port=port) as url:
            yield (
                url,
                (
                    f"The upstream URL {url} answered 501 Unsupported method ('POST'); check that the "
                    "server runs and that this address is its MCP endpoint, then try again."
                ),
            )


KINDS = ["sdk-404", "express-404", "web-page", "http-server-501"]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_2025_host_gets_the_sentence_as_its_initialize_error(
    kind: str, tmp_path: Path, everything_http: str
) -> None:
    async with wrong_url(kind, tmp_path, everything_http) as (url, sentence):
        with pytest.raises(Exception) as refused:  # the SDK wraps it in a group
            async with Client(bridge_stdio([url], "host"), mode="legacy"):
                pass
    error = refused.value
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    assert isinstance(error, MCPError) and error.error.message == sentence


@pytest.mark.parametrize("kind", ["sdk-404", "web-page"])
async def test_a_2026_host_gets_the_sentence_as_its_first_requests_error(
    kind: str, tmp_path: Path, everything_http: str
) -> None:
    """Its `server/discover` failing would send the SDK's client to an `initialize` the
    connection no longer takes, whose refusal hides why; so it is let in, and told at once."""
    async with (
        wrong_url(kind, tmp_path, everything_http) as (url, sentence),
        Client(bridge_stdio([url], "host")) as client,
    ):
        assert client.protocol_version == "2026-07-28"
        with pytest.raises(MCPError) as refused:
            await client.list_tools()
    assert refused.value.error.message == sentence


@pytest.mark.parametrize("kind", KINDS)
async def test_the_listening_bridge_says_it_on_stderr_and_stops(
    kind: str, tmp_path: Path, everything_http: str
) -> None:
    async with wrong_url(kind, tmp_path, everything_http) as (url, sentence):
        port = free_port()
        command = [PY, *bridge_args([url], "host", "--listen", f"127.0.0.1:{port}")]
        with anyio.fail_after(120):
            env = environment(XDG_DATA_HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path))
            done = await anyio.run_process(command, check=False, env=env)
    said = done.stderr.decode()
    assert done.returncode == 1, said
    assert said.splitlines()[-1] == f"elicitkit bridge: {sentence}", said
    assert "Traceback" not in said
