"""The task rules an elicitkit server keeps as a receiver of 2025-11-25 task-augmented tool
calls (T-01..T-09), checked on the wire by hand over real HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from support.raw_mcp import RawSession, raw_session
from support.task_server import TaskServer, serving

RELATED = "io.modelcontextprotocol/related-task"


async def call_as_task(session: RawSession, name: str, arguments: dict[str, Any], **task: Any) -> str:
    created = await session.request("tools/call", {"name": name, "arguments": arguments, "task": task})
    assert "result" in created, created
    return str(created["result"]["task"]["taskId"])


async def until(session: RawSession, task_id: str, status: str, within: float = 10.0) -> dict[str, Any]:
    async with asyncio.timeout(within):
        while True:
            task = (await session.request("tasks/get", {"taskId": task_id}))["result"]
            if task["status"] == status:
                return dict(task)
            await asyncio.sleep(0.05)


async def test_the_capability_and_each_tools_task_support_are_declared(
    served: tuple[TaskServer, str],
) -> None:
    _, url = served
    async with raw_session(url, "alice") as alice:
        assert alice.initialize_result["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        tools = {t["name"]: t for t in (await alice.request("tools/list"))["result"]["tools"]}
    assert tools["book"]["execution"] == {"taskSupport": "optional"}
    assert tools["pay"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in tools["plain"]


async def test_a_client_of_an_older_revision_gets_no_tasks_and_its_call_runs_normally(
    served: tuple[TaskServer, str],
) -> None:
    """T-02: no capability declared on 2025-06-18, so `task` is ignored and the call is a call."""
    _, url = served
    async with raw_session(url, "alice", version="2025-06-18") as alice:
        assert "tasks" not in alice.initialize_result["capabilities"]
        tools = (await alice.request("tools/list"))["result"]["tools"]
        assert all("execution" not in t for t in tools)
        called = await alice.request("tools/call", {"name": "wait", "arguments": {"seconds": 0}, "task": {}})
    assert called["result"]["content"][0]["text"] == "Waited 0.0 s"
    assert "task" not in called["result"]


async def test_task_support_required_and_forbidden_are_refused_with_method_not_found(
    served: tuple[TaskServer, str],
) -> None:
    _, url = served
    async with raw_session(url, "alice") as alice:
        required = await alice.request("tools/call", {"name": "pay", "arguments": {"amount": 5}})
        forbidden = await alice.request("tools/call", {"name": "plain", "arguments": {}, "task": {}})
        optional = await alice.request("tools/call", {"name": "wait", "arguments": {"seconds": 0}})
    assert required["error"]["code"] == -32601
    assert "only as a task" in required["error"]["message"]
    assert forbidden["error"]["code"] == -32601
    assert optional["result"]["content"][0]["text"] == "Waited 0.0 s"


async def test_another_users_task_ids_are_refused_as_unknown_ones(served: tuple[TaskServer, str]) -> None:
    """T-03/T-05: bob gets -32602 for alice's task on every method, the same answer as for an id
    nobody made, and his list does not show it; alice's task is untouched."""
    _, url = served
    async with raw_session(url, "alice") as alice, raw_session(url, "bob") as bob:
        task_id = await call_as_task(alice, "wait", {"seconds": 30})
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            foreign = await bob.request(method, {"taskId": task_id})
            unknown = await bob.request(method, {"taskId": "no-such-task-id"})
            assert foreign["error"]["code"] == unknown["error"]["code"] == -32602, (method, foreign)
            assert foreign["error"]["message"] == unknown["error"]["message"]
        assert (await bob.request("tasks/list"))["result"]["tasks"] == []
        mine = (await alice.request("tasks/list"))["result"]["tasks"]
        assert [t["taskId"] for t in mine] == [task_id]
        assert mine[0]["status"] == "working"
        bad_cursor = await alice.request("tasks/list", {"cursor": "not-a-cursor"})
        assert bad_cursor["error"]["code"] == -32602


