"""FastMCP's client with fastmcp-tasks' client half: calls one tool, answering every question with
one given answer. `python client.py URL TOKEN TOOL ARGUMENTS_JSON ANSWER_JSON`; prints the tool's
text as JSON on stdout, or exits 1 with the error on stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import fastmcp_tasks  # noqa: F401  (registers the tasks extension on every Client)
from fastmcp import Client


async def main(url: str, token: str, tool: str, arguments: dict[str, Any], answer: dict[str, Any]) -> None:
    async def handler(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        print(f"asked: {message}", file=sys.stderr)
        return answer

    async with Client(url, auth=token, elicitation_handler=handler) as client:
        result = await client.call_tool(tool, arguments)
    print(json.dumps(result.content[0].text))


if __name__ == "__main__":
    url, token, tool, arguments, answer = sys.argv[1:6]
    try:
        asyncio.run(main(url, token, tool, json.loads(arguments), json.loads(answer)))
    except Exception as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
