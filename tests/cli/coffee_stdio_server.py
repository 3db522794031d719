"""A tiny MCP server over stdio whose one tool asks a form question with elicitkit.

python tests/cli/coffee_stdio_server.py
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from elicitkit.server import AcceptedElicitation, Elicitation

server = MCPServer("tiny-stdio")
elicit = Elicitation(server)


class Order(BaseModel):
    size: Annotated[Literal["small", "large"], Field(title="Size")]
    cups: Annotated[int, Field(title="Cups", ge=1, le=5)] = 1
    milk: Annotated[bool, Field(title="Milk?")] = False


@server.tool()
async def order_coffee(name: str, ctx: Context) -> str:
    """Order coffee; asks how you like it."""
    answer = await elicit.form(ctx, f"How does {name} like the coffee?", Order)
    if isinstance(answer, AcceptedElicitation):
        order = answer.data
        return f"{order.cups} {order.size} coffee(s) for {name}, {'with' if order.milk else 'no'} milk."
    return f"No coffee for {name} ({answer.action})."


if __name__ == "__main__":
    server.run("stdio")
