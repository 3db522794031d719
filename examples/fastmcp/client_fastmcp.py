"""FastMCP's own `Client` calling the FastMCP example server; elicitkit's terminal UI answers.

    python client_fastmcp.py http://127.0.0.1:8000/mcp

`for_fastmcp(config).client(url)` is a FastMCP `Client` answering under the config (its screens
name the server from the moment it connects); `until_urls_complete` waits out a call held with
-32042, which FastMCP's client only raises.
"""

from __future__ import annotations

import asyncio
import sys

from elicitkit.client import ElicitationConfig, TerminalUI, for_fastmcp


async def run(url: str, config: ElicitationConfig, mode: str = "auto") -> list[str]:
    """Book a table and get the forecast; returns what the two tools said."""
    answers = for_fastmcp(config)
    async with answers.client(url, mode=mode) as client:
        booked = await client.call_tool("book", {})
        forecast = await answers.until_urls_complete(lambda: client.call_tool("forecast", {"city": "Oslo"}))
    return [str(booked.data), str(forecast.data)]


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    for line in asyncio.run(run(url, ElicitationConfig(TerminalUI(), modes=("form", "url")))):
        print(line)
