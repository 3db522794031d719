"""`elicitkit.bridge.Bridge` embedded in a program: its ASGI app mounted in a gateway's own
Starlette app, served by uvicorn on 127.0.0.1, with a stock SDK server upstream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from bridge_harness import SDK, http_process, text_of
from mcp import Client
from mcp_types import ElicitResult
from starlette.applications import Starlette
from starlette.routing import Mount
from support.url_harness import serve

from elicitkit.bridge import Bridge

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def sdk_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with http_process([*SDK, "http", "PORT"], tmp_path_factory.mktemp("sdk") / "upstream.log") as url:
        yield url


def gateway(bridge: Bridge) -> Starlette:
    """A gateway's app: the bridge mounted at /crm, its lifespan run by the gateway's."""
    crm = bridge.asgi_app(credential=None)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with crm.router.lifespan_context(crm):
            yield

    return Starlette(routes=[Mount("/crm", app=crm)], lifespan=lifespan)


async def test_a_gateway_mounts_the_bridge_and_a_host_answers_through_it(sdk_http: str) -> None:
    async def host(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Grace"})

    async with (
        serve(lambda url: gateway(Bridge(sdk_http, answer="host"))) as base,
        Client(f"{base}/crm/mcp", elicitation_callback=host, mode="legacy") as client,
    ):
        assert client.server_info is not None and client.server_info.name == "SDK Upstream"
        got = json.loads(text_of(await client.call_tool("ask_name", {})))
    assert got == {"action": "accept", "content": {"name": "Grace"}}


async def test_a_host_that_never_answers_is_given_up_on_and_the_server_told(
    sdk_http: str, tmp_path: Path
) -> None:
    async def silent_host(context: Any, params: Any) -> ElicitResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    bridge = Bridge(sdk_http, answer="host", question_timeout=1.0)
    async with (
        serve(lambda url: gateway(bridge)) as base,
        Client(f"{base}/crm/mcp", elicitation_callback=silent_host, mode="legacy") as client,
    ):
        with anyio.fail_after(60):
            got = json.loads(text_of(await client.call_tool("ask_name", {})))
    assert got == {"action": "cancel", "content": None}
