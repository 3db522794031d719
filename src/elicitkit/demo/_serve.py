"""Serving a demo app over real HTTP on 127.0.0.1, inside the caller's event loop."""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import Callable
from types import TracebackType
from typing import Self

from starlette.types import ASGIApp

from elicitkit.asgi import EmbeddedServer


class LocalServer(abc.ABC):
    """A server on 127.0.0.1 that knows its URL before it starts answering.

    The socket is bound first (port 0 picks a free one), so the app can be built with its own
    issuer URL in hand. Subclasses provide `build_app`.
    """

    def __init__(self, *, port: int = 0) -> None:
        self._server = EmbeddedServer(self.build_app, port=port, lifespan="auto")

    @property
    def url(self) -> str:
        """The base URL, `http://127.0.0.1:<port>`, without a trailing slash."""
        return self._server.url

    @abc.abstractmethod
    def build_app(self, url: str) -> ASGIApp:
        """The app to serve, given the URL it will be reached at."""

    async def start(self) -> None:
        """Bind a port on 127.0.0.1 and answer HTTP on it until `stop()`."""
        await self._server.start()

    async def stop(self) -> None:
        """Stop answering and release the port; stopping twice is harmless."""
        await self._server.stop()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


def serve_forever(server: LocalServer, describe: Callable[[str], str]) -> None:
    """Run `server` until Ctrl-C, after printing `describe(url)` (for `python -m`)."""

    async def run() -> None:
        async with server:
            print(describe(server.url), flush=True)
            await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
