"""Upstream authorization: the bridge is the OAuth client of the remote MCP server.

MCP authorization (2025-11-25) is the SDK's `OAuthClientProvider`: protected resource and
authorization server metadata, dynamic client registration, PKCE, the resource indicator and
refresh. This module gives it what a person's machine needs around it: tokens kept encrypted
under the user's data directory (one folder per upstream server), the sign-in opened in the
person's browser, a one-shot callback listener on 127.0.0.1, and one sentence for each way a
sign-in can fail.
"""

from __future__ import annotations

import contextlib
import html
import secrets
import socket
import sys
import threading
import webbrowser
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl

from elicitkit._sdk import IssuerAliasingOAuthProvider as _Provider
from elicitkit.bridge._authorization_store import EncryptedTokenStorage, server_folder
from elicitkit.errors import ElicitationError

__all__ = ["UpstreamAuthorizationError", "upstream_auth"]

Reason = Literal["metadata", "registration", "declined", "timeout", "port", "refused"]

_MAX_REQUEST = 16 * 1024  # a browser's callback request, headers included
_READ_TIMEOUT = 10.0  # one connection to the callback listener
_VERSION_HEADER = "MCP-Protocol-Version"


class UpstreamAuthorizationError(ElicitationError):
    """Signing in to the upstream server failed; the message says why and what to do.

    `reason` names the case: "metadata" (the server publishes no OAuth metadata),
    "registration" (the authorization server refused to register the bridge), "declined" (the
    person or the server said no at the sign-in), "timeout" (the sign-in was not finished in
    time), "port" (the callback port is taken), "refused" (the sign-in code or a step after it
    was refused).
    """

    def __init__(self, message: str, *, reason: Reason) -> None:
        super().__init__(message)
        self.reason = reason


def upstream_auth(
    server_url: str,
    *,
    data_dir: Path | None = None,
    open_browser: Callable[[str], None] | None = None,
    client_name: str = "elicitkit bridge",
    client_id: str | None = None,
    client_secret: str | None = None,
    callback_port: int | None = None,
    sign_in_timeout: float = 300.0,
) -> httpx2.Auth:
    """The `httpx2.Auth` (the SDK's HTTP client) that signs the bridge in to `server_url`.

    Tokens and the client registration live in `server_folder(server_url, data_dir)`: by
    default under the user's data directory (`platformdirs.user_data_dir("elicitkit")/bridge`),
    or under `data_dir` when given, one folder per server. Without `client_id` the bridge
    registers itself dynamically (RFC 7591) as a public native client; with it (and
    `client_secret` for a confidential one) it uses that pre-registered client, whose redirect
    URI is `http://127.0.0.1:<callback_port>/callback`.

    When the person must sign in, the authorization URL is printed on stderr and handed to
    `open_browser` (default: `webbrowser.open` in a thread, which honours `$BROWSER`); it is
    called in the event loop and must not block. The sign-in must finish within
    `sign_in_timeout` seconds. Failures raise `UpstreamAuthorizationError`.
    """
    folder = server_folder(server_url, data_dir)
    storage = EncryptedTokenStorage(folder, server_url)
    port = callback_port or (None if client_id else storage.registered_port()) or _free_port()
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    if client_id is not None:
        storage = EncryptedTokenStorage(
            folder,
            server_url,
            pre_registered=OAuthClientInformationFull(
                client_id=client_id,
                client_secret=client_secret,
                redirect_uris=[AnyUrl(redirect_uri)],
                token_endpoint_auth_method="client_secret_basic" if client_secret else "none",
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
            ),
        )
    metadata = OAuthClientMetadata(
        client_name=client_name,
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",  # noqa: S106 - a native app keeps no secret (RFC 8252 section 8.4)
    )
    sign_in = _SignIn(server_url, port, open_browser or _open_in_browser, sign_in_timeout)
    provider = _Provider(
        server_url,
        metadata,
        storage,
        redirect_handler=sign_in.redirect,
        callback_handler=sign_in.callback,
    )
    sign_in.provider = provider
    return _UpstreamAuth(provider, storage, server_url)


