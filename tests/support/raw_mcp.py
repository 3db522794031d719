"""A raw MCP client over Streamable HTTP (httpx, JSON-RPC by hand): for the wire a stock client
does not speak, or speaks only its own way (the 2025-11-25 `tasks/*` methods). It answers the
server's requests that arrive on a response's event stream with `on_request`."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx

__all__ = ["RawSession", "raw_session"]

OnRequest = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class RawSession:
    """One MCP session, spoken by hand: `request` returns the JSON-RPC response object as sent."""

    def __init__(self, http: httpx.AsyncClient, url: str, version: str) -> None:
        self.http = http
        self.url = url
        self.version = version
        self.session_id: str | None = None
        self.initialize_result: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []
        """Every message the server sent this session (requests, notifications, responses)."""
        self._ids = itertools.count(1)

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": self.version}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    async def open(self, capabilities: dict[str, Any]) -> None:
        init = {
            "protocolVersion": self.version,
            "capabilities": capabilities,
            "clientInfo": {"name": "raw", "version": "1"},
        }
        response = await self.request("initialize", init)
        self.initialize_result = response["result"]
        await self.http.post(
            self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=self._headers()
        )

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, on_request: OnRequest | None = None
    ) -> dict[str, Any]:
        message_id = next(self._ids)
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
        if params is not None:
            body["params"] = params
        async with self.http.stream("POST", self.url, json=body, headers=self._headers()) as response:
            if "mcp-session-id" in response.headers:
                self.session_id = response.headers["mcp-session-id"]
            kind = response.headers.get("content-type", "")
            if kind.startswith("application/json"):
                message = json.loads(await response.aread())
                self.received.append(message)
                return dict(message)
            if not kind.startswith("text/event-stream"):
                body = (await response.aread())[:300]
                raise AssertionError(f"HTTP {response.status_code} {kind}: {body!r}")
            data: list[str] = []
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                    continue
                if line or not data:
                    continue
                message = json.loads("\n".join(data))
                data = []
                self.received.append(message)
                if "method" in message and "id" in message:
                    await self._answer(message, on_request)
                elif message.get("id") == message_id:
                    return dict(message)
        raise AssertionError(f"the stream of {method} ended without its response")

    async def _answer(self, message: dict[str, Any], on_request: OnRequest | None) -> None:
        if on_request is None:
            reply: dict[str, Any] = {"error": {"code": -32601, "message": "no handler here"}}
        else:
            reply = {"result": await on_request(message)}
        answer = {"jsonrpc": "2.0", "id": message["id"], **reply}
        await self.http.post(self.url, json=answer, headers=self._headers())

    async def close(self) -> None:
        """End the session (nothing to end when its server is gone)."""
        if self.session_id is not None:
            with contextlib.suppress(httpx.TransportError):
                await self.http.delete(self.url, headers=self._headers())


@asynccontextmanager
async def raw_session(
    url: str,
    token: str | None = None,
    *,
    version: str = "2025-11-25",
    capabilities: dict[str, Any] | None = None,
) -> AsyncIterator[RawSession]:
    """An initialized raw session to the MCP endpoint `url`, as the bearer of `token`."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=120)) as http:
        session = RawSession(http, url, version)
        declared = capabilities if capabilities is not None else {"elicitation": {"form": {}, "url": {}}}
        await session.open(declared)
        try:
            yield session
        finally:
            await session.close()
