"""`elicitkit bridge`: an MCP proxy that carries elicitation to hosts that cannot answer it.

    await Bridge("https://example.com/mcp", answer="auto").serve_stdio()

`Bridge.asgi_app()` serves Streamable HTTP instead (a gateway mounts it); see docs/bridge.md.
"""

from __future__ import annotations

from elicitkit.bridge._answering import Answer
from elicitkit.bridge._authorization import UpstreamAuthorizationError, upstream_auth
from elicitkit.bridge._upstream import Upstream
from elicitkit.bridge.bridge import ANSWERS, PROTOCOLS, Bridge, UpstreamProtocol

__all__ = [
    "ANSWERS",
    "PROTOCOLS",
    "Answer",
    "Bridge",
    "Upstream",
    "UpstreamAuthorizationError",
    "UpstreamProtocol",
    "upstream_auth",
]
