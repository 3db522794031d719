"""The 2025-11-25 task wire of an elicitkit server, spoken by hand over real HTTP: a tool called
with `task` returns a `CreateTaskResult` at once, its question reaches the requestor on the
`tasks/result` stream tied to the task, and the task ends with the tool's result."""

from __future__ import annotations

import asyncio
from typing import Any

from support.raw_mcp import RawSession, raw_session
from support.task_server import TaskServer

RELATED = "io.modelcontextprotocol/related-task"


async def status_of(session: RawSession, task_id: str) -> dict[str, Any]:
    return (await session.request("tasks/get", {"taskId": task_id}))["result"]


async def until(session: RawSession, task_id: str, status: str, within: float = 10.0) -> dict[str, Any]:
    async with asyncio.timeout(within):
        while True:
            task = await status_of(session, task_id)
            if task["status"] == status:
                return task
            await asyncio.sleep(0.05)


async def test_a_form_question_travels_on_the_result_stream_tied_to_the_task(
    served: tuple[TaskServer, str],
) -> None:
    _, url = served
    async with raw_session(url, "alice") as alice:
        created = await alice.request(
            "tools/call", {"name": "book", "arguments": {"city": "Paris"}, "task": {"ttl": 60000}}
        )
        task = created["result"]["task"]
        assert task["status"] == "working" and task["ttl"] == 60000
        assert {"createdAt", "lastUpdatedAt", "pollInterval"} <= task.keys()
        waiting = await until(alice, task["taskId"], "input_required")
        assert waiting["taskId"] == task["taskId"]
        asked: list[dict[str, Any]] = []

        async def answer(request: dict[str, Any]) -> dict[str, Any]:
            asked.append(request)
            return {"action": "accept", "content": {"day": "Friday"}}

        result = await alice.request("tasks/result", {"taskId": task["taskId"]}, on_request=answer)
        assert [r["method"] for r in asked] == ["elicitation/create"]
        assert asked[0]["params"]["_meta"][RELATED] == {"taskId": task["taskId"]}
        assert asked[0]["params"]["message"] == "Which day do you want to go to Paris?"
        assert result["result"]["content"][0]["text"] == "Booked Paris on Friday"
        assert result["result"]["_meta"][RELATED] == {"taskId": task["taskId"]}
        done = await status_of(alice, task["taskId"])
        assert done["status"] == "completed"
        assert RELATED not in done.get("_meta", {})
