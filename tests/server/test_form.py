"""`Elicitation.form` end to end in process, on both protocol revisions (S-03, S-13, R-01, M-01)."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Any, Literal

import anyio
import httpx
import pytest
from form_clients import MODES, Script, accept
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult, TextContent
from pydantic import BaseModel, Field, field_validator
from support.url_harness import serve
from typing_extensions import TypedDict

from elicitkit.server import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    Elicitation,
    ElicitationError,
    ElicitationTimeoutError,
    InvalidAnswerError,
    NotInRequestError,
    SchemaRefusedError,
    _forms,
)


class Trip(BaseModel):
    city: str
    nights: int = Field(default=1, ge=1, le=30)
    seat: Literal["window", "aisle"] = "window"

    @field_validator("city")
    @classmethod
    def not_atlantis(cls, value: str) -> str:
        if value == "Atlantis":
            raise ValueError("nobody flies there")
        return value


@dataclasses.dataclass
class Pet:
    name: str
    age: int


class Colour(TypedDict):
    colour: str


RAW: dict[str, Any] = {
    "type": "object",
    "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer", "minimum": 0}},
    "required": ["zeta"],
}


LEAKY: dict[str, Any] = {"type": "object", "properties": {"password": {"type": "string"}}}


def make_server(**options: Any) -> tuple[MCPServer, Elicitation, list[Any]]:
    server = MCPServer("form-tests")
    elicit = Elicitation(server, **options)
    seen: list[Any] = []

    @server.tool()
    async def trip(ctx: Context) -> str:
        outcome = await elicit.form(ctx, "Where to?", Trip)
        seen.append(outcome)
        return outcome.action

    @server.tool()
    async def three(ctx: Context) -> str:
        a = await elicit.form(ctx, "Your pet?", Pet)
        b = await elicit.form(ctx, "Your colour?", Colour)
        c = await elicit.form(ctx, "Anything else?", RAW)
        seen.extend([a, b, c])
        return " / ".join(o.action for o in (a, b, c))

    @server.tool()
    async def careful(ctx: Context) -> str:
        try:
            outcome = await elicit.form(ctx, "Where to?", Trip)
        except InvalidAnswerError as exc:
            return f"invalid: {','.join(exc.fields)}"
        return outcome.action

    @server.tool()
    async def swallowing(ctx: Context) -> str:
        try:
            outcome = await elicit.form(ctx, "Where to?", Trip)
        except Exception:  # the round signal must not be swallowed by this
            return "swallowed"
        return outcome.action

    @server.tool()
    async def hurried(ctx: Context) -> str:
        try:
            await elicit.form(ctx, "Quick!", Trip, timeout=0.2)
        except ElicitationTimeoutError as exc:
            return f"timeout after {exc.timeout}"
        return "answered"

    @server.tool()
    async def leaky(ctx: Context) -> str:
        try:
            await elicit.form(
                ctx, "Your password?", {"type": "object", "properties": {"password": {"type": "string"}}}
            )
        except SchemaRefusedError as exc:
            return f"refused: {exc.findings[0].pointer}"
        return "sent"

    @server.tool()
    async def waived(ctx: Context) -> str:
        schema = {"type": "object", "properties": {"token": {"type": "string", "title": "Raffle ticket"}}}
        outcome = await elicit.form(
            ctx, "Your raffle ticket?", schema, allow_sensitive={"token": "a raffle ticket, not a credential"}
        )
        return outcome.action

    @server.tool()
    async def twins(ctx: Context) -> str:
        await elicit.form(ctx, "Where to?", Trip, key="same")
        try:
            await elicit.form(ctx, "Where else?", Trip, key="same")
        except ElicitationError as exc:
            return str(exc)
        return "asked twice"

    @server.prompt()
    async def greeting(ctx: Context) -> str:
        outcome = await elicit.form(ctx, "Whom to greet?", Colour)
        return (
            f"Greet in {outcome.data['colour']}"
            if isinstance(outcome, AcceptedElicitation)
            else "Greet nobody"
        )

    return server, elicit, seen


def text(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.parametrize("mode", MODES)
async def test_accepted_answer_arrives_as_the_model(mode: str) -> None:
    server, _, seen = make_server()
    script = Script(accept(city="Oslo", nights=3, seat="aisle"))
    async with Client(server, mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("trip", {})
    assert text(result) == "accept"
    assert seen == [AcceptedElicitation(Trip(city="Oslo", nights=3, seat="aisle"))]
    (asked,) = script.asked
    assert asked.mode == "form" and asked.message == "Where to?"
    assert asked.requested_schema["required"] == ["city"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (ElicitResult(action="decline"), DeclinedElicitation()),
        (ElicitResult(action="cancel"), CancelledElicitation()),
        (ElicitResult(action="decline", content={"city": "Oslo"}), DeclinedElicitation()),
    ],
)
async def test_decline_and_cancel_are_outcomes_without_a_value(
    mode: str, answer: ElicitResult, expected: Any
) -> None:
    server, _, seen = make_server()
    async with Client(server, mode=mode, elicitation_callback=Script(answer)) as client:
        result = await client.call_tool("trip", {})
    assert not result.is_error
    assert seen == [expected]


@pytest.mark.parametrize("mode", MODES)
async def test_several_questions_in_a_row_each_asked_once(mode: str) -> None:
    server, _, seen = make_server()
    script = Script(accept(name="Rex", age=4), accept(colour="teal"), accept(zeta="z", alpha=2))
    async with Client(server, mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("three", {})
    assert text(result) == "accept / accept / accept"
    assert [p.message for p in script.asked] == ["Your pet?", "Your colour?", "Anything else?"]
    assert seen == [
        AcceptedElicitation(Pet(name="Rex", age=4)),
        AcceptedElicitation({"colour": "teal"}),
        AcceptedElicitation({"zeta": "z", "alpha": 2}),
    ]
    # A raw schema is sent as written, property order included.
    assert list(script.asked[2].requested_schema["properties"]) == ["zeta", "alpha"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("content", "field"),
    [
        ({"city": "Oslo", "nights": "3"}, "nights"),  # never coerced
        ({"city": "Oslo", "nights": 0}, "nights"),
        ({"city": "Oslo", "seat": "middle"}, "seat"),
        ({"city": "Oslo", "pets": 2}, "pets"),  # extra keys are never dropped silently
        ({"nights": 2}, "city"),
        ({"city": "Atlantis"}, "city"),  # the model's own validator runs too
    ],
)
async def test_bad_answers_are_rejected_naming_the_field(
    mode: str, content: dict[str, Any], field: str
) -> None:
    server, _, _ = make_server()
    async with Client(server, mode=mode, elicitation_callback=Script(accept(**content))) as client:
        caught = await client.call_tool("careful", {})
        uncaught = await client.call_tool("trip", {})
    assert text(caught) == f"invalid: {field}"
    assert uncaught.is_error and repr(field) in text(uncaught)


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_ask_too(mode: str) -> None:
    server, _, _ = make_server()
    async with Client(server, mode=mode, elicitation_callback=Script(accept(colour="red"))) as client:
        result = await client.get_prompt("greeting")
    content = result.messages[0].content
    assert isinstance(content, TextContent) and content.text == "Greet in red"


@pytest.mark.parametrize("mode", MODES)
async def test_a_schema_that_breaks_the_rules_is_never_sent(mode: str) -> None:
    server, _, _ = make_server()
    script = Script(accept(password="hunter2"))
    async with Client(server, mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("leaky", {})
    assert text(result).startswith("refused: /properties/password")
    assert script.asked == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_field_that_only_looks_sensitive_is_sent_once_the_author_says_why(mode: str) -> None:
    server, _, _ = make_server()
    script = Script(accept(token="A-17"))
    async with Client(server, mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("waived", {})
    assert text(result) == "accept"
    assert len(script.asked) == 1


async def test_legacy_timeout_is_a_typed_error() -> None:
    server, _, _ = make_server()

    async def slow(context: Any, params: Any) -> ElicitResult:
        await anyio.sleep(2)
        return accept(city="Oslo")

    async with Client(server, mode="legacy", elicitation_callback=slow) as client:
        with anyio.fail_after(5):
            result = await client.call_tool("hurried", {})
    assert text(result) == "timeout after 0.2"


async def test_round_timeout_counts_from_the_question_to_the_answer() -> None:
    server, _, _ = make_server()
    async with Client(server, mode="auto", elicitation_callback=Script(accept(city="Oslo"))) as client:
        first = await client.session.call_tool("hurried", {}, allow_input_required=True)
        assert first.result_type == "input_required"
        (key,) = first.input_requests or {}
        await anyio.sleep(0.3)
        late = await client.session.call_tool(
            "hurried", {}, input_responses={key: accept(city="Oslo")}, request_state=first.request_state
        )
        assert text(late) == "timeout after 0.2"
        second = await client.session.call_tool("hurried", {}, allow_input_required=True)
        prompt = await client.session.call_tool(
            "hurried",
            {},
            input_responses={key: accept(city="Oslo")},
            request_state=second.request_state,  # type: ignore[union-attr]
        )
        assert text(prompt) == "answered"


async def test_the_round_signal_is_not_swallowed_by_except_exception() -> None:
    server, _, _ = make_server()
    async with Client(server, mode="auto", elicitation_callback=Script(accept(city="Oslo"))) as client:
        result = await client.call_tool("swallowing", {})
    assert text(result) == "accept"


async def test_outside_a_request_is_a_typed_error() -> None:
    server, elicit, _ = make_server()
    with pytest.raises(NotInRequestError, match="tool, prompt or resource"):
        await elicit.form(Context(mcp_server=server), "Where to?", Trip)


@pytest.mark.parametrize("method", ["completion/complete", "tools/list", "notifications/initialized"])
async def test_only_tool_prompt_and_resource_requests_may_ask(method: str) -> None:
    server, elicit, _ = make_server()
    request = SimpleNamespace(method=method, request_id=None if method.startswith("notifications") else 7)
    ctx = Context(request_context=request, mcp_server=server)  # type: ignore[arg-type]
    with pytest.raises(NotInRequestError):
        await elicit.form(ctx, "Where to?", Trip)


def test_schema_is_built_once_per_type() -> None:
    """The same type (or an equal raw schema) gives the very same prepared form, not a rebuild."""

    class Once(BaseModel):
        word: str

    assert _forms.for_type(Once) is _forms.for_type(Once)
    assert _forms.for_schema(RAW) is _forms.for_schema(dict(RAW))


def test_installing_twice_adds_one_middleware() -> None:
    server, _, _ = make_server()
    before = len(server.middleware)
    Elicitation(server)
    assert len(server.middleware) == before


@pytest.mark.parametrize("mode", MODES)
async def test_one_key_names_one_question(mode: str) -> None:
    server, _, _ = make_server()
    async with Client(server, mode=mode, elicitation_callback=Script(accept(city="Oslo"))) as client:
        result = await client.call_tool("twins", {})
    assert text(result).startswith("Two questions in one call share the key 'same'")


async def test_an_answer_the_sdk_cannot_even_read_is_still_an_invalid_answer() -> None:
    """mcp.Client refuses to send an answer whose content is not flat, but another client may:
    a client that speaks the protocol over plain HTTP sends one."""
    server, _, _ = make_server()
    async with serve(lambda base: server.streamable_http_app()) as base:
        result = await lax_tool_call(base + "/mcp", "careful", answer={"city": {"name": "Oslo"}})
    assert result["content"][0]["text"] == "invalid: city"


async def lax_tool_call(url: str, tool: str, *, answer: dict[str, Any]) -> dict[str, Any]:
    """Call `tool` as a 2025-11-25 client with no checks of its own, accepting every question
    with `answer`; the tool call's result."""
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}}}
        hello["clientInfo"] = {"name": "lax", "version": "1"}
        opened = await http.post(url, json=rpc("initialize", hello, 0), headers=headers)
        headers |= {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        call = rpc("tools/call", {"name": tool, "arguments": {}}, 1)
        async with http.stream("POST", url, json=call, headers=headers) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("method") == "elicitation/create":
                    reply = {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "result": {"action": "accept", "content": answer},
                    }
                    await http.post(url, json=reply, headers=headers)
                elif message.get("id") == 1:
                    return dict(message["result"])
    raise AssertionError("the tool call ended without a result")


def rpc(method: str, params: dict[str, Any], request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def test_an_integral_float_is_read_as_the_integer_json_schema_says_it_is() -> None:
    class Party(BaseModel):
        size: int = Field(ge=1, le=12)

    form = _forms.for_type(Party)
    assert form.read({"size": 4.0}) == Party(size=4)
    with pytest.raises(InvalidAnswerError):
        form.read({"size": 4.5})
