"""Everything but elicitation passes through the bridge unchanged, over stdio and over HTTP.

The host is the SDK's `mcp.Client`; the server is stock FastMCP (over stdio behind a stdio
bridge, over HTTP behind an HTTP bridge). What the host gets through the bridge is compared
with what it gets from the server directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from bridge_harness import FASTMCP, bridge_http, bridge_stdio, fastmcp_http
from mcp import Client
from mcp_types import LoggingMessageNotificationParams

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fastmcp_http(tmp_path_factory.mktemp("fastmcp") / "upstream.log") as url:
        yield url


@pytest.fixture(scope="module")
def bridged(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with bridge_http([upstream], tmp_path_factory.mktemp("bridge") / "bridge.log") as url:
        yield url


def target(how: str, bridged: str, upstream: str) -> Any:
    return {"stdio": bridge_stdio([*FASTMCP, "stdio"]), "http": bridged, "direct": upstream}[how]


async def everything(server: Any) -> dict[str, Any]:
    """What a host sees of the server: its listings, a call with progress and logs, a read, a prompt."""
    logs: list[str] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(str(params.data.get("msg") if isinstance(params.data, dict) else params.data))

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        seen: dict[str, Any] = {
            "name": client.server_info.name if client.server_info else None,
            "instructions": client.instructions,
            "tools": [t.model_dump(exclude={"meta"}) for t in (await client.list_tools()).tools],
            "resources": [r.uri for r in (await client.list_resources()).resources],
            "templates": [
                t.uri_template for t in (await client.list_resource_templates()).resource_templates
            ],
            "prompts": [p.name for p in (await client.list_prompts()).prompts],
            "add": (await client.call_tool("add", {"a": 2, "b": 3})).structured_content,
            "count": (await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)).content[
                0
            ],
            "broken": (await client.call_tool("broken", {})).is_error,
            "hello": (await client.read_resource("memo://hello")).contents[0],
            "note": (await client.read_resource("memo://notes/x")).contents[0],
            "haiku": (await client.get_prompt("haiku", {"topic": "sea"})).messages,
        }
        with anyio.fail_after(10):
            while len(logs) < 3:  # log messages arrive on their own, not with the result
                await anyio.sleep(0.05)
    seen["progress"], seen["logs"] = progress, logs
    return seen


@pytest.mark.parametrize("how", ["stdio", "http"])
async def test_a_host_sees_through_the_bridge_what_it_sees_directly(
    how: str, bridged: str, upstream: str
) -> None:
    direct = await everything(target("direct", bridged, upstream))
    through = await everything(target(how, bridged, upstream))
    assert through == direct
    assert through["progress"] == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert through["logs"] == ["counted 1", "counted 2", "counted 3"]
    assert through["name"] == "Stock FastMCP" and through["instructions"]


async def test_a_cancelled_call_leaves_the_bridge_serving(bridged: str) -> None:
    async with Client(bridged, mode="legacy") as client:
        with anyio.move_on_after(2):
            await client.call_tool("sleepy", {"seconds": 60})  # cancelled by the host after 2 s
        result = await client.call_tool("add", {"a": 1, "b": 1})
    assert result.structured_content == {"result": 2}
