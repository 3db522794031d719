"""`Guard`: who may talk to a bridge over HTTP, checked before anything else reads the request.

A request that reaches the bridge acts upstream as the person signed in there. The guard sits
outermost, in front of the SDK's transport, and lets a request in only when all of these
hold:

- **Host** names the bridge: a web page that points its own DNS name at this machine (DNS
  rebinding) still sends that name, so only the names the bridge is reached by pass;
- **Origin**, when there is one, is the bridge's own or one the person allowed: a browser
  names the page behind every request it sends, and a program sends none. `null` (a
  sandboxed frame, a file) is refused like any page;
- **the credential** (`Authorization: Bearer ...`), when the bridge has one: no page can send
  it without asking the bridge first (which it does not answer), and no other user has it;
- a POST carries **JSON** (`application/json`): a form or `text/plain` is what a page can send
  without asking.

A refusal is a JSON-RPC error with one sentence, 403 (Host, Origin), 401 with
`WWW-Authenticate: Bearer` (the credential) or 415 (the content type), and nothing behind the
guard sees the request. The checks learn from the MCP Inspector's session token, Jupyter
server's local host names and the TypeScript SDK's host validation; they are written here so
that one rule holds on every bind address and every path.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable
from typing import Protocol

from starlette.types import ASGIApp, Receive, Scope, Send

from elicitkit.errors import ConfigurationError

__all__ = ["Guard", "Presented", "bind_names", "host_entry", "is_loopback", "is_wildcard", "origin_entry"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HOST = re.compile(r"^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Presented(Protocol):
    """A credential: whether an `Authorization` header's value presents it."""

    def matches(self, authorization: bytes | None) -> bool: ...


def is_loopback(host: str) -> bool:
    """Whether a bind address reaches this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip("[]").lower() == "localhost":
        return True
    address = _address(host)
    return address is not None and address.is_loopback


def is_wildcard(host: str) -> bool:
    """Whether a bind address is every address of the machine (0.0.0.0, ::)."""
    address = _address(host)
    return address is not None and address.is_unspecified


def bind_names(host: str) -> list[str]:
    """The names a host may call a bridge bound to `host` by: the loopback names for a loopback
    or wildcard bind (a wildcard listens on loopback too), and the bind address itself."""
    address = host.strip("[]").lower()
    names = list(LOOPBACK_NAMES) if is_loopback(address) or is_wildcard(address) else []
    if address:
        named = f"[{address}]" if ":" in address else address
        if named not in names:
            names.append(named)
    return names


def host_entry(text: str) -> tuple[str, int | None]:
    """An allowed Host: a name, or a name and port; an IPv6 address with or without brackets."""
    value = text.strip().lower()
    if value.count(":") > 1 and not value.startswith("["):
        value = f"[{value}]"
    split = _split(value)
    if split is None:
        raise ConfigurationError(
            f"An allowed host is a name or an address, with a port if you like (bridge.lan, "
            f"192.168.1.5:8787, [::1]), not {text!r}."
        )
    return split


def origin_entry(text: str) -> str:
    """An allowed Origin, as browsers write it: scheme://host[:port], no path."""
    value = text.strip().lower().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if not sep or scheme not in _DEFAULT_PORTS or _split(rest) is None:
        raise ConfigurationError(
            f"An allowed origin is written scheme://host[:port] (https://app.example.com), not {text!r}; "
            "'null' cannot be allowed: every sandboxed frame and file page sends it."
        )
    return value


class Guard:
    """ASGI middleware: Host, Origin, the credential and the content type (see the module).

    `hosts` are the names the bridge is reached by (`host_entry`); one without a port is good on
    the bridge's `port` (or, when that is not given, on the port the request came in on).
    `origins` are pages allowed besides the bridge's own (`origin_entry`)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: Iterable[str],
        origins: Iterable[str] = (),
        credential: Presented | None,
        port: int | None = None,
    ) -> None:
        self.app = app
        self._hosts = frozenset(host_entry(host) for host in hosts)
        self._origins = frozenset(origin_entry(origin) for origin in origins)
        self._credential = credential
        self._port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _refuse(send, *refusal)

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            headers.setdefault(name.lower(), value)
        server = scope.get("server")
        port = self._port if self._port is not None else (server[1] if server else None)
        host = headers.get(b"host", b"").decode("latin-1")
        if not self._named(host, port):
            return 403, (
                f"This bridge answers requests addressed to {self._names(port)}, not to {host or 'no host'}; "
                "a host that reaches it by another name must be allowed with --allow-host."
            )
        origin = headers.get(b"origin")
        if origin is not None and not self._from_allowed(origin.decode("latin-1"), port):
            return 403, (
                f"This bridge does not answer web pages (Origin: {origin.decode('latin-1')}); "
                "a host that is a web page must be allowed with --allow-origin."
            )
        if self._credential is not None and not self._credential.matches(headers.get(b"authorization")):
            return 401, (
                "This bridge needs its credential: send it as 'Authorization: Bearer <credential>' "
                "(the bridge shows it when it makes it, and says on start where it is kept)."
            )
        kind = headers.get(b"content-type", b"").decode("latin-1").lower()
        if scope["type"] == "http" and scope["method"] == "POST" and not kind.startswith("application/json"):
            return (
                415,
                f"This bridge takes JSON-RPC as application/json, not {kind or 'a body without a type'}.",
            )
        return None

    def _named(self, host: str, port: int | None) -> bool:
        split = _split(host.strip().lower())
        if split is None:
            return False
        name, given = split
        return any(
            allowed == name and (given is None or _wanted(fixed, port) in (None, given))
            for allowed, fixed in self._hosts
        )

    def _from_allowed(self, origin: str, port: int | None) -> bool:
        value = origin.strip().lower().rstrip("/")
        if value in self._origins:
            return True
        scheme, sep, rest = value.partition("://")
        split = _split(rest) if sep and scheme in _DEFAULT_PORTS else None
        if split is None:
            return False  # `null`, or not an origin at all
        name, given = split
        effective = given if given is not None else _DEFAULT_PORTS[scheme]
        return any(
            allowed == name and _wanted(fixed, port) in (None, effective) for allowed, fixed in self._hosts
        )

    def _names(self, port: int | None) -> str:
        named = (
            name if _wanted(fixed, port) is None else f"{name}:{_wanted(fixed, port)}"
            for name, fixed in self._hosts
        )
        return ", ".join(sorted(named))


def _wanted(fixed: int | None, port: int | None) -> int | None:
    """The port an allowed name is good on: its own, else the bridge's (None: any)."""
    return fixed if fixed is not None else port


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _split(value: str) -> tuple[str, int | None] | None:
    match = _HOST.match(value)
    if match is None:
        return None
    name, port = match.group(1), match.group(2)
    if port is not None and not 0 < int(port) < 65536:
        return None
    return name, int(port) if port is not None else None


async def _refuse(send: Send, status: int, sentence: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": sentence}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="elicitkit bridge"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
