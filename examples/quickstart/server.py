"""A server that asks for a booking in the middle of a tool call (serves /mcp on port 8000)."""

import datetime
import sys

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from elicitkit.server import AcceptedElicitation, Elicitation

server = MCPServer("tables")
elicit = Elicitation(server)


class Booking(BaseModel):
    day: datetime.date = Field(title="Day")
    party: int = Field(ge=1, le=12, title="Party size")


@server.tool()
async def book(ctx: Context) -> str:
    match await elicit.form(ctx, "Which day, and for how many?", Booking):
        case AcceptedElicitation(data=booking):
            return f"Booked a table for {booking.party} on {booking.day}."
        case outcome:
            return f"Nothing booked: the person chose {outcome.action}."


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    server.run("streamable-http", host="127.0.0.1", port=port)
