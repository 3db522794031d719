"""A FastMCP server with elicitkit: a form, a `Secret` and an `OAuthConnection`.

    python server.py [PORT] [CALENDAR_ISSUER]

Serves /mcp and the URL-mode pages on http://127.0.0.1:PORT (default 8000); one local person
(`McpUsers.single_user_local()`), so no sign-in. `ELICITKIT_VAULT_KEYS` holds the vault key;
make one with `python -c 'from elicitkit.server import KeyRing; print(KeyRing.generate())'`.
The `agenda` tool connects to a calendar provider at CALENDAR_ISSUER (an OAuth authorization
server, such as the one `elicitkit demo` runs).
"""

from __future__ import annotations

import datetime
import hashlib
import sys
from dataclasses import dataclass
from typing import Any

import httpx
from fastmcp import Context, FastMCP
from pydantic import BaseModel, Field

from elicitkit.fastmcp import Elicitation, OAuthConnection
from elicitkit.server import AcceptedElicitation, KeyRing, McpUsers, MemoryStore, UrlMode, Wait


class Booking(BaseModel):
    day: datetime.date = Field(title="Day")
    party: int = Field(ge=1, le=12, title="Party size")


@dataclass
class Tables:
    server: FastMCP[Any]
    url_mode: UrlMode
    calendar: OAuthConnection | None


def build(
    public_url: str,
    calendar_issuer: str | None = None,
    *,
    calendar_client: tuple[str, str] = ("elicitkit-fastmcp-example", "example-secret"),
    store: Any = None,
    keys: KeyRing | None = None,
    wait: Wait = "live",
) -> Tables:
    """The server; `public_url` is where it is reached (the pages' links use it).

    `calendar_client` is the (client id, secret) registered at the calendar provider, with
    `calendar.redirect_uri` as its redirect URI.
    """
    server: FastMCP[Any] = FastMCP("tables")
    url_mode = UrlMode(
        public_url=public_url,
        users=McpUsers.single_user_local(),
        store=store if store is not None else MemoryStore(),
        keys=keys,
        wait=wait,  # "error": the 2025-11-25 call fails with -32042 and the client retries
    )
    elicit = Elicitation(server, url_mode=url_mode)
    weather_key = elicit.secret(
        "weather-api-key",
        title="Weather API key",
        message="The forecast tool needs your weather.example API key.",
        validator=lambda value: None if value.startswith("wk-") else "A weather API key starts with wk-.",
    )

    @server.tool
    async def book(ctx: Context) -> str:
        """Book a table; asks which day and for how many."""
        match await elicit.form(ctx, "Which day, and for how many?", Booking):
            case AcceptedElicitation(data=booking):
                return f"Booked a table for {booking.party} on {booking.day}."
            case outcome:
                return f"Nothing booked: the person chose {outcome.action}."

    @server.tool
    async def forecast(city: str, ctx: Context) -> str:
        """Tomorrow's weather; asks once for the weather API key, in URL mode."""
        key = await weather_key.get(ctx)
        return f"Sunny in {city} (key {hashlib.sha256(key.encode()).hexdigest()[:8]})"

    @server.prompt
    async def plan(ctx: Context) -> str:
        """A planning prompt for the day the person picks."""
        match await elicit.form(ctx, "Which day should we plan?", Booking):
            case AcceptedElicitation(data=booking):
                return f"Plan a dinner for {booking.party} on {booking.day}."
            case _:
                return "Plan a dinner."

    @server.resource("tables://today")
    async def today(ctx: Context) -> str:
        """Today's table, for the party size the person gives."""
        match await elicit.form(
            ctx, "For how many?", {"type": "object", "properties": {"party": {"type": "integer"}}}
        ):
            case AcceptedElicitation(data=answer):
                return f"A table for {answer.get('party')} tonight."
            case _:
                return "No table tonight."

    calendar = None
    if calendar_issuer is not None:
        calendar = OAuthConnection(
            url_mode,
            "calendar",
            service="Demo Calendar",
            issuer=calendar_issuer,
            client_id=calendar_client[0],
            client_secret=calendar_client[1],
            scopes=["calendar.read"],
            scope_descriptions={"calendar.read": "read your calendar"},
        )
        connection = calendar

        @server.tool
        async def agenda(ctx: Context) -> str:
            """Today's agenda; connects the person's calendar first, in URL mode."""
            async with httpx.AsyncClient(auth=connection.auth(ctx), timeout=10) as http:
                answer = await http.get(f"{calendar_issuer}/api/calendar")
            answer.raise_for_status()
            return answer.text

    return Tables(server, url_mode, calendar)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    issuer = sys.argv[2] if len(sys.argv) > 2 else None
    build(f"http://127.0.0.1:{port}", issuer).server.run("streamable-http", host="127.0.0.1", port=port)
