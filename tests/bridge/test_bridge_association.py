"""Several calls open on one host session: each upstream question reaches the host on its own call.

The host is raw HTTP, so the test reads which POST stream each `elicitation/create` arrives on
(the SDK server sends a request on the stream of the request it names in `related_request_id`).
Call "slow" opens first and asks later, while call "fast", opened after it, has asked and is
still open: a bridge that tied questions to the newest open call would send the slow call's
question on the fast call's stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from bridge_harness import SDK, bridge_http, http_process

pytestmark = pytest.mark.timeout(180)

SSE = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def bridged(tmp_path: Path) -> Iterator[str]:
    with (
        http_process([*SDK, "http", "PORT"], tmp_path / "upstream.log") as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "host") as url,
    ):
        yield url


async def messages(response: httpx2.Response) -> Any:
    """The JSON-RPC messages of one SSE response, as they arrive."""
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def test_each_question_arrives_on_the_call_that_caused_it(bridged: str) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "raw-host", "version": "1"},
            },
        }
        response = await http.post(bridged, json=init, headers=SSE)
        headers = {
            **SSE,
            "mcp-session-id": response.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(
            bridged, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )

        asked: dict[str, list[str]] = {"slow": [], "fast": []}
        results: dict[str, str] = {}

        async def answer(question: dict[str, Any], label: str) -> None:
            content = {"name": f"answer-{label}"}
            reply = {
                "jsonrpc": "2.0",
                "id": question["id"],
                "result": {"action": "accept", "content": content},
            }
            await http.post(bridged, json=reply, headers=headers)

        async def call(request_id: int, label: str, delay: float, hold: float) -> None:
            body = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": "ask_as", "arguments": {"label": label, "delay": delay, "hold": hold}},
            }
            async with http.stream("POST", bridged, json=body, headers=headers) as stream:
                async for message in messages(stream):
                    if message.get("method") == "elicitation/create":
                        asked[label].append(message["params"]["message"])
                        tasks.start_soon(answer, message, label)
                    elif message.get("id") == request_id:
                        results[label] = message["result"]["content"][0]["text"]
                        return

        with anyio.fail_after(90):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, 11, "slow", 1.5, 0.0)
                await anyio.sleep(0.3)  # the slow call is open before the fast one
                tasks.start_soon(call, 12, "fast", 0.0, 3.0)

    assert asked == {"slow": ["Question for slow"], "fast": ["Question for fast"]}
    assert json.loads(results["slow"])["content"] == {"name": "answer-slow"}
    assert json.loads(results["fast"])["content"] == {"name": "answer-fast"}
