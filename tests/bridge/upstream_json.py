"""The stock servers of upstream_sdk.py and upstream_fastmcp.py answering each POST with one JSON
body instead of an event stream (Streamable HTTP's JSON response mode, sessions kept):

    python upstream_json.py sdk PORT | python upstream_json.py fastmcp PORT
"""

from __future__ import annotations

import sys

import uvicorn

if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    if kind == "sdk":
        from upstream_sdk import mcp

        app = mcp.streamable_http_app(json_response=True)
    else:
        from upstream_fastmcp import mcp as fast

        app = fast.http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
