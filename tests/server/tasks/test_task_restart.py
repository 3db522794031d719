"""A task whose URL-mode question is open when its server process is SIGKILLed still completes:
on SQLite the server restarts on the same file; on Redis and on PostgreSQL the question is
answered through another replica, the replica running the task is killed, and the other one
runs it again. The person finishes the page they were given before the kill; nobody is asked
twice, and the task ends `completed` with the tool's result.

The servers are tests/support/task_server.py, each its own process (a lease of 1 s: how long a
silent runner is trusted before another process runs its task again)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.postgres_server import PostgresServer, shared_postgres
from support.raw_mcp import RawSession, raw_session
from support.redis_server import RedisServer, redis_server
from support.server_process import free_port, stop, wait_until_serving
from support.task_server import PAY_KEY, fingerprint, finish_page

from elicitkit.server import KeyRing

__all__ = ["redis_server", "shared_postgres"]

SERVER = Path(__file__).parents[2] / "support" / "task_server.py"
RELATED = "io.modelcontextprotocol/related-task"

pytestmark = pytest.mark.timeout(120)


class Replica:
    """One task server process on `store`; `kill` is SIGKILL, `start` (again) on the same port."""

    def __init__(self, store: str, prefix: str, ring: str, log: Path, port: int, public_url: str) -> None:
        self.store, self.prefix, self.ring, self.log = store, prefix, ring, log
        self.port = port
        self.public_url = public_url
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def mcp(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        env = {**os.environ, "ELICITKIT_VAULT_KEYS": self.ring}
        args = [sys.executable, str(SERVER), "--store", self.store, "--port", str(self.port), "--lease", "1"]
        args += ["--public-url", self.public_url]
        if self.prefix:
            args += ["--prefix", self.prefix]
        self.process = subprocess.Popen(args, env=env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        wait_until_serving(self.process, f"http://127.0.0.1:{self.port}/", self.log)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


@contextlib.contextmanager
def replicas(store: str, tmp_path: Path, count: int, prefix: str = "") -> Iterator[list[Replica]]:
    """`count` replicas on one store, behind one public origin (the last one's, as a balancer would
    send a person's browser to a replica that is up)."""
    ring = KeyRing.generate("k1")
    ports = [free_port() for _ in range(count)]
    public = f"http://127.0.0.1:{ports[-1]}"
    started = [
        Replica(store, prefix, ring, tmp_path / f"replica-{i}.log", port, public)
        for i, port in enumerate(ports)
    ]
    try:
        for replica in started:
            replica.start()
        yield started
    finally:
        for replica in started:
            replica.stop()


async def open_question(asker: RawSession, answerer: RawSession) -> tuple[str, str]:
    """Alice calls `pay` as a task through `asker`; its URL question reaches her through
    `answerer`'s `tasks/result` stream, tied to the task, and she consents to open the link.
    Returns the task id and the link (the page still unfinished)."""
    created = await asker.request("tools/call", {"name": "pay", "arguments": {"amount": 40}, "task": {}})
    task_id = created["result"]["task"]["taskId"]
    link: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def consent(request: dict[str, Any]) -> dict[str, Any]:
        params = request["params"]
        assert request["method"] == "elicitation/create" and params["mode"] == "url"
        assert params["_meta"][RELATED] == {"taskId": task_id}
        link.set_result(params["url"])
        return {"action": "accept"}

    waiting = asyncio.ensure_future(answerer.request("tasks/result", {"taskId": task_id}, on_request=consent))
    url = await asyncio.wait_for(link, 20)
    await asyncio.sleep(0.5)  # the consent reaches the store
    waiting.cancel()
    with contextlib.suppress(BaseException):
        await waiting
    return task_id, url


async def completes(session: RawSession, task_id: str, within: float = 30.0) -> dict[str, Any]:
    """Poll as a requestor does until the task ends; its `tasks/result`."""
    async with asyncio.timeout(within):
        while True:
            task = (await session.request("tasks/get", {"taskId": task_id}))["result"]
            if task["status"] not in ("working", "input_required"):
                break
            await asyncio.sleep(0.2)
    assert task["status"] == "completed", task
    return await session.request("tasks/result", {"taskId": task_id})


def paid(result: dict[str, Any], task_id: str) -> None:
    assert result["result"]["content"][0]["text"] == f"Paid 40 with key {fingerprint(PAY_KEY)}"
    assert result["result"]["_meta"][RELATED] == {"taskId": task_id}


@pytest.mark.parametrize("page_first", [True, False], ids=["page-then-poll", "poll-then-page"])
async def test_sqlite_a_task_survives_sigkill_with_its_url_question_open(
    tmp_path: Path, page_first: bool
) -> None:
    """Killed while alice's page is open; restarted on the same file. Whether the person finishes
    the page before the client polls again (the run again finds the value) or after (the run
    again waits for that same page, its consent replayed), the task completes."""
    with replicas(f"sqlite:///{tmp_path / 'tasks.sqlite3'}", tmp_path, 1) as [server]:
        async with raw_session(server.mcp, "alice") as alice:
            task_id, link = await open_question(alice, alice)
        server.kill()
        server.start()
        async with raw_session(server.mcp, "alice") as alice:
            if page_first:
                assert "Saved." in await finish_page(link, "alice", PAY_KEY)
                result = await completes(alice, task_id)
            else:
                polling = asyncio.ensure_future(completes(alice, task_id))
                await asyncio.sleep(2.5)  # past the lease: the task runs again, waiting for the page
                assert not polling.done()
                assert "Saved." in await finish_page(link, "alice", PAY_KEY)
                result = await polling
        paid(result, task_id)
        log = "".join(r.log.read_text(errors="replace") for r in [server])
        assert PAY_KEY not in log


async def a_form_answered_on_the_other_replica(on_first: RawSession, on_second: RawSession) -> None:
    """The task runs on the first replica; its question is asked and answered through the second,
    and the second's `tasks/result` returns what the first's run made of the answer."""
    created = await on_first.request(
        "tools/call", {"name": "book", "arguments": {"city": "Lima"}, "task": {}}
    )
    task_id = created["result"]["task"]["taskId"]

    async def answer(request: dict[str, Any]) -> dict[str, Any]:
        assert request["params"]["_meta"][RELATED] == {"taskId": task_id}
        return {"action": "accept", "content": {"day": "Tuesday"}}

    result = await on_second.request("tasks/result", {"taskId": task_id}, on_request=answer)
    assert result["result"]["content"][0]["text"] == "Booked Lima on Tuesday"


async def two_replicas_one_killed(store: str, tmp_path: Path, prefix: str) -> None:
    """A form question of a task on replica 0 is answered through replica 1. Then a URL question
    of a task on replica 0 is consented to through replica 1, and replica 0 is killed with the page
    open; the person finishes the page on replica 1, which runs the task again
    and completes it. Bob, on either replica, never sees it."""
    with replicas(store, tmp_path, 2, prefix) as [first, second]:
        async with raw_session(first.mcp, "alice") as on_first, raw_session(second.mcp, "alice") as on_second:
            await a_form_answered_on_the_other_replica(on_first, on_second)
            task_id, link = await open_question(on_first, on_second)
            first.kill()
            async with raw_session(second.mcp, "bob") as bob:
                refused = await bob.request("tasks/get", {"taskId": task_id})
                assert refused["error"]["code"] == -32602
            polling = asyncio.ensure_future(completes(on_second, task_id))
            await asyncio.sleep(2.5)
            assert link.startswith(second.public_url)  # the one origin, which the balancer sends here
            assert "Saved." in await finish_page(link, "alice", PAY_KEY)
            paid(await polling, task_id)


async def test_redis_two_replicas_a_killed_replicas_task_completes_on_the_other(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    await two_replicas_one_killed(redis_server.url, tmp_path, f"t{secrets.token_hex(4)}:")


async def test_postgres_two_replicas_a_killed_replicas_task_completes_on_the_other(
    shared_postgres: PostgresServer, tmp_path: Path
) -> None:
    await two_replicas_one_killed(shared_postgres.url, tmp_path, f"t{secrets.token_hex(4)}_")
