"""Serve an upstream example (tests/check/upstream_examples/) on 127.0.0.1, as its own docs would.

`python serve_upstream.py FILE PORT` loads the example file unchanged and serves the server
object it defines, named `mcp` in both projects' examples, over streamable HTTP at `/mcp`.
The SDK's snippet has no `__main__` block and FastMCP's is run by its CLI; this is the
two-line stand-in for those, so the files stay exactly as their projects wrote them.
"""

import runpy
import sys

FILE, PORT = sys.argv[1], int(sys.argv[2])
server = runpy.run_path(FILE)["mcp"]
if type(server).__module__.startswith("fastmcp"):
    server.run("http", host="127.0.0.1", port=PORT, path="/mcp", show_banner=False)
else:
    server.run("streamable-http", host="127.0.0.1", port=PORT)
