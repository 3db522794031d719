"""The openai-agents recipe: its MCP client declares no elicitation, so the agent calls a
function tool that makes the MCP call through elicitkit's `ElicitingClient`, which asks the
person (forms on the terminal, URL consent before any browser opens) and returns the result.

    pip install openai-agents
    python agent_openai_agents.py http://127.0.0.1:8000/mcp

The model is a scripted `Model` that calls `book` once (no network, no API key); put a real
model in its place. tests/frameworks/test_openai_agents.py runs this example.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, FunctionTool, Model, ModelResponse, Runner, Usage, function_tool
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from elicitkit.client import ElicitationConfig, TerminalUI


def booking_tool(url: str, config: ElicitationConfig) -> FunctionTool:
    @function_tool
    async def book() -> str:
        """Book a table; the server asks the person which day and for how many."""
        async with config.connect(url) as client:
            result = await client.call_tool("book", {})
        return str(result.content[0].text)  # type: ignore[union-attr]

    return book


class ScriptedModel(Model):
    """Calls `book`, then repeats what it returned."""

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        outputs = [
            i["output"] for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        if not outputs:
            call = ResponseFunctionToolCall(
                type="function_call", name="book", arguments="{}", call_id="c1", id="f1"
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(type="output_text", text=str(outputs[0]), annotations=[])
        message = ResponseOutputMessage(
            type="message", id="m1", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("this scripted model does not stream")


async def run(url: str, config: ElicitationConfig) -> str:
    agent = Agent(name="tables", model=ScriptedModel(), tools=[booking_tool(url, config)])
    result = await Runner.run(agent, "Book a table.")
    return str(result.final_output)


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    print(asyncio.run(run(url, ElicitationConfig(TerminalUI(), modes=("form", "url")))))
