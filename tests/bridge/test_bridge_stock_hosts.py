"""Stock hosts nobody here wrote, through the bridge, over stdio and over HTTP.

The TypeScript SDK's clients (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`,
both on 2025-11-25 by default) and FastMCP's `Client`, with and without an elicitation
handler, in front of a stock FastMCP server (over stdio when the host runs the bridge, over
HTTP when the host reaches the bridge by URL). With a handler they answer the form
themselves (`--answer auto` hands the host the modes it declared); without one, the person
answers in the bridge's own page (Chromium plays them).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bridge_harness import (
    FASTMCP,
    PY,
    ROOT,
    BrowserRecord,
    bridge_args,
    bridge_http,
    environment,
    fastmcp_http,
)
from playwright.async_api import Browser

pytestmark = pytest.mark.timeout(300)

TS = ROOT / "tests" / "peers" / "ts-sdk"
TRIP = {"city": "Oslo", "nights": 2}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fastmcp_http(tmp_path_factory.mktemp("fastmcp") / "upstream.log") as url:
        yield url


@pytest.fixture(scope="module")
def bridge(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with bridge_http([upstream], tmp_path_factory.mktemp("bridge") / "bridge.log", "auto") as url:
        yield url


def ts_host(version: str, how: str, bridge: str, modes: str, action: str) -> list[dict[str, Any]]:
    target = bridge if how == "http" else json.dumps([PY, *bridge_args([*FASTMCP, "stdio"], "auto")])
    done = subprocess.run(
        ["node", "bridge_host.mjs", version, how, target, "book", modes, action, json.dumps(TRIP)],
        cwd=TS,
        capture_output=True,
        text=True,
        timeout=240,
        env=environment(),
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return lines


def booked(text: str, action: str) -> bool:
    return text == ("booked 2 nights in Oslo" if action == "accept" else f"not booked: {action}")


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("how", ["stdio", "http"])
async def test_typescript_hosts_answer_the_form_themselves(version: str, how: str, bridge: str) -> None:
    lines = await asyncio.to_thread(ts_host, version, how, bridge, "form", "accept")
    asked = [line["asked"] for line in lines if "asked" in line]
    [result] = [line["result"] for line in lines if "result" in line]
    assert [a["message"] for a in asked] == ["Where to, and for how many nights?"]
    assert booked(result["content"][0]["text"], "accept")


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_typescript_hosts_decline_and_cancel(version: str, action: str, bridge: str) -> None:
    lines = await asyncio.to_thread(ts_host, version, "http", bridge, "form", action)
    [result] = [line["result"] for line in lines if "result" in line]
    assert booked(result["content"][0]["text"], action)


def fastmcp_transport(how: str, bridge: str, *options: str, env: dict[str, str] | None = None) -> Any:
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

    if how == "http":
        return StreamableHttpTransport(bridge)
    args = bridge_args([*FASTMCP, "stdio"], "auto", *options)
    return StdioTransport(command=PY, args=args, env=env or environment())


@pytest.mark.parametrize("how", ["stdio", "http"])
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_fastmcp_client_with_a_handler_answers_itself(how: str, action: str, bridge: str) -> None:
    from fastmcp import Client
    from fastmcp.client.elicitation import ElicitResult

    asked: list[str] = []

    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(message)
        return ElicitResult(action=action, content=dict(TRIP) if action == "accept" else None)

    transport = fastmcp_transport(how, bridge)
    async with Client(transport, elicitation_handler=on_elicit, timeout=120, mode="legacy") as client:
        result = await client.call_tool_mcp("book", {})
    assert asked == ["Where to, and for how many nights?"]
    assert booked(result.content[0].text, action)  # type: ignore[union-attr]


@pytest.mark.parametrize("how", ["stdio", "http"])
async def test_fastmcp_client_without_a_handler_gets_its_answer_from_the_bridges_page(
    how: str, upstream: str, tmp_path: Path, chromium: Browser
) -> None:
    """FastMCP's client speaks 2026-07-28; FastMCP's server asks only live, on 2025-11-25: the
    bridge speaks each its own revision and answers in its page."""
    from fastmcp import Client

    record = BrowserRecord(tmp_path)
    env = environment(**record.env)

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(record.next_url, 0))
        await page.get_by_label("City").fill("Oslo")
        await page.get_by_label("Nights").fill("2")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    async def run(transport: Any) -> Any:
        async with Client(transport, timeout=120) as client:  # no elicitation handler: none declared
            assert client.protocol_version == "2026-07-28"
            played = asyncio.create_task(person())
            result = await client.call_tool_mcp("book", {})
            await played
        return result

    legacy = ("--upstream-protocol", "2025-11-25")
    if how == "stdio":
        result = await run(fastmcp_transport(how, "", *legacy, env=env))
    else:
        with bridge_http([upstream], tmp_path / "bridge.log", "auto", *legacy, env=env) as url:
            result = await run(fastmcp_transport(how, url))
    assert booked(result.content[0].text, "accept")
    assert record.opened()[0].startswith("file://")  # the page, by its private file
