"""An issuer on 127.0.0.1 that answers some paths a byte at a time: a hostile or broken
authorization server, over real HTTP, for the deadline tests.

`TrickleIssuer` serves JSON documents by path; a path in `slow` gets its status line and
headers at once, then its body one byte every `interval` seconds (so an HTTP client's
per-read timeout never fires). `hits` counts the requests per path.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import SocketStream


class TrickleIssuer:
    def __init__(self, *, interval: float = 0.2) -> None:
        self.interval = interval
        self.documents: dict[str, Any] = {}
        self.slow: set[str] = set()
        self.hits: Counter[str] = Counter()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TrickleIssuer]:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
        async with listener, anyio.create_task_group() as tasks:
            tasks.start_soon(listener.serve, self._answer)
            try:
                yield self
            finally:
                tasks.cancel_scope.cancel()

    async def _answer(self, stream: SocketStream) -> None:
        async with stream:
            try:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += await stream.receive()
                header, _, body = head.partition(b"\r\n\r\n")
                lines = header.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1].split("?")[0]
                length = next(
                    (
                        int(line.split(":", 1)[1])
                        for line in lines
                        if line.lower().startswith("content-length:")
                    ),
                    0,
                )
                while len(body) < length:
                    body += await stream.receive()
                self.hits[path] += 1
                document = self.documents.get(path)
                status = "200 OK" if document is not None else "404 Not Found"
                payload = json.dumps(document if document is not None else {}).encode()
                await stream.send(
                    f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                )
                if path in self.slow:
                    for byte in payload:
                        await anyio.sleep(self.interval)
                        await stream.send(bytes([byte]))
                else:
                    await stream.send(payload)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
