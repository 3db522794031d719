"""What every page elicitkit serves shares, on either side: the security headers
(`SecurityHeaders`, an ASGI middleware) and serving an app on 127.0.0.1 inside the caller's
event loop (`EmbeddedServer`). Below `client` and `server`, so both, and what wires them, use
the one copy."""

from __future__ import annotations

from elicitkit.asgi._embedded import EmbeddedServer
from elicitkit.asgi._headers import SecurityHeaders, csp_nonce

__all__ = ["EmbeddedServer", "SecurityHeaders", "csp_nonce"]
