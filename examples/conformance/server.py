"""The tools the official MCP conformance scenarios call, written with elicitkit.

    python examples/conformance/server.py --port 8765   # serves http://127.0.0.1:8765/mcp

One server answers both protocol revisions: the 2025-11-25 scenarios (a live
`elicitation/create` during the call) and the 2026-07-28 `input-required-result-*` ones (the
question returned in an `InputRequiredResult`, the answer taken from the retry). The tools do
not know which revision they run on; `Elicitation` does.
"""

from __future__ import annotations

import argparse
from typing import Annotated, Any, Literal

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel, EmailStr, Field

from elicitkit.server import AcceptedElicitation, Elicitation, ModeNotDeclaredError

server = MCPServer("elicitkit-conformance", version="0.1.0")
elicit = Elicitation(server)


# --- 2025-11-25 ------------------------------------------------------------------------------


class Contact(BaseModel):
    username: Annotated[str, Field(description="Your user name")]
    email: Annotated[EmailStr, Field(description="Your email address")]


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks for a user name and an email address (tools-call-elicitation)."""
    answer = await elicit.form(ctx, message, Contact)
    if isinstance(answer, AcceptedElicitation):
        return f"User provided: {answer.data.username} <{answer.data.email}>"
    return f"User {answer.action}ed the request"


class Profile(BaseModel):
    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Literal["active", "inactive", "pending"] = "active"
    verified: bool = True


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Asks with a default for every primitive type (elicitation-sep1034-defaults)."""
    answer = await elicit.form(ctx, "Please review your profile", Profile)
    shown = answer.data if isinstance(answer, AcceptedElicitation) else ""
    return f"Elicitation completed: {answer.action} {shown}"


# Every enum shape of SEP-1330; `enumNames` (legacy, never produced by `build`) needs a dict.
ENUMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks with all five enum shapes (elicitation-sep1330-enums)."""
    answer = await elicit.form(ctx, "Please pick your options", ENUMS)
    shown = answer.data if isinstance(answer, AcceptedElicitation) else ""
    return f"Elicitation completed: {answer.action} {shown}"


# --- 2026-07-28 ------------------------------------------------------------------------------


class Name(BaseModel):
    name: str


class Confirmation(BaseModel):
    ok: bool


class Color(BaseModel):
    color: str


class PromptContext(BaseModel):
    context: str


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """One question (basic-elicitation, missing-input-response, result-type, ...)."""
    answer = await elicit.form(ctx, "What is your name?", Name, key="user_name")
    return (
        f"Hello, {answer.data.name}!"
        if isinstance(answer, AcceptedElicitation)
        else f"No name: {answer.action}"
    )


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str:
    """One question; the answer only counts with the sealed state it was asked under."""
    answer = await elicit.form(ctx, "Please confirm", Confirmation, key="confirm")
    # Reaching here on a retry means the SDK boundary verified the sealed requestState.
    verdict = "state-ok" if ctx.request_state is not None else "no-state"
    return f"{verdict}: {answer.action}"


@server.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Like request-state; a tampered requestState never reaches this tool (-32602)."""
    answer = await elicit.form(ctx, "Please confirm", Confirmation, key="confirm")
    return f"state-ok: {answer.action}"


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two questions in a row, one per round."""
    name = await elicit.form(ctx, "Step 1: What is your name?", Name, key="step1")
    color = await elicit.form(ctx, "Step 2: What is your favorite color?", Color, key="step2")
    if isinstance(name, AcceptedElicitation) and isinstance(color, AcceptedElicitation):
        return f"{name.data.name} likes {color.data.color}"
    return "Not answered"


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> str | InputRequiredResult:
    """Asks by form when the client declared it; otherwise asks its model by sampling instead."""
    try:
        answer = await elicit.form(ctx, "What is your name?", Name, key="user_name")
    except ModeNotDeclaredError:
        reply = (ctx.input_responses or {}).get("greeting")
        if isinstance(reply, CreateMessageResult) and isinstance(reply.content, TextContent):
            return f"Sampled: {reply.content.text}"
        question = CreateMessageRequestParams(
            messages=[
                SamplingMessage(role="user", content=TextContent(type="text", text="Generate a greeting"))
            ],
            max_tokens=50,
        )
        return InputRequiredResult(input_requests={"greeting": CreateMessageRequest(params=question)})
    return f"Hello, {answer.data.name}!" if isinstance(answer, AcceptedElicitation) else answer.action


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that asks before it renders (non-tool-request)."""
    answer = await elicit.form(ctx, "What context should the prompt use?", PromptContext, key="user_context")
    context = answer.data.context if isinstance(answer, AcceptedElicitation) else "none"
    return f"Write a summary using this context: {context}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
