"""A tiny MCP server over stdio that asks as a task and returns before the answer (T-12).

`ask_later` sends a task-augmented `elicitation/create` and returns the task's id at once;
`answer` reads the task's `tasks/result`: the question outlives the call that asked it.

python tests/cli/task_asker_stdio_server.py
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer

from elicitkit._sdk import connection_of

server = MCPServer("task-asker")
asked: list[str] = []


@server.tool()
async def ask_later(ctx: Context) -> str:
    """Ask for a name as a task; return at once."""
    connection = connection_of(ctx.session)
    assert connection is not None
    question = {
        "mode": "form",
        "message": "Who will pick it up?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
        "task": {"ttl": 600_000},
    }
    created = await connection.send_raw_request("elicitation/create", question)
    asked.append(created["task"]["taskId"])
    return f"asked, task {created['task']['taskId']}"


@server.tool()
async def answer(ctx: Context) -> str:
    """The last task's result."""
    connection = connection_of(ctx.session)
    assert connection is not None
    return json.dumps(await connection.send_raw_request("tasks/result", {"taskId": asked[-1]}))


if __name__ == "__main__":
    server.run("stdio")
