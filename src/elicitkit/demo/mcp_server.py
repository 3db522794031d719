"""The demo MCP server: a small assistant whose tools need the person, in every way MCP allows.

- `book_table` asks for a booking in a form with every kind of field;
- `check_weather` needs an API key, entered on a page of ours (URL mode, the tool waits live);
- `list_events` needs the person's Demo Calendar, connected by OAuth (URL mode);
- `send_message` needs a messenger token, and asks for it with error -32042, so the client
  retries the call once the page is done.

It trusts the demo authorization server's tokens (alice's and bob's) issued for this server
only: a token whose RFC 8707 resource is another server's gets 401. It keeps URL-mode records
in a SQLite store and secrets in a vault sealed with the demo's key, and serves the pages the
URLs open on its own port.
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Annotated, Any, Literal

import httpx
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import AnyHttpUrl, BaseModel, EmailStr, Field
from starlette.types import ASGIApp

from elicitkit.demo._people import DEMO_SERVER_NAME
from elicitkit.demo._serve import LocalServer
from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import CALENDAR_SCOPE, DemoProvider
from elicitkit.schema import TitledEnum
from elicitkit.server import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    Elicitation,
    KeyRing,
    OAuthConnection,
    OAuthLogin,
    Store,
    UrlElicitationNotCompletedError,
    UrlMode,
)

__all__ = ["Booking", "DemoMcpServer", "Seating", "key_fingerprint"]

SERVER_NAME = DEMO_SERVER_NAME


class Seating(TitledEnum):
    WINDOW = "window", "Indoors, by the window"
    TERRACE = "terrace", "On the terrace"
    BAR = "bar", "At the bar"


Diet = Literal["vegetarian", "vegan", "gluten-free", "nut allergy"]


class Booking(BaseModel):
    """A table booking: one field of every kind the form-mode subset has."""

    day: Annotated[date, Field(title="Date", description="The day of your visit")]
    party_size: Annotated[int, Field(title="Party size", description="People at the table", ge=1, le=12)]
    seating: Annotated[Seating, Field(title="Seating")]
    dietary: Annotated[
        list[Diet], Field(title="Dietary needs", description="Tick all that apply", max_length=4)
    ] = []
    note: Annotated[str, Field(title="Note for the restaurant", max_length=200)] = "No special requests"
    email: Annotated[EmailStr, Field(title="Email", description="Where the confirmation goes")]
    high_chair: Annotated[bool, Field(title="High chair needed?")] = False


def key_fingerprint(value: str) -> str:
    """What a tool shows to prove it holds a secret, without showing the secret."""
    return hashlib.sha256(value.encode()).hexdigest()[:12]


class DemoMcpServer(LocalServer):
    """The demo MCP server on 127.0.0.1: `async with DemoMcpServer(...) as server: server.mcp_url`."""

    def __init__(
        self,
        *,
        auth: DemoAuthServer,
        calendar: DemoProvider,
        keys: KeyRing,
        store: Store,
        port: int = 0,
    ) -> None:
        super().__init__(port=port)
        self.auth = auth
        self.calendar = calendar
        self.keys = keys
        self.store = store
        self.url_mode: UrlMode | None = None
        self.calendar_connection: OAuthConnection | None = None

    @property
    def mcp_url(self) -> str:
        """The streamable HTTP endpoint."""
        return f"{self.url}/mcp"

    def build_app(self, url: str) -> ASGIApp:
        server: MCPServer[Any] = MCPServer(
            "elicitkit-demo",
            title=SERVER_NAME,
            instructions="A demo assistant that books tables, checks the weather, reads your calendar "
            "and sends messages, asking you for what it needs.",
            log_level="ERROR",  # the transcript tells the story, refusals included
            token_verifier=self.auth.token_verifier(),
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(self.auth.issuer),
                resource_server_url=AnyHttpUrl(f"{url}/mcp"),  # the audience its tokens must name
                validate_token_resource=True,
                required_scopes=["mcp"],
            ),
        )
        url_mode = UrlMode(
            browser=OAuthLogin(self.auth.issuer, scopes=["openid"]),
            public_url=url,
            keys=self.keys,
            store=self.store,
            server_name=SERVER_NAME,
        )
        elicit = Elicitation(server, url_mode=url_mode)  # forms, and URL mode's pages on this server
        self.url_mode = url_mode
        weather_key = elicit.secret(
            "demo-weather-api-key",
            title="Demo Weather API key",
            message="The weather tool needs your Demo Weather API key. Type it on the page, not in the chat.",
            description="Any text will do in the demo, for example demo-weather-123.",
        )
        messenger_token = elicit.secret(
            "demo-messenger-token",
            title="Demo Messenger token",
            message="Sending messages needs your Demo Messenger token. Enter it on the page.",
            description="Any text will do in the demo, for example demo-messenger-456.",
            wait="error",  # this one is held with -32042; the client retries once it is done
        )
        calendar = self.calendar
        connection = elicit.oauth(
            "calendar",
            service=calendar.service_name,
            client_id=calendar.client_id,
            client_secret=calendar.client_secret,
            scopes=[CALENDAR_SCOPE],
            issuer=calendar.issuer,
            scope_descriptions=calendar.scope_descriptions,
            message="list_events needs to read your Demo Calendar. Connect it on the page.",
        )
        self.calendar_connection = connection

        @server.tool()
        async def book_table(restaurant: str, ctx: Context) -> str:
            """Book a table at a restaurant; asks you for the details."""
            message = f"Book a table at {restaurant}: when, how many of you, and where you would like to sit."
            match await elicit.form(ctx, message, Booking):
                case AcceptedElicitation(data=booking):
                    diet = ", ".join(booking.dietary) or "no dietary needs"
                    chair = "with a high chair" if booking.high_chair else "no high chair"
                    return (
                        f"Booked {restaurant} on {booking.day.isoformat()} for {booking.party_size}, "
                        f"{booking.seating.label.lower()}; {diet}; {chair}; note: {booking.note!r}. "
                        f"Confirmation sent to {booking.email}."
                    )
                case DeclinedElicitation():
                    return "No table booked: you declined to give the details."
                case CancelledElicitation():
                    return "No table booked: the question was dismissed."

        @server.tool()
        async def check_weather(city: str, ctx: Context) -> str:
            """The weather in a city; needs your Demo Weather API key (asked for in your browser)."""
            try:
                key = await weather_key.get(ctx)
            except UrlElicitationNotCompletedError as error:
                return _not_given(error, f"No weather for {city}", "the API key page")
            return f"Sunny and 21 °C in {city} (asked with the API key fingerprinted {key_fingerprint(key)})."

        @server.tool()
        async def send_message(to: str, text: str, ctx: Context) -> str:
            """Send a message; needs your Demo Messenger token, asked for with error -32042."""
            try:
                token = await messenger_token.get(ctx)
            except UrlElicitationNotCompletedError as error:
                return _not_given(error, f"No message sent to {to}", "the Demo Messenger token page")
            return f"Message to {to} sent: {text!r} (token fingerprint {key_fingerprint(token)})."

        @server.tool()
        async def list_events(ctx: Context) -> str:
            """Your Demo Calendar events; needs your permission to read that calendar (OAuth)."""
            try:
                async with httpx.AsyncClient(timeout=10, auth=connection.auth(ctx)) as http:
                    response = await http.get(calendar.api_url)
            except UrlElicitationNotCompletedError as error:
                return _not_given(error, "No events read", "connecting Demo Calendar")
            response.raise_for_status()
            answer = response.json()
            events = "; ".join(f"{e['title']} ({e['start']})" for e in answer["events"]) or "no events"
            return f"{answer['owner']}'s Demo Calendar: {events}."

        return server.streamable_http_app()

    def connect_calendar(self) -> None:
        """Tell Demo Calendar where its OAuth client (this server) takes the person back to."""
        if self.calendar_connection is None:
            raise RuntimeError("The demo MCP server has no calendar connection until it is started.")
        self.calendar.set_redirect_uris([self.calendar_connection.redirect_uri])


def _not_given(error: UrlElicitationNotCompletedError, outcome: str, page: str) -> str:
    """A tool's answer when the person said no to a URL, as `book_table` answers a form: the
    person's choice, not a failure of the tool. An expired page is still an error."""
    if error.state == "declined":
        return f"{outcome}: you declined {page}."
    if error.state == "cancelled":
        return f"{outcome}: you cancelled {page}."
    raise error
