"""`elicitkit bridge`: an MCP proxy that carries elicitation to hosts that cannot answer it.

    await Bridge("https://example.com/mcp", answer="auto").serve_stdio()

`Bridge.serve_http()` serves Streamable HTTP instead, and `Bridge.asgi_app()` is the same for a
gateway to mount, each asking hosts for a `Credential`; see docs/bridge.md.
"""

from __future__ import annotations

from elicitkit.bridge._answering import Answer
from elicitkit.bridge._authorization import UpstreamAuthorizationError, upstream_auth
from elicitkit.bridge._bridge import ANSWERS, PROTOCOLS, Bridge, UpstreamProtocol
from elicitkit.bridge._credential import Credential, CredentialFile
from elicitkit.bridge._upstream import Upstream

__all__ = [
    "ANSWERS",
    "PROTOCOLS",
    "Answer",
    "Bridge",
    "Credential",
    "CredentialFile",
    "Upstream",
    "UpstreamAuthorizationError",
    "UpstreamProtocol",
    "upstream_auth",
]
