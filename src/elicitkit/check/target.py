"""`Target`: the server under check, an `http(s)://` MCP endpoint or a stdio command.

`transport()` gives a fresh SDK transport for one connection. Over HTTP it also watches the
standalone GET stream's bytes before the SDK parses them, and notes the ids of the
`elicitation/create` requests that came that way (S-02: a server must ask on the stream of
the request it is handling, never on the standalone one).
"""

from __future__ import annotations

import functools
import json
import os
import shlex
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client import Transport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


class TargetError(Exception):
    """The target could not be reached or initialized; the message says why and what to do."""


@dataclass
class Target:
    """An HTTP endpoint (`url`) or a command to run over stdio (`command`)."""

    url: str | None = None
    command: Sequence[str] = ()
    #: sent as `Authorization: Bearer ...` on HTTP targets
    token: str | None = None
    standalone_ids: set[Any] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.url is None and not self.command:
            raise TargetError("Give an http(s):// MCP endpoint, or `-- COMMAND ARGS...` for a stdio server.")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise TargetError(
                f"{self.url!r} is not an http(s):// URL; for a stdio server use `-- COMMAND ARGS...`."
            )

    @property
    def name(self) -> str:
        return self.url if self.url is not None else shlex.join(self.command)

    @property
    def is_http(self) -> bool:
        return self.url is not None

    def with_token(self, token: str | None) -> Target:
        return Target(self.url, self.command, token, self.standalone_ids)

    def transport(self) -> Transport:
        if self.url is not None:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
            client = httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(30.0, read=300.0),
                transport=_WatchedHttp(self.standalone_ids),
            )
            return streamable_http_client(self.url, http_client=client)
        command, *args = self.command
        params = StdioServerParameters(command=command, args=list(args), env=dict(os.environ))
        return stdio_client(params, errlog=_devnull())


@functools.cache
def _devnull() -> Any:
    """Where a stdio server's stderr goes: one handle for the whole run, not one per connection."""
    return open(os.devnull, "w")  # shared by every stdio connection until the run ends


class _WatchedHttp(httpx2.AsyncBaseTransport):
    """The default transport, reading along the standalone GET stream for `elicitation/create`."""

    def __init__(self, ids: set[Any]) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._ids = ids

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "")
        if request.method == "GET" and kind.startswith("text/event-stream"):
            response.stream = _Scanned(response.stream, self._ids)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Scanned(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, ids: set[Any]) -> None:
        self._inner = inner
        self._ids = ids
        self._buffer = b""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._read(chunk)
            yield chunk

    def _read(self, chunk: bytes) -> None:
        self._buffer = (self._buffer + chunk)[-1_000_000:]
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            if not line.startswith(b"data:") or b"elicitation/create" not in line:
                continue
            try:
                message = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("method") == "elicitation/create":
                self._ids.add(message.get("id"))

    async def aclose(self) -> None:
        await self._inner.aclose()
