"""Serving a demo app over real HTTP on 127.0.0.1, inside the caller's event loop."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Self

import uvicorn
from starlette.types import ASGIApp


class _EmbeddedServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The program that embeds the demo owns its signals; Ctrl-C must still reach it.
        yield


class LocalServer(abc.ABC):
    """A server on 127.0.0.1 that knows its URL before it starts answering.

    The socket is bound first (port 0 picks a free one), so the app can be built with its own
    issuer URL in hand. Subclasses provide `build_app`.
    """

    def __init__(self, *, port: int = 0) -> None:
        self._port = port
        self._url: str | None = None
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """The base URL, `http://127.0.0.1:<port>`, without a trailing slash."""
        if self._url is None:
            raise RuntimeError(f"{type(self).__name__} has no URL until it is started: call start() first.")
        return self._url

    @abc.abstractmethod
    def build_app(self, url: str) -> ASGIApp:
        """The app to serve, given the URL it will be reached at."""

    async def start(self) -> None:
        """Bind a port on 127.0.0.1 and answer HTTP on it until `stop()`."""
        if self._task is not None:
            raise RuntimeError(f"{type(self).__name__} is already running at {self._url}.")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self._port))
        except OSError as error:
            sock.close()
            raise RuntimeError(
                f"Cannot listen on 127.0.0.1:{self._port} ({error.strerror}): choose another port, "
                "or pass port=0 for a free one."
            ) from error
        self._url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            app = self.build_app(self._url)
        except BaseException:
            sock.close()
            raise
        config = uvicorn.Config(
            app, lifespan="auto", log_level="warning", access_log=False, timeout_graceful_shutdown=2
        )
        self._server = _EmbeddedServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise RuntimeError(f"{type(self).__name__} stopped while starting.")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop answering and release the port; stopping twice is harmless."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        task, self._task, self._server = self._task, None, None
        await task

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
