"""An ASGI app on 127.0.0.1, served inside the caller's event loop (a web UI, URL-mode pages
for a stdio server, the demo's servers)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Literal, Self

import uvicorn
from starlette.types import ASGIApp

from elicitkit.errors import LifecycleError

__all__ = ["EmbeddedServer"]

_STARTUP_TIMEOUT = 10.0
_SHUTDOWN_GRACE = 3.0


class _Quiet(uvicorn.Server):
    """uvicorn without its signal handlers: Ctrl-C belongs to the program that embeds it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class EmbeddedServer:
    """Serve `build(url)` over HTTP on 127.0.0.1 until `stop()` (or the `async with` ends).

    The socket is bound first (port 0 picks a free one), so the app is built knowing its own
    URL. Nothing is logged to stdout (it may be a stdio transport) and there is no access log
    (a path may hold a secret token).
    """

    def __init__(
        self,
        build: Callable[[str], ASGIApp],
        *,
        port: int = 0,
        lifespan: Literal["auto", "on", "off"] = "off",
    ) -> None:
        self._build = build
        self._port = port
        self._lifespan = lifespan
        self._url: str | None = None
        self._server: _Quiet | None = None
        self._serving: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, without a trailing slash (known from the moment the port is
        bound, so the app being built can read it)."""
        if self._url is None:
            raise LifecycleError("The embedded server has no URL until it is started: call start() first.")
        return self._url

    async def start(self) -> str:
        """Bind the port, build the app and answer HTTP; returns the URL once it answers."""
        if self._serving is not None:
            raise LifecycleError(f"The embedded server is already running at {self._url}.")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", self._port))
        except OSError as error:
            listener.close()
            raise LifecycleError(
                f"Cannot listen on 127.0.0.1:{self._port} ({error.strerror}): choose another port, "
                "or pass port=0 for a free one."
            ) from error
        url = self._url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        try:
            app = self._build(url)  # may read `self.url` already
        except BaseException:
            listener.close()
            self._url = None
            raise
        config = uvicorn.Config(
            app,
            lifespan=self._lifespan,
            log_config=None,
            access_log=False,
            ws="none",
            server_header=False,
            date_header=False,
            timeout_graceful_shutdown=2,
        )
        server = _Quiet(config)
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        deadline = asyncio.get_running_loop().time() + _STARTUP_TIMEOUT
        while not server.started:
            if serving.done() or asyncio.get_running_loop().time() > deadline:
                server.should_exit = True
                listener.close()
                self._url = None
                why = serving.exception() if serving.done() and not serving.cancelled() else None
                raise LifecycleError(
                    f"The server on {url} did not start" + (f" ({why})." if why else "; see the log for why.")
                )
            await asyncio.sleep(0.01)
        self._server, self._serving = server, serving
        return url

    async def stop(self) -> None:
        """Stop answering and release the port; stopping twice, or before starting, is harmless."""
        server, serving = self._server, self._serving
        self._server = self._serving = self._url = None
        if server is None or serving is None:
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(serving), timeout=_SHUTDOWN_GRACE)
        except TimeoutError:
            server.force_exit = True
            await serving

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
