"""A pydantic-ai agent using the FastMCP example server's tools; the person answers its questions
in elicitkit's terminal UI (forms on the terminal, URL consent before any browser opens).

    python agent_pydantic_ai.py http://127.0.0.1:8000/mcp

The model here is pydantic-ai's `FunctionModel` scripted to book a table, then ask for the
forecast (no network, no API key); put any real model in its place.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from elicitkit.client import ElicitationConfig, TerminalUI, for_fastmcp

PLAN = [("book", {}), ("forecast", {"city": "Oslo"})]


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call the tools in PLAN one after the other, then report what they returned."""
    returned = [p for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)]
    if len(returned) < len(PLAN):
        name, args = PLAN[len(returned)]
        return ModelResponse(parts=[ToolCallPart(name, args)])
    return ModelResponse(parts=[TextPart(" / ".join(str(p.content) for p in returned))])


def build_agent(url: str, config: ElicitationConfig) -> Agent[None, str]:
    """An agent whose MCP toolset answers elicitation with `config`."""
    answers = for_fastmcp(config)
    toolset: MCPToolset[Any] = MCPToolset(answers.client(url), process_tool_call=answers.process_tool_call)
    return Agent(FunctionModel(scripted_model), toolsets=[toolset])


async def main(url: str) -> None:
    config = ElicitationConfig(TerminalUI(), modes=("form", "url"))
    result = await build_agent(url, config).run("Book a table, then tell me the weather in Oslo.")
    print(result.output)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"))
