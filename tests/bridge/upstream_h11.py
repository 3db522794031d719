"""The stock FastMCP server of upstream_fastmcp.py served by plain uvicorn: h11 and the asyncio
loop, what `pip install fastmcp` gives (neither httptools nor uvloop).

    python upstream_h11.py PORT
"""

from __future__ import annotations

import sys

import uvicorn
from upstream_fastmcp import mcp

if __name__ == "__main__":
    port = int(sys.argv[1])
    uvicorn.run(mcp.http_app(), host="127.0.0.1", port=port, http="h11", loop="asyncio", log_level="warning")
