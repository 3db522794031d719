"""The demo story's own parts. Everything here is a demo: real HTTP and OAuth on 127.0.0.1.

The names below load on first use, so `python -m elicitkit.demo.auth_server` (and the other
runnable modules) start without importing their own module twice.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elicitkit.demo.auth_server import DemoAuthServer, IntrospectionTokenVerifier
    from elicitkit.demo.browser import ScriptedBrowser
    from elicitkit.demo.mcp_server import DemoMcpServer
    from elicitkit.demo.provider import DemoProvider

__all__ = ["DemoAuthServer", "DemoMcpServer", "DemoProvider", "IntrospectionTokenVerifier", "ScriptedBrowser"]

_HOMES = {
    "DemoAuthServer": "elicitkit.demo.auth_server",
    "IntrospectionTokenVerifier": "elicitkit.demo.auth_server",
    "DemoProvider": "elicitkit.demo.provider",
    "DemoMcpServer": "elicitkit.demo.mcp_server",
    "ScriptedBrowser": "elicitkit.demo.browser",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'elicitkit.demo' has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)
