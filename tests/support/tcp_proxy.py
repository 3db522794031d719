"""A TCP proxy on 127.0.0.1 between an app and its store, with the faults a network has.

- `cut()` is a partition, not a refusal: bytes in flight stay where they are, new connections
  are accepted but reach nothing, and nothing is reset, so a client meets silence and only its
  own deadline ends the wait, as when a switch or a security group drops the traffic.
  `restore()` lets everything flow again.
- `lose_next_reply()` lets the request reach the server, which applies it, and drops the answer
  (both ends of that connection closed under it), as when a crash, a failover or a dropped link
  swallows the reply to a commit; `lost` counts them.
- `refuse()` turns every new connection away at once, as a server still down would, until
  `accept()`.

The proxy runs its own event loop in a thread, so a busy test loop does not slow the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

__all__ = ["TcpProxy"]


class TcpProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.lost = 0  # replies dropped so far
        self._armed = 0
        self._refusing = False
        self._loop = asyncio.new_event_loop()
        self._flowing = asyncio.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self) -> TcpProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def cut(self) -> None:
        self._loop.call_soon_threadsafe(self._flowing.clear)

    def restore(self) -> None:
        self._loop.call_soon_threadsafe(self._flowing.set)

    def lose_next_reply(self) -> None:
        """Drop the next chunk the server sends (on any connection) and close that connection."""
        self._loop.call_soon_threadsafe(self._arm)

    def refuse(self) -> None:
        """Close every new connection at once, as a server that is down would."""
        self._loop.call_soon_threadsafe(setattr, self, "_refusing", True)

    def accept(self) -> None:
        self._loop.call_soon_threadsafe(setattr, self, "_refusing", False)

    def url(self, url: str, port: int) -> str:
        """`url` (naming the server's `port`) pointed at this proxy instead."""
        return url.replace(f":{port}", f":{self.port}", 1)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _arm(self) -> None:
        self._armed += 1

    def _run(self) -> None:
        self._loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        self._flowing.set()
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        upstream_writer = None
        try:
            if self._refusing:
                return
            await self._flowing.wait()
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
            ends = (writer, upstream_writer)
            await asyncio.gather(
                self._pipe(reader, upstream_writer, ends), self._pipe(upstream_reader, writer, ends, True)
            )
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the far end went away, or the proxy is closing
        finally:
            self._tasks.discard(task)
            for end in (writer, upstream_writer):
                if end is not None:
                    with contextlib.suppress(Exception):
                        end.close()

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        ends: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
        replies: bool = False,
    ) -> None:
        try:
            while True:
                await self._flowing.wait()
                data = await reader.read(65536)
                if not data:
                    break
                if replies and self._armed:
                    self._armed -= 1
                    self.lost += 1
                    for end in ends:  # the answer is lost and the connection with it
                        end.transport.abort()
                    return
                await self._flowing.wait()  # read before the cut, held until the network is back
                writer.write(data)
                await writer.drain()
        finally:
            with contextlib.suppress(Exception):
                writer.close()