async def test_statuses_move_only_along_the_spec_paths_and_a_terminal_one_stays(
    served: tuple[TaskServer, str],
) -> None:
    """T-06: working -> input_required -> working -> completed, seen by polling; a cancelled task
    stays cancelled and a second cancel is -32602; a tool that raises ends `failed`."""
    _, url = served
    async with raw_session(url, "alice") as alice:
        book = await call_as_task(alice, "book", {"city": "Oslo"})
        seen = [(await alice.request("tasks/get", {"taskId": book}))["result"]["status"]]
        await until(alice, book, "input_required")
        seen.append("input_required")

        async def answer(request: dict[str, Any]) -> dict[str, Any]:
            return {"action": "accept", "content": {"day": "Monday"}}

        result = await alice.request("tasks/result", {"taskId": book}, on_request=answer)
        assert result["result"]["content"][0]["text"] == "Booked Oslo on Monday"
        seen.append((await alice.request("tasks/get", {"taskId": book}))["result"]["status"])
        assert seen[0] in ("working", "input_required") and seen[1:] == ["input_required", "completed"]
        again = await alice.request("tasks/cancel", {"taskId": book})
        assert again["error"]["code"] == -32602 and "completed" in again["error"]["message"]

        slow = await call_as_task(alice, "wait", {"seconds": 30})
        cancelled = await alice.request("tasks/cancel", {"taskId": slow})
        assert cancelled["result"]["status"] == "cancelled"
        assert (await alice.request("tasks/get", {"taskId": slow}))["result"]["status"] == "cancelled"
        twice = await alice.request("tasks/cancel", {"taskId": slow})
        assert twice["error"]["code"] == -32602
        ended = await alice.request("tasks/result", {"taskId": slow})
        assert "error" in ended

        failing = await call_as_task(alice, "fail", {})
        failed = await until(alice, failing, "failed")
        assert failed["statusMessage"]
        outcome = await alice.request("tasks/result", {"taskId": failing})
        assert outcome["result"]["isError"] is True
        assert outcome["result"]["_meta"][RELATED] == {"taskId": failing}


async def test_the_ttl_ends_the_task_cancels_its_run_and_frees_its_place() -> None:
    """T-07: one place per user; a task given 1 s holds it, then its TTL ends it: its run stops
    (the tool never reaches its end), its id is unknown, and the place is free again."""
    async with serving(max_per_user=1) as (server, url), raw_session(url, "alice") as alice:
        first = await call_as_task(alice, "wait", {"seconds": 2}, ttl=1000)
        task = (await alice.request("tasks/get", {"taskId": first}))["result"]
        assert task["ttl"] == 1000
        refused = await alice.request("tools/call", {"name": "wait", "arguments": {"seconds": 0}, "task": {}})
        assert refused["error"]["code"] == -32600, refused
        await asyncio.sleep(1.2)
        gone = await alice.request("tasks/get", {"taskId": first})
        assert gone["error"]["code"] == -32602
        second = await call_as_task(alice, "wait", {"seconds": 0})
        assert (await until(alice, second, "completed"))["status"] == "completed"
        await asyncio.sleep(1.2)  # past the end the first run would have reached
    assert server.finished == ["waited 0.0"]


async def test_a_requested_ttl_is_bounded_by_the_servers_most() -> None:
    async with serving() as (server, url), raw_session(url, "alice") as alice:
        task_id = await call_as_task(alice, "wait", {"seconds": 0}, ttl=10**12)
        task = (await alice.request("tasks/get", {"taskId": task_id}))["result"]
    assert task["ttl"] == round(server.tasks.max_ttl * 1000)


async def test_the_background_sweep_ends_a_task_nobody_reads_once_its_ttl_is_over() -> None:
    """T-07: no request reads the task; the server's own sweep cancels its run when its TTL ends."""
    async with serving(sweep_every=0.2) as (server, url), raw_session(url, "alice") as alice:
        task_id = await call_as_task(alice, "wait", {"seconds": 1.5}, ttl=500)
        await asyncio.sleep(2.2)
        assert server.finished == []
        gone = await alice.request("tasks/get", {"taskId": task_id})
        assert gone["error"]["code"] == -32602
        assert (await alice.request("tasks/list"))["result"]["tasks"] == []
