"""A 2026-07-28 server that asks for a URL in an input-required round of its own making, any URL
the call names (`python upstream_rounds.py stdio`): what a hostile server may put in a round."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult

mcp = MCPServer("Rounds of its own")


@mcp.tool()
async def visit(url: str, ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Ask the person to open `url`; then say what they answered."""
    answer = (ctx.input_responses or {}).get("visit")
    if isinstance(answer, ElicitResult):
        return f"answered {answer.action}"
    question = ElicitRequestURLParams(message="Sign in to go on.", url=url)
    return InputRequiredResult(input_requests={"visit": ElicitRequest(params=question)}, request_state="s1")


if __name__ == "__main__":
    mcp.run("stdio")
