"""Form mode over real streamable HTTP on 127.0.0.1, on both protocol revisions.

One server file (`tools` below) and plain `mcp.Client`s: "legacy" speaks 2025-11-25 (a live
`elicitation/create` on the tool call's stream), "auto" lands on 2026-07-28 (the question in
an `InputRequiredResult`, the answer in the retry). The same assertions hold on both.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Annotated, Any, Literal

import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)
from pydantic import AnyUrl, BaseModel, EmailStr, Field
from support.declaring import declaring

from elicitkit.schema import Titled
from elicitkit.server import AcceptedElicitation, Elicitation

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}


# --- the tool file ---------------------------------------------------------------------------


class Trip(BaseModel):
    city: str
    nights: int = 2


class Confirm(BaseModel):
    ok: bool


class Signup(BaseModel):
    """A form touching every kind of field the subset has, for the bad-answer tests."""

    name: Annotated[str, Field(min_length=2, max_length=20)]
    email: EmailStr
    homepage: AnyUrl | None = None
    born: date | None = None
    age: Annotated[int, Field(ge=18, le=120)]
    height: Annotated[float, Field(ge=0.5, le=2.5)] = 1.7
    subscribe: bool = False
    plan: Literal["free", "pro"] = "free"
    colour: Annotated[Literal["#f00", "#0f0"], Titled({"#f00": "Red", "#0f0": "Green"})] = "#f00"
    topics: Annotated[list[Literal["news", "tips", "deals"]], Field(min_length=1, max_length=2)] = ["news"]


def tools(security: RequestStateSecurity | None = None) -> MCPServer:
    server = MCPServer("e2e-forms", request_state_security=security)
    elicit = Elicitation(server)

    @server.tool()
    async def book_trip(ctx: Context) -> str:
        trip = await elicit.form(ctx, "Where to?", Trip)
        if not isinstance(trip, AcceptedElicitation):
            return f"no trip ({trip.action})"
        confirm = await elicit.form(ctx, f"Book {trip.data.nights} nights in {trip.data.city}?", Confirm)
        booked = isinstance(confirm, AcceptedElicitation) and confirm.data.ok
        return f"{trip.data.city} x{trip.data.nights}: {'booked' if booked else 'not booked'}"

    @server.tool()
    async def sign_up(ctx: Context) -> str:
        outcome = await elicit.form(ctx, "Sign up?", Signup)
        return f"welcome {outcome.data.name}" if isinstance(outcome, AcceptedElicitation) else outcome.action

    return server


# --- real HTTP -------------------------------------------------------------------------------


class Spy:
    """ASGI wrapper keeping each HTTP exchange: the JSON-RPC method POSTed and the bytes sent back."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.exchanges: list[tuple[str | None, bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            event = await receive()
            body += event.get("body", b"")
            more = event.get("more_body", False)
        try:
            method = json.loads(body).get("method") if body else None
        except (ValueError, AttributeError):
            method = None
        sent = bytearray()
        self.exchanges.append((method, b""))
        index = len(self.exchanges) - 1
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def record(message: Any) -> None:
            if message["type"] == "http.response.body":
                sent.extend(message.get("body", b""))
                self.exchanges[index] = (method, bytes(sent))
            await send(message)

        await self.app(scope, replay, record)

    def carrying(self, needle: bytes) -> list[str | None]:
        return [method for method, sent in self.exchanges if needle in sent]


@contextmanager
def serve(app: Any) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "test server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, Spy]]:
    spy = Spy(tools().streamable_http_app())
    with serve(spy) as url:
        yield url, spy


