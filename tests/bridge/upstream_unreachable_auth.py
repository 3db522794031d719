"""An MCP endpoint whose sign-in cannot work.

    python upstream_unreachable_auth.py PORT DEAD_PORT   # the authorization server is not there
    python upstream_unreachable_auth.py PORT refuse      # it refuses to register any client

Every request to /mcp is answered 401 naming its protected-resource metadata, which names
http://127.0.0.1:DEAD_PORT (nothing listens there) as the authorization server, or, with
`refuse`, this same server, whose registration endpoint answers 400.
"""

from __future__ import annotations

import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

PORT = int(sys.argv[1])
BASE = f"http://127.0.0.1:{PORT}"
ISSUER = BASE if sys.argv[2] == "refuse" else f"http://127.0.0.1:{int(sys.argv[2])}"
METADATA = f"{BASE}/.well-known/oauth-protected-resource/mcp"


async def mcp(request: Request) -> Response:
    challenge = f'Bearer resource_metadata="{METADATA}"'
    return Response(status_code=401, headers={"www-authenticate": challenge})


async def metadata(request: Request) -> Response:
    return JSONResponse({"resource": f"{BASE}/mcp", "authorization_servers": [ISSUER]})


async def issuer(request: Request) -> Response:
    return JSONResponse(
        {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }
    )


async def register(request: Request) -> Response:
    return JSONResponse({"error": "access_denied", "error_description": "no new clients"}, status_code=400)


app = Starlette(
    routes=[
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/.well-known/oauth-protected-resource/mcp", metadata),
        Route("/.well-known/oauth-protected-resource", metadata),
        Route("/.well-known/oauth-authorization-server", issuer),
        Route("/register", register, methods=["POST"]),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
