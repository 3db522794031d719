"""A server on the SDK's own `MCPServer` (no elicitkit server code), some of it hostile.

    python upstream_sdk.py stdio | python upstream_sdk.py http PORT

Each tool sends `elicitation/create` itself and returns what came back, so a test sees what
the bridge answered upstream; others fail with a JSON-RPC error the host must see unchanged.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

mcp = MCPServer("SDK Upstream")

NAME = {"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]}
NESTED = {"type": "object", "properties": {"who": {"type": "object", "properties": {}}}}


async def send(ctx: Context, params: Any) -> str:  # type: ignore[type-arg]
    """Send one `elicitation/create` tied to this call; describe the answer or the error."""
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        result = await ctx.session.send_request(ElicitRequest(params=params), ElicitResult, metadata=metadata)
    except MCPError as error:
        return json.dumps({"error": error.code, "message": error.message})
    return json.dumps({"action": result.action, "content": result.content})


@mcp.tool()
async def ask_name(ctx: Context) -> str:  # type: ignore[type-arg]
    """One form question."""
    return await send(ctx, ElicitRequestFormParams(message="Your name?", requested_schema=NAME))


@mcp.tool()
async def ask_as(ctx: Context, label: str, delay: float = 0.0, hold: float = 0.0) -> str:  # type: ignore[type-arg]
    """After `delay` seconds, one form question naming `label`; the call stays open `hold`
    seconds more (calls overlapping on one session)."""
    await anyio.sleep(delay)
    answer = await send(ctx, ElicitRequestFormParams(message=f"Question for {label}", requested_schema=NAME))
    await anyio.sleep(hold)
    return answer


@mcp.tool()
async def ask_url(ctx: Context, url: str = "https://example.com/connect") -> str:  # type: ignore[type-arg]
    """One URL-mode question, whatever the client declared."""
    params = ElicitRequestURLParams(message="Connect your account.", url=url, elicitation_id="e-connect")
    return await send(ctx, params)


@mcp.tool()
async def ask_nested(ctx: Context) -> str:  # type: ignore[type-arg]
    """A schema outside the form-mode subset."""
    return await send(ctx, ElicitRequestFormParams(message="Who?", requested_schema=NESTED))


@mcp.tool()
async def flood(ctx: Context, count: int = 12) -> str:  # type: ignore[type-arg]
    """Many questions at once: the rate limit's business."""
    answers: list[str] = [""] * count

    async def one(i: int) -> None:
        answers[i] = await send(ctx, ElicitRequestFormParams(message=f"Question {i}", requested_schema=NAME))

    async with anyio.create_task_group() as tasks:
        for i in range(count):
            tasks.start_soon(one, i)
    return json.dumps(answers)


@mcp.tool()
async def fail_with_data() -> str:
    """A JSON-RPC error with its own code and data."""
    raise MCPError(code=-32001, message="quota exceeded", data={"retryAfter": 30, "plan": "free"})


@mcp.tool()
async def sleepy(seconds: float = 60.0) -> str:
    await anyio.sleep(seconds)
    return "woke"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
