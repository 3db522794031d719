"""The bridge's own sockets, bound before anything is said, and uvicorn serving on them.

Left to itself, uvicorn binds after the application has started and reports a port in use by
logging and exiting; the bridge would already have said it serves. Binding first makes a port in
use one sentence before anything else happens, and the bridge says it serves only once uvicorn
accepts requests.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable

import uvicorn

from elicitkit.errors import LifecycleError

__all__ = ["Serving", "listen"]


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to each address `host` names at `port`, as asyncio binds a host name (an
    IPv6 socket for IPv6 only); a `LifecycleError` with one sentence when one cannot be bound."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise LifecycleError(
            f"Cannot listen on {host}: this machine has no such address; give one of its own (127.0.0.1)."
        ) from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as error:
                raise LifecycleError(_why(host, port, error)) from None
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _why(host: str, port: int, error: OSError) -> str:
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if error.errno == errno.EADDRINUSE:
        return f"Cannot listen on {where}: another program listens there; stop it, or choose another port."
    if error.errno == errno.EACCES:
        return f"Cannot listen on {where}: this user may not use port {port}; choose a port above 1023."
    if error.errno == errno.EADDRNOTAVAIL:
        return f"Cannot listen on {where}: {host} is not an address of this machine; give one of its own."
    return f"Cannot listen on {where}: {error.strerror or error}; choose another address or port."


class Serving(uvicorn.Server):
    """uvicorn on sockets bound beforehand, calling `announce` once it accepts requests."""

    def __init__(self, config: uvicorn.Config, announce: Callable[[], None]) -> None:
        super().__init__(config)
        self._announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._announce()