class _SignIn:
    """The person's part: the browser opens the authorization URL, and a one-shot listener on
    127.0.0.1 takes the redirect back, checks `state`, and says the tab can be closed."""

    def __init__(
        self, server_url: str, port: int, open_browser: Callable[[str], None], timeout: float
    ) -> None:
        self.server_url, self.port, self.open_browser, self.timeout = server_url, port, open_browser, timeout
        self.provider: OAuthClientProvider | None = None
        self._listener: anyio.abc.Listener[anyio.abc.SocketStream] | None = None
        self._state = ""
        self._deadline = 0.0
        self._result: AuthorizationCodeResult | UpstreamAuthorizationError | None = None
        self._done = anyio.Event()

    async def redirect(self, authorization_url: str) -> None:
        if self.provider is not None and self.provider.context.oauth_metadata is None:
            raise _metadata_missing(self.server_url)
        await self._close()
        try:
            self._listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=self.port)
        except OSError:
            raise UpstreamAuthorizationError(
                f"The sign-in to {self.server_url} needs port {self.port} on 127.0.0.1 for its callback, "
                "and another program holds it; stop that program (or choose another callback port) and "
                "try again.",
                reason="port",
            ) from None
        self._state = parse_qs(urlsplit(authorization_url).query).get("state", [""])[0]
        self._deadline = anyio.current_time() + self.timeout
        self._result, self._done = None, anyio.Event()
        print(
            f"elicitkit bridge: sign in to {self.server_url} in your browser: {authorization_url}",
            file=sys.stderr,
            flush=True,
        )
        self.open_browser(authorization_url)

    async def callback(self) -> AuthorizationCodeResult:
        listener = self._listener
        assert listener is not None, "the redirect handler runs first"
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(listener.serve, self._answer, group)
                with anyio.move_on_after(max(0.0, self._deadline - anyio.current_time())):
                    await self._done.wait()
                group.cancel_scope.cancel()
        finally:
            await self._close()
        result = self._result
        if result is None:
            raise UpstreamAuthorizationError(
                f"The sign-in to {self.server_url} was not finished within {_span(self.timeout)}; "
                "start the bridge again and complete the sign-in in the browser.",
                reason="timeout",
            )
        if isinstance(result, UpstreamAuthorizationError):
            raise result
        return result

    async def _answer(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            try:
                with anyio.fail_after(_READ_TIMEOUT):
                    request = await _read_request(stream)
            except (TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError):
                return
            if request is None:  # too large to be the browser coming back
                return
            status, page = self._judge(request)
            body = _PAGE.format(title=html.escape(page[0]), text=html.escape(page[1])).encode()
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n"
                "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n"
                "Connection: close\r\n\r\n"
            )
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.send(head.encode() + body)
            if self._result is not None:
                self._done.set()

    def _judge(self, request: str) -> tuple[str, tuple[str, str]]:
        method, _, target = request.partition(" ")
        target = target.partition(" ")[0]
        parts = urlsplit(target)
        if parts.path != "/callback":
            return "404 Not Found", ("Not found", "There is nothing here.")
        if method != "GET":
            return "405 Method Not Allowed", ("Not allowed", "The sign-in comes back with GET.")
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        state = query.get("state", "")
        if self._result is not None or not self._state or not secrets.compare_digest(state, self._state):
            return "400 Bad Request", (
                "Not this sign-in",
                "This is not the sign-in the elicitkit bridge is waiting for; nothing was done.",
            )
        if "error" in query:
            self._result = _refusal(self.server_url, query["error"], query.get("error_description"))
            return "200 OK", ("Sign-in stopped", "The sign-in did not go through. You can close this tab.")
        if not query.get("code"):
            return "400 Bad Request", (
                "No code",
                "The answer carried no authorization code; nothing was done.",
            )
        self._result = AuthorizationCodeResult(code=query["code"], state=state, iss=query.get("iss"))
        return "200 OK", ("Signed in", "The elicitkit bridge is signed in. You can close this tab.")

    async def _close(self) -> None:
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await listener.aclose()


