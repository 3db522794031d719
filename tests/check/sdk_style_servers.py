"""Servers written the way the SDK's and FastMCP's own examples write elicitation.

`python sdk_style_servers.py sdk|fastmcp PORT`: `sdk` uses `mcp.server.mcpserver` alone
(`ctx.elicit` with a pydantic model, `ctx.elicit_url`, `UrlElicitationRequiredError`,
`send_elicit_complete`), `fastmcp` uses FastMCP's `ctx.elicit`. Neither uses elicitkit: they
stand for the servers people already have, which the checker must report on without crashing.
"""

import sys
import uuid

from pydantic import BaseModel, Field


class Table(BaseModel):
    party: int = Field(ge=1, le=12, description="How many people?")
    window: bool = Field(default=False, description="A table by the window?")


def sdk(port: int) -> None:
    from mcp.server.elicitation import AcceptedElicitation
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.shared.exceptions import UrlElicitationRequiredError
    from mcp_types import ElicitRequestURLParams

    server = MCPServer("sdk-style")

    @server.tool()
    async def reserve(ctx: Context) -> str:
        answer = await ctx.elicit("How many people, and where?", Table)
        if isinstance(answer, AcceptedElicitation):
            return f"Reserved for {answer.data.party}."
        return f"Not reserved ({answer.action})."

    @server.tool()
    async def pay(amount: float, ctx: Context) -> str:
        elicitation_id = uuid.uuid4().hex
        answer = await ctx.elicit_url(
            f"Confirm the payment of {amount:.2f}",
            url=f"https://pay.example.com/confirm/{elicitation_id}",
            elicitation_id=elicitation_id,
        )
        if answer.action == "accept":
            await ctx.request_context.session.send_elicit_complete(
                elicitation_id, related_request_id=ctx.request_context.request_id
            )
        return f"Payment {answer.action}."

    @server.tool()
    async def link(ctx: Context) -> str:
        elicitation_id = uuid.uuid4().hex
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    message="Sign in to link your account.",
                    url=f"https://accounts.example.com/link/{elicitation_id}",
                    elicitation_id=elicitation_id,
                )
            ]
        )

    server.run("streamable-http", host="127.0.0.1", port=port)


def fastmcp(port: int) -> None:
    from fastmcp import Context, FastMCP

    server = FastMCP("fastmcp-style")

    @server.tool
    async def reserve(ctx: Context) -> str:
        answer = await ctx.elicit("How many people, and where?", Table)
        if answer.action == "accept":
            return f"Reserved for {answer.data.party}."
        return f"Not reserved ({answer.action})."

    @server.tool
    async def pick(ctx: Context) -> str:
        answer = await ctx.elicit("Which room?", ["blue", "green"])
        return f"Room: {answer.data if answer.action == 'accept' else answer.action}."

    server.run("http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)


if __name__ == "__main__":
    {"sdk": sdk, "fastmcp": fastmcp}[sys.argv[1]](int(sys.argv[2]))
