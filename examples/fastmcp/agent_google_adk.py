"""A google-adk agent using the FastMCP example server's tools; elicitkit answers the server's
questions (forms on the terminal, URL consent before any browser opens).

    pip install 'google-adk[mcp]'
    python agent_google_adk.py http://127.0.0.1:8000/mcp

The model is a scripted `BaseLlm` that books a table, then asks for the forecast (no network,
no API key); put `"gemini-..."` in its place. google-adk cannot share elicitkit's `dev` venv (its
opentelemetry pin excludes FastMCP 4.2): tests/frameworks/test_google_adk.py runs this example
in `.venv-adk`, which scripts/setup makes.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types

from elicitkit.client import ElicitationConfig, TerminalUI, for_sdk_session

PLAN = [("book", {}), ("forecast", {"city": "Oslo"})]


class ScriptedModel(BaseLlm):
    """Calls the tools in PLAN one after the other, then reports what they returned."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        returned = [
            part.function_response.response
            for content in llm_request.contents
            for part in content.parts or ()
            if part.function_response is not None
        ]
        if len(returned) < len(PLAN):
            name, args = PLAN[len(returned)]
            call = types.Part(function_call=types.FunctionCall(name=name, args=args))
            yield LlmResponse(content=types.Content(role="model", parts=[call]))
            return
        text = " / ".join(_text(r) for r in returned)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def _text(response: Any) -> str:
    content = (response or {}).get("content") or [{}]
    return str(content[0].get("text", response))


def build_agent(url: str, config: ElicitationConfig) -> LlmAgent:
    """An agent whose MCP toolset answers elicitation with `config`."""
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=url),
        elicitation_callback=for_sdk_session(config),
    )
    return LlmAgent(name="tables", model=ScriptedModel(), tools=[toolset])


async def run(url: str, config: ElicitationConfig) -> str:
    runner = InMemoryRunner(agent=build_agent(url, config), app_name="tables")
    session = await runner.session_service.create_session(app_name="tables", user_id="person")
    message = types.Content(role="user", parts=[types.Part(text="Book a table, then the weather in Oslo.")])
    final = ""
    async for event in runner.run_async(user_id="person", session_id=session.id, new_message=message):
        if event.content and event.content.parts and event.content.parts[0].text:
            final = event.content.parts[0].text
    await runner.close()
    return final


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    print(asyncio.run(run(url, ElicitationConfig(TerminalUI(), modes=("form", "url")))))
