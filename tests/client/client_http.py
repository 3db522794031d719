"""Real streamable HTTP on 127.0.0.1: each test server runs under uvicorn in its own thread."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

import anyio
import uvicorn

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class WireLog:
    """Every JSON-RPC message the client POSTed, as parsed JSON, in arrival order."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            event = await receive()
            chunks.append(event.get("body", b""))
            more = event.get("more_body", False)
        body = b"".join(chunks)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict):
                self.messages.append(message)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("method") == method]


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run `app` on a free 127.0.0.1 port; yield its /mcp URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


async def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until `check()` holds, failing the test after `timeout` seconds."""
    with anyio.fail_after(timeout):
        while not check():
            await anyio.sleep(0.02)


def record(opened: list[str]) -> Callable[[str], bool]:
    """A browser stand-in: remembers each URL it was asked to open."""

    def open_url(url: str) -> bool:
        opened.append(url)
        return True

    return open_url
