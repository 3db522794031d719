"""Accept client credentials sent only in the HTTP Basic header (RFC 6749 section 2.3.1).

The SDK's token, revocation and registration handlers read `client_id` (and, for
`client_secret_post`, `client_secret`) from the form body. Standard clients such as authlib's
send them in the `Authorization: Basic` header instead, which every OAuth server must accept.
This middleware copies the header's credentials into the form when the form lacks them, so the
SDK's `ClientAuthenticator` still does the checking.
"""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qsl, unquote, urlencode

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    """The (client_id, client_secret) in a Basic header, or None when there is none."""
    scheme, _, encoded = (authorization or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, colon, secret = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (unquote(client_id), unquote(secret)) if colon else None


def _with_credentials(body: bytes, client_id: str, secret: str) -> bytes:
    try:
        fields = parse_qsl(body.decode(), keep_blank_values=True)
    except UnicodeDecodeError:
        return body  # not a form the SDK will accept either; let it say so
    named = dict(fields)
    if "client_id" not in named:
        fields.append(("client_id", client_id))
    if named.get("client_id", client_id) == client_id and "client_secret" not in named:
        fields.append(("client_secret", secret))
    return urlencode(fields).encode()


class BasicClientCredentials:
    """Copy Basic client credentials into urlencoded POST bodies on the given paths."""

    def __init__(self, app: ASGIApp, paths: set[str]) -> None:
        self.app = app
        self.paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        credentials = basic_credentials(headers.get("authorization"))
        if (
            scope["method"] != "POST"
            or scope["path"] not in self.paths
            or credentials is None
            or not headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
        ):
            await self.app(scope, receive, send)
            return

        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        body = _with_credentials(body, *credentials)
        MutableHeaders(scope=scope)["content-length"] = str(len(body))

        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
