"""Upstream connections kept alive between calls.

The SDK's Streamable HTTP client closes a POST's event stream as soon as the response event is
read, before the few bytes that end the stream: httpx then cannot return the connection to its
pool and the next call opens a new TCP connection. `finish_event_streams` reads those last
bytes on close (a server ends the stream right after the response), within a short bound, so
one upstream session keeps its connections.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx2

__all__ = ["finish_event_streams"]

_FINISH_WITHIN = 0.25
"""Seconds a closed stream may take to end; a server that keeps it open loses the connection."""
_FINISH_BYTES = 64 * 1024


async def finish_event_streams(response: httpx2.Response) -> None:
    """An httpx response hook: a POST's event stream is read to its end when closed."""
    is_sse = response.headers.get("content-type", "").startswith("text/event-stream")
    if response.request.method == "POST" and is_sse and isinstance(response.stream, httpx2.AsyncByteStream):
        response.stream = _FinishedOnClose(response.stream)


class _FinishedOnClose(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream) -> None:
        self._inner = inner
        self._chunks: AsyncIterator[bytes] | None = None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self._chunks = self._inner.__aiter__()
        async for chunk in self._chunks:
            yield chunk

    async def aclose(self) -> None:
        """Read what is left (the response was already handed on: no caller waits), then close."""
        try:
            if self._chunks is not None:
                read = 0
                with anyio.move_on_after(_FINISH_WITHIN):
                    async for chunk in self._chunks:
                        read += len(chunk)
                        if read > _FINISH_BYTES:
                            break
        finally:
            await self._inner.aclose()
