"""The weather server of tests/support/url_harness.py on Streamable HTTP, holding its calls with
-32042 (URL elicitation required, S-24) instead of asking live:

    python -m tests.bridge.upstream_url_required PORT DB    (from the repository's root)

Its `forecast` tool needs a URL-mode `Secret`: the first call answers -32042 listing the page,
the page stores the secret and the server sends the completion notice, and the retried call
returns the forecast. One person on 127.0.0.1 with no MCP authorization (single-user local
mode, as the stdio weather server runs): the pages share the server's own origin.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from elicitkit.server import KeyRing, McpUsers
from elicitkit.server.store import SQLiteStore
from tests.support.url_harness import build_weather

if __name__ == "__main__":
    port, db = int(sys.argv[1]), Path(sys.argv[2])
    weather = build_weather(
        public_url=f"http://127.0.0.1:{port}",
        issuer=None,
        verifier=None,
        keys=KeyRing.from_env(),
        store=SQLiteStore(db),
        users=McpUsers.single_user_local(),
        wait="error",
    )
    uvicorn.run(weather.server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
