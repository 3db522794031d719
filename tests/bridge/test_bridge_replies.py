"""A host gets through the bridge the JSON-RPC replies the server gives it directly: results and
errors (codes, messages and data), for every plain request a host makes.

The host here is raw HTTP (what any host sends on the wire), so what is compared is the
JSON-RPC message itself: the server's own reply, on its event stream, against the bridge's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bridge_harness import SDK, bridge_http, fastmcp_http, http_process

pytestmark = pytest.mark.timeout(300)

_ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fastmcp_http(tmp_path_factory.mktemp("fastmcp") / "upstream.log") as url:
        yield url


@pytest.fixture(scope="module")
def sdk_upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with http_process([*SDK, "http", "PORT"], tmp_path_factory.mktemp("sdk") / "upstream.log") as url:
        yield url


class RawHost:
    """A host speaking 2025-11-25 Streamable HTTP by hand, declaring no elicitation."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url
        self.headers = {"accept": _ACCEPT, "content-type": "application/json"}
        self.next_id = 0

    async def open(self) -> None:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-host", "version": "1"},
        }
        response, _ = await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = "2025-11-25"
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The JSON-RPC reply, without its id."""
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        _, reply = await self.post(message)
        assert reply is not None and reply.pop("id") == self.next_id
        return reply

    async def post(self, message: dict[str, Any]) -> tuple[httpx.Response, Any]:
        response = await self.http.post(self.url, json=message, headers=self.headers)
        response.raise_for_status()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            replies = [
                json.loads(line[5:])
                for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()
            ]
            answers = [reply for reply in replies if "result" in reply or "error" in reply]
            return response, answers[-1] if answers else None
        return response, response.json() if response.content else None


_REQUESTS: list[tuple[str, dict[str, Any] | None]] = [
    ("tools/list", None),
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
    ("tools/call", {"name": "broken", "arguments": {}}),
    ("tools/call", {"name": "add", "arguments": {"a": "two"}}),
    ("tools/call", {"name": "no-such-tool", "arguments": {}}),
    ("resources/list", None),
    ("resources/templates/list", {}),
    ("resources/read", {"uri": "memo://hello"}),
    ("resources/read", {"uri": "memo://notes/x"}),
    ("resources/read", {"uri": "memo://nowhere"}),
    ("prompts/list", None),
    ("prompts/get", {"name": "haiku", "arguments": {"topic": "sea"}}),
    ("prompts/get", {"name": "no-such-prompt"}),
    ("tools/list", {"cursor": "not-a-cursor"}),
]


async def test_plain_requests_come_back_as_the_server_answers_them(upstream: str, tmp_path: Path) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        with bridge_http([upstream], tmp_path / "bridge.log") as bridged:
            direct, through = RawHost(http, upstream), RawHost(http, bridged)
            await direct.open()
            await through.open()
            for method, params in _REQUESTS:
                expected = await direct.request(method, params)
                assert await through.request(method, params) == expected, method


async def test_an_error_keeps_its_code_and_data(sdk_upstream: str, tmp_path: Path) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        with bridge_http([sdk_upstream], tmp_path / "bridge.log") as bridged:
            direct, through = RawHost(http, sdk_upstream), RawHost(http, bridged)
            await direct.open()
            await through.open()
            expected = await direct.request("tools/call", {"name": "fail_with_data", "arguments": {}})
            got = await through.request("tools/call", {"name": "fail_with_data", "arguments": {}})
    assert got == expected
    assert got["error"]["data"] == {"retryAfter": 30, "plan": "free"}
