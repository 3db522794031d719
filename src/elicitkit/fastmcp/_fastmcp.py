"""Where elicitkit meets the part of FastMCP that is not public.

The one module of elicitkit that reads a private FastMCP attribute (tests/test_architecture.py
enforces it): `FastMCP._mcp_server`, the SDK's low-level `Server` FastMCP dispatches through,
for which FastMCP has no public accessor (docs/upstream.md). tests/test_sdk_adapter.py pins
its shape, so a FastMCP release that moves it fails there first.
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from mcp.server.lowlevel.server import Server

__all__ = ["low_level_server"]


def low_level_server(server: FastMCP[Any]) -> Server[Any]:
    """The SDK server under `server`: where elicitkit's middleware goes."""
    low: Server[Any] = server._mcp_server
    return low