class _UpstreamAuth(httpx2.Auth):
    """The SDK's provider, with the stored token's expiry restored and its errors in one sentence."""

    requires_response_body = True

    def __init__(self, provider: _Provider, storage: EncryptedTokenStorage, server_url: str) -> None:
        self.provider, self.storage, self.server_url = provider, storage, server_url
        self._primed = False
        self._remembered: tuple[ProtectedResourceMetadata | None, OAuthMetadata | None] | None = None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if not self._primed:
            await self._restore()
            self._primed = True
        for attempt in (1, 2):
            flow = self.provider.async_auth_flow(request)
            last: httpx2.Response | None = None
            try:
                outgoing = await flow.__anext__()
                while True:
                    last = yield self._as_the_transport_would(outgoing, request)
                    outgoing = await flow.asend(last)
            except StopAsyncIteration:
                await self._remember()
                return
            except UpstreamAuthorizationError:
                raise
            except OAuthFlowError as exc:
                if attempt == 1 and self._learn_alias(last):
                    continue
                raise self._sentence(exc, last) from None
            finally:
                await flow.aclose()

    def _as_the_transport_would(self, outgoing: httpx2.Request, request: httpx2.Request) -> httpx2.Request:
        """A request of the sign-in's own to the MCP server (its resource metadata, say) carries
        the `MCP-Protocol-Version` the request being authorized carries, as the SDK's transport
        stamps every request of the session: the revision the server speaks (2026-07-28 on every
        request, 2025-11-25 once negotiated), not the newest the SDK knows, which a server that
        checks the header on every request refuses."""
        version = request.headers.get(_VERSION_HEADER)
        if outgoing is not request and version and _origin(outgoing.url) == _origin(request.url):
            outgoing.headers[_VERSION_HEADER] = version
        return outgoing

    def _learn_alias(self, metadata: httpx2.Response | None) -> bool:
        """Whether the authorization server's metadata names, as its issuer, the server the
        resource's metadata named but with or without a root's trailing slash: one server (the SDK's
        `issuers_match`), which an MCP server built on `AnyHttpUrl` settings often writes that way."""
        advertised = self.provider.context.auth_server_url
        if metadata is None or metadata.status_code != 200 or advertised is None:
            return False
        try:
            issuer = metadata.json().get("issuer")
        except (ValueError, AttributeError):
            return False
        if not isinstance(issuer, str) or issuer == advertised or not issuers_match(issuer, advertised):
            return False
        self.provider.issuer_aliases[advertised] = issuer
        return True

    def _sentence(self, exc: OAuthFlowError, last: httpx2.Response | None) -> UpstreamAuthorizationError:
        if isinstance(exc, OAuthRegistrationError):
            if self.provider.context.oauth_metadata is None:
                return _metadata_missing(self.server_url)
            return UpstreamAuthorizationError(
                f"The authorization server of {self.server_url} refused to register the elicitkit bridge "
                f"as a client{_error_detail(last)}; ask its operator for a client id and pass it to the "
                "bridge.",
                reason="registration",
            )
        if isinstance(exc, OAuthTokenError):
            return UpstreamAuthorizationError(
                f"The authorization server of {self.server_url} refused the sign-in{_error_detail(last)}; "
                "start the bridge again to sign in afresh.",
                reason="refused",
            )
        said = _one_line(str(exc))
        return UpstreamAuthorizationError(
            f"Signing in to {self.server_url} failed ({said}); check the server's URL and try again.",
            reason="metadata" if "metadata" in said.lower() else "refused",
        )

    async def _restore(self) -> None:
        """Give the SDK what it does not keep across runs: the stored token's expiry (without it an
        expired token is sent, refused, and the person sent to the browser instead of a refresh)
        and the discovered metadata (without it a refresh goes to a guessed token endpoint, and
        without the resource indicator)."""
        context = self.provider.context
        stored = await self.storage.get_tokens()
        if stored is not None and stored.expires_in is not None:
            context.update_token_expiry(stored)
        discovery = await self.storage.get_discovery()
        if discovery is not None and context.oauth_metadata is None:
            context.protected_resource_metadata, context.oauth_metadata = discovery
            context.auth_server_url = str(discovery[1].issuer)
        self._remembered = discovery

    async def _remember(self) -> None:
        context = self.provider.context
        resource, server = context.protected_resource_metadata, context.oauth_metadata
        if server is not None and (resource, server) != self._remembered:
            await self.storage.set_discovery(resource, server)
            self._remembered = (resource, server)


async def _read_request(stream: anyio.abc.SocketStream) -> str | None:
    """The request line, or None for a request larger than any redirect back."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += await stream.receive()
        if len(received) > _MAX_REQUEST:
            return None
    return received.split(b"\r\n", 1)[0].decode("latin-1")


def _refusal(server_url: str, error: str, description: str | None) -> UpstreamAuthorizationError:
    if error == "access_denied":
        return UpstreamAuthorizationError(
            f"The sign-in to {server_url} was declined, so the bridge has no access to it; "
            "start the bridge again and allow access when you want to use it.",
            reason="declined",
        )
    said = f" ({_one_line(description)})" if description else ""
    return UpstreamAuthorizationError(
        f"The authorization server of {server_url} stopped the sign-in with {_one_line(error)!r}{said}; "
        "check the bridge's client settings and try again.",
        reason="declined",
    )


def _metadata_missing(server_url: str) -> UpstreamAuthorizationError:
    return UpstreamAuthorizationError(
        f"The server at {server_url} asks for authorization but publishes no OAuth metadata (protected "
        "resource or authorization server), so the bridge cannot sign in; check the URL or ask its operator.",
        reason="metadata",
    )


def _error_detail(response: httpx2.Response | None) -> str:
    """The server's own `error_description` (or `error`), when its answer carries one."""
    if response is None or response.status_code < 400:
        return ""
    try:
        body = response.json()
    except (ValueError, httpx2.ResponseNotRead):
        return f" (HTTP {response.status_code})"
    said = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
    return f" ({_one_line(str(said))})" if said else f" (HTTP {response.status_code})"


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _span(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} minute{'s' if seconds != 60 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(".")[:200]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _open_in_browser(url: str) -> None:
    """`webbrowser.open` in a thread: a console browser named in $BROWSER may block until it exits."""
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True, name="elicitkit-browser").start()


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}}</style>
</head><body><main><h1>{title}</h1><p>{text}</p></main></body></html>
"""
