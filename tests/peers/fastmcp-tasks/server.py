"""A FastMCP server whose task tool asks for input: the fastmcp-tasks test peer.

Runs in this folder's own venv (scripts/setup; fastmcp-tasks pins a FastMCP other than
elicitkit's), never imports elicitkit. `python server.py PORT` serves streamable HTTP on
127.0.0.1:PORT/mcp, its tasks on docket's in-memory backend.

`approve_payment` always runs as a task and asks with the guard pattern fastmcp-tasks
supports inside a task (return an `InputRequiredResult`, read `ctx.input_responses` on the
re-run): a form for the amount and whether to approve it. `connect_bank` asks for a URL the same way,
then works for a while (a person on a page).
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

mcp = FastMCP("fastmcp-tasks peer")
mcp.add_extension(TasksExtension(url="memory://"))

TASK = TaskConfig(mode="required", poll_interval=timedelta(milliseconds=200))
"""Always a task; polled every 200 ms (its default is 5 s)."""

_SCHEMA = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve"},
        "amount": {"type": "integer", "title": "Amount", "minimum": 1, "maximum": 1000},
    },
    "required": ["approve", "amount"],
}


@mcp.tool(task=TASK)
async def approve_payment(payee: str, ctx: Context) -> str:
    """Ask the person to approve a payment to `payee`, as a task."""
    answer = (ctx.input_responses or {}).get("approval")
    if answer is None:
        ask = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(message=f"Pay {payee}?", requested_schema=_SCHEMA)
        )
        return mcp_types.InputRequiredResult(input_requests={"approval": ask})  # type: ignore[return-value]
    if not isinstance(answer, mcp_types.ElicitResult) or answer.action != "accept":
        action = getattr(answer, "action", "?")
        return f"payment to {payee}: {action}"
    content = answer.content or {}
    verdict = "approved" if content.get("approve") else "refused"
    return f"payment to {payee}: {verdict}, {content.get('amount')}"


@mcp.tool(task=TASK)
async def connect_bank(hold: float, ctx: Context) -> str:
    """Ask the person to open a bank's page (URL mode), then work `hold` seconds, as a task."""
    answer = (ctx.input_responses or {}).get("bank")
    if answer is None:
        ask = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestURLParams(
                mode="url", message="Connect your bank", url="https://bank.example/connect"
            )
        )
        return mcp_types.InputRequiredResult(input_requests={"bank": ask})  # type: ignore[return-value]
    await asyncio.sleep(hold)
    return f"bank: {getattr(answer, 'action', '?')}"


@mcp.tool(task=TASK)
async def slow_echo(text: str) -> str:
    """A task that asks nothing."""
    return text


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
