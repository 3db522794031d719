"""Small test servers written with the bare SDK (`MCPServer`), no elicitkit server code."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

NAME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name", "default": "Ada"}},
    "required": ["name"],
}


def outcome(result: ElicitResult) -> str:
    return json.dumps({"action": result.action, "content": result.content})


async def send(ctx: Context, params: Any, *, related: bool = True) -> str:
    """Send one elicitation/create and describe what came back (a result or a JSON-RPC error)."""
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id if related else None)
    try:
        result = await ctx.session.send_request(ElicitRequest(params=params), ElicitResult, metadata=metadata)
    except MCPError as error:
        return json.dumps({"error": error.code, "message": error.message})
    return outcome(result)


@dataclass
class State:
    """What a server saw, shared with the test thread."""

    outcomes: list[str] = field(default_factory=list)
    calls: int = 0
    completed: bool = False
    loop: asyncio.AbstractEventLoop | None = None
    ctx_session: Any = None


def elicit_server(state: State) -> MCPServer:
    mcp = MCPServer("Test Elicitor")

    @mcp.tool()
    async def ask_form(ctx: Context, schema: str = "") -> str:
        requested = json.loads(schema) if schema else NAME_SCHEMA
        return await send(ctx, ElicitRequestFormParams(message="Who are you?", requested_schema=requested))

    @mcp.tool()
    async def ask_url(ctx: Context, url: str, elicitation_id: str = "e-1") -> str:
        return await send(
            ctx, ElicitRequestURLParams(message="Connect", url=url, elicitation_id=elicitation_id)
        )

    @mcp.tool()
    async def ask_without_mode(ctx: Context, with_url: bool) -> str:
        # exclude_none drops a None mode, so these go out with no "mode" key at all (C-04).
        if with_url:
            params: Any = ElicitRequestURLParams.model_construct(
                mode=None,  # type: ignore[arg-type]
                message="No mode",
                url="https://example.com/x",
                elicitation_id="nm-1",
            )
        else:
            params = ElicitRequestFormParams.model_construct(
                mode=None,  # type: ignore[arg-type]
                message="No mode",
                requested_schema=NAME_SCHEMA,
            )
        return await send(ctx, params)

    @mcp.tool()
    async def ask_later(ctx: Context, delay: float = 0.5) -> str:
        """Return now; after `delay`, send an elicitation tied to no request, on the standalone stream."""

        async def later() -> None:
            await asyncio.sleep(delay)
            params = ElicitRequestFormParams(message="Unasked", requested_schema=NAME_SCHEMA)
            state.outcomes.append(await send(ctx, params, related=False))

        asyncio.get_running_loop().create_task(later())
        return "scheduled"

    @mcp.tool()
    async def complete(ctx: Context, ids: list[str]) -> str:
        for elicitation_id in ids:
            await ctx.session.send_elicit_complete(elicitation_id)
        return "sent"

    @mcp.tool()
    async def flood(ctx: Context, count: int = 200) -> str:
        """Send `count` form elicitations at once and tally the answers."""
        params = ElicitRequestFormParams(message="Flood", requested_schema=NAME_SCHEMA)
        answers = await asyncio.gather(*(send(ctx, params) for _ in range(count)))
        tally: dict[str, int] = {}
        for answer in answers:
            key = json.loads(answer).get("action") or f"error {json.loads(answer).get('error')}"
            tally[key] = tally.get(key, 0) + 1
        return json.dumps(tally)

    return mcp


def held_server(state: State, *, ids: tuple[str, ...] = ("conn-1",), repeat: bool = False) -> MCPServer:
    """A tool held by -32042 until `state.completed` (set by the test's browser stand-in)."""
    mcp = MCPServer("Held Server")

    @mcp.tool()
    async def connect_service(ctx: Context) -> str:
        state.calls += 1
        state.loop = asyncio.get_running_loop()
        state.ctx_session = ctx.session
        if state.completed and not repeat:
            return "connected"
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    message=f"Connect account {i}", url=f"https://example.com/connect/{i}", elicitation_id=i
                )
                for i in ids
            ]
        )

    return mcp


def finish(state: State, elicitation_id: str, *, notify: bool = True) -> None:
    """What the browser flow does on the server: mark done, and (optionally) send the completion notice."""
    state.completed = True
    if notify and state.loop is not None:
        asyncio.run_coroutine_threadsafe(state.ctx_session.send_elicit_complete(elicitation_id), state.loop)