class Script:
    def __init__(self, *answers: ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[ElicitRequestParams] = []

    async def __call__(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def accept(**content: Any) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


def text(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


# --- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_same_tool_file_same_result_on_both_revisions(site: tuple[str, Spy], mode: str) -> None:
    url, spy = site
    before = len(spy.exchanges)
    script = Script(accept(city="Lisbon", nights=4), accept(ok=True))
    async with Client(url, mode=mode, elicitation_callback=script) as client:
        assert client.protocol_version == MODES[mode]
        result = await client.call_tool("book_trip", {})
    assert not result.is_error
    assert text(result) == "Lisbon x4: booked"
    assert [p.message for p in script.asked] == ["Where to?", "Book 4 nights in Lisbon?"]
    # On the wire every question names its mode and message (S-03), on both revisions.
    sent = b"".join(body for _, body in spy.exchanges[before:])
    assert sent.count(b'"mode":"form"') == 2
    assert b'"message":"Where to?"' in sent


@pytest.mark.parametrize("mode", MODES)
async def test_a_form_only_client_is_asked(site: tuple[str, Spy], mode: str) -> None:
    url, _ = site
    script = Script(ElicitResult(action="decline"))
    async with declaring({"form": {}}, url, mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("book_trip", {})
    assert text(result) == "no trip (decline)"
    (asked,) = script.asked
    assert asked.mode == "form" and asked.requested_schema["properties"]["city"] == {"type": "string"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("elicitation", [{"url": {}}, None], ids=["url-only", "no-capability"])
async def test_a_client_that_cannot_take_forms_is_refused_before_anything_is_sent(
    site: tuple[str, Spy], mode: str, elicitation: dict[str, Any] | None
) -> None:
    url, spy = site
    before = len(spy.exchanges)
    script = Script(accept(city="Oslo"))
    async with declaring(elicitation, url, mode=mode, elicitation_callback=script) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("book_trip", {})
    assert raised.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    assert raised.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
    assert script.asked == []
    assert not any(b"elicitation/create" in sent for _, sent in spy.exchanges[before:])


async def test_on_2025_11_25_the_question_rides_the_tool_calls_own_stream(site: tuple[str, Spy]) -> None:
    url, spy = site
    before = len(spy.exchanges)
    async with Client(
        url, mode="legacy", elicitation_callback=Script(accept(city="Rome"), accept(ok=False))
    ) as c:
        await c.call_tool("book_trip", {})
    carriers = [m for m, sent in spy.exchanges[before:] if b'"method":"elicitation/create"' in sent]
    assert carriers == ["tools/call"]  # both questions, on the POST that made the call (S-02)


GOOD: dict[str, Any] = {"name": "Ada", "email": "ada@example.com", "age": 36}

BAD_ANSWERS: list[tuple[str, dict[str, Any], str]] = [
    ("missing required", {"email": "ada@example.com", "age": 36}, "name"),
    ("too short", {**GOOD, "name": "A"}, "name"),
    ("too long", {**GOOD, "name": "A" * 21}, "name"),
    ("number for string", {**GOOD, "name": 7}, "name"),
    ("not an email", {**GOOD, "email": "ada-at-example"}, "email"),
    ("not a uri", {**GOOD, "homepage": "not a url"}, "homepage"),
    ("not a date", {**GOOD, "born": "31/12/1990"}, "born"),
    ("string for integer", {**GOOD, "age": "36"}, "age"),
    ("fraction for integer", {**GOOD, "age": 36.5}, "age"),
    ("below minimum", {**GOOD, "age": 17}, "age"),
    ("above maximum", {**GOOD, "height": 3.1}, "height"),
    ("number for boolean", {**GOOD, "subscribe": 1}, "subscribe"),
    ("string for boolean", {**GOOD, "subscribe": "true"}, "subscribe"),
    ("not a choice", {**GOOD, "plan": "gold"}, "plan"),
    ("title instead of value", {**GOOD, "colour": "Red"}, "colour"),
    ("not a list", {**GOOD, "topics": "news"}, "topics"),
    ("too few choices", {**GOOD, "topics": []}, "topics"),
    ("too many choices", {**GOOD, "topics": ["news", "tips", "deals"]}, "topics"),
    ("unknown choice in list", {**GOOD, "topics": ["gossip"]}, "topics"),
    ("null value", {**GOOD, "plan": None}, "plan"),
    ("unknown field", {**GOOD, "nickname": "ada"}, "nickname"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("content", "field"), [case[1:] for case in BAD_ANSWERS], ids=[c[0] for c in BAD_ANSWERS]
)
async def test_bad_answers_are_rejected_naming_the_field(
    site: tuple[str, Spy], mode: str, content: dict[str, Any], field: str
) -> None:
    url, _ = site
    async with Client(url, mode=mode, elicitation_callback=Script(accept(**content))) as client:
        result = await client.call_tool("sign_up", {})
    assert result.is_error
    assert "The answer to the form was rejected" in text(result)
    assert repr(field) in text(result)


@pytest.mark.parametrize("mode", MODES)
async def test_a_good_answer_to_the_same_form_is_welcome(site: tuple[str, Spy], mode: str) -> None:
    url, _ = site
    answer = {**GOOD, "homepage": "https://ada.example", "born": "1815-12-10", "topics": ["news", "tips"]}
    async with Client(url, mode=mode, elicitation_callback=Script(accept(**answer))) as client:
        result = await client.call_tool("sign_up", {})
    assert text(result) == "welcome Ada"


async def test_sealed_state_is_bound_to_the_user_who_was_asked() -> None:
    # A stand-in for the real binding (issuer and subject of the verified token): a header.
    security = RequestStateSecurity(
        keys=[os.urandom(32)], bind_principal=lambda rc: rc.request.headers["x-user"]
    )
    with serve(tools(security).streamable_http_app()) as url:

        def as_user(name: str) -> Client:
            http = httpx2.AsyncClient(headers={"x-user": name})
            return Client(
                streamable_http_client(url, http_client=http), elicitation_callback=Script(accept(ok=1))
            )

        async with as_user("ann") as ann, as_user("bob") as bob:
            asked = await ann.session.call_tool("book_trip", {}, allow_input_required=True)
            assert isinstance(asked, InputRequiredResult)
            answer = {key: accept(city="Paris") for key in asked.input_requests or {}}
            with pytest.raises(MCPError) as stolen:
                await bob.session.call_tool(
                    "book_trip", {}, input_responses=answer, request_state=asked.request_state
                )
            assert stolen.value.code == INVALID_PARAMS
            onward = await ann.session.call_tool(
                "book_trip",
                {},
                input_responses=answer,
                request_state=asked.request_state,
                allow_input_required=True,
            )
            assert isinstance(onward, InputRequiredResult)  # ann's retry goes on to the next question
