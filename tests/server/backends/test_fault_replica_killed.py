"""A replica killed mid-flow: two MCP server processes on one real Redis, URL-mode flows on both,
one replica SIGKILLed while flows are in flight. The other replica completes every flow: those
it was serving without a single error, and those whose replica died once their callers call
again there (as a load balancer sends them). Nothing acknowledged is lost: a value the person
gave while its replica was dying is found, not asked for again.

Run as a script, this file is one replica: `python test_fault_replica_killed.py URL PREFIX PORT`
(the key ring from ELICITKIT_VAULT_KEYS).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

HERE = Path(__file__).resolve().parent
FLOWS = 100
CLIENTS_PER_REPLICA = 2
_WHO: ContextVar[str] = ContextVar("who")


def replica(url: str, prefix: str, port: int) -> None:
    import uvicorn

    from elicitkit.server import Elicitation
    from elicitkit.server._backends import open_bus, open_store
    from elicitkit.server._url_mode import UrlMode
    from elicitkit.server._user import Caller, McpUsers, User

    class PerFlow(McpUsers):
        def caller(self) -> Caller:
            return Caller(user=User("https://as.example", _WHO.get()), client_id="client")

    store = open_store(url, prefix=prefix, timeout=3.0)
    url_mode = UrlMode(
        public_url=f"http://127.0.0.1:{port}",
        store=store,
        bus=open_bus(url, store=store),
        users=PerFlow(local_user=User("https://as.example", "nobody")),
        wait="live",
    )
    server: MCPServer[Any] = MCPServer("faults")
    key = Elicitation(server, url_mode=url_mode).secret("key", title="Key", message="Your API key.")

    @server.tool()
    async def ask(n: int, ctx: Context) -> str:  # type: ignore[type-arg]
        _WHO.set(f"user-{n}")
        return await key.get(ctx)

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    replica(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    sys.exit(0)

import httpx2  # noqa: E402
import pytest  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_types import ElicitRequestURLParams, ElicitResult  # noqa: E402
from support.redis_server import RedisServer  # noqa: E402
from support.server_process import free_port, stop, wait_until_serving  # noqa: E402

from elicitkit.server._backends import open_bus, open_store  # noqa: E402
from elicitkit.server._errors import StoreUnavailableError  # noqa: E402
from elicitkit.server._url_mode import UrlMode  # noqa: E402
from elicitkit.server._user import McpUsers, User  # noqa: E402
from elicitkit.server._vault import KeyRing  # noqa: E402

pytestmark = pytest.mark.timeout(150)


def value_of(user: User) -> str:
    return f"secret-of-{user.subject}"


async def test_a_replica_killed_mid_flow_the_other_completes_every_flow(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    ring = KeyRing.generate("k1")
    prefix = f"t{secrets.token_hex(4)}:"
    env = {**os.environ, "ELICITKIT_VAULT_KEYS": ring, "PYTHONPATH": str(HERE.parents[1])}
    ports = [free_port(), free_port()]
    logs = [tmp_path / f"replica-{i}.log" for i in range(2)]
    processes = [
        subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), redis_server.url, prefix, str(port)],
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        for port, log in zip(ports, logs, strict=True)
    ]
    # the browser's side: the page's completion, through its own UrlMode on the same Redis
    store = open_store(redis_server.url, prefix=prefix, timeout=3.0)
    bus = open_bus(redis_server.url, store=store)
    pages = UrlMode(
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(ring),
        store=store,
        bus=bus,
        users=McpUsers.single_user_local(),
    )
    completed: Counter[str] = Counter()
    results: dict[int, list[str]] = {}
    errors_by_replica: Counter[int] = Counter()
    moved = 0
    tasks: set[asyncio.Task[None]] = set()

    async def browser(elicitation_id: str) -> None:
        await asyncio.sleep(0.5)  # a person reading the page
        while True:
            try:
                record = await store.get(elicitation_id)
                assert record is not None
                outcome = await pages.site.complete(
                    elicitation_id, record.user, lambda r: pages.vault.put(r.user, "key", value_of(r.user))
                )
                if outcome != "busy":
                    completed[elicitation_id] += outcome == "completed"
                    return
            except StoreUnavailableError:
                pass
            await asyncio.sleep(0.2)

    async def open_link(context: object, params: Any) -> ElicitResult:
        assert isinstance(params, ElicitRequestURLParams) and params.elicitation_id
        task = asyncio.create_task(browser(params.elicitation_id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return ElicitResult(action="accept")

    def client_of(port: int, http: httpx2.AsyncClient) -> Client:
        return Client(
            streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http),
            mode="legacy",
            elicitation_callback=open_link,
            cache=None,
        )

    async def flow(n: int, sessions: list[list[Client]]) -> None:
        nonlocal moved
        await asyncio.sleep(n * 0.02)
        at = n % 2
        while True:
            try:
                result = await sessions[at][n % CLIENTS_PER_REPLICA].call_tool("ask", {"n": n})
            except Exception:  # its replica died under the call
                errors_by_replica[at] += 1
                if at == 0:
                    at, moved = 1, moved + 1  # the load balancer sends the caller to the live one
                await asyncio.sleep(0.2)
                continue
            if not result.is_error:
                results.setdefault(n, []).append(result.content[0].text)  # type: ignore[union-attr]
                return
            errors_by_replica[at] += 1
            await asyncio.sleep(0.2)

    https: list[httpx2.AsyncClient] = []
    clients: list[Client] = []
    holders: list[asyncio.Task[None]] = []
    leave = asyncio.Event()

    async def hold(client: Client, entered: asyncio.Event) -> None:
        async with client:
            entered.set()
            await leave.wait()

    try:
        for port, process, log in zip(ports, processes, logs, strict=True):
            await asyncio.to_thread(wait_until_serving, process, f"http://127.0.0.1:{port}/mcp", log, 60)  # type: ignore[arg-type]
        await bus.wait_connected()  # type: ignore[attr-defined]
        sessions: list[list[Client]] = []
        for port in ports:
            row = []
            for _ in range(CLIENTS_PER_REPLICA):
                http = httpx2.AsyncClient(timeout=httpx2.Timeout(10, read=15))
                https.append(http)
                client = client_of(port, http)
                entered = asyncio.Event()
                # Each client is held open by a task of its own: when its replica dies, the
                # client's task group cancels that task, not the test's.
                holders.append(asyncio.create_task(hold(client, entered)))
                await asyncio.wait_for(entered.wait(), 30)
                clients.append(client)
                row.append(client)
            sessions.append(row)
        running = [asyncio.create_task(flow(n, sessions)) for n in range(FLOWS)]
        started = time.monotonic()
        while len(results) < 20 and time.monotonic() - started < 60:
            await asyncio.sleep(0.02)
        before = len(results)
        processes[0].send_signal(signal.SIGKILL)
        processes[0].wait(10)
        await asyncio.wait_for(asyncio.gather(*running), 90)
        print(f"\nreplica killed: {before} done before, {moved} moved, errors {dict(errors_by_replica)}")

        assert 0 < before < FLOWS, before
        assert moved > 0  # some calls really were in flight on the killed replica
        assert errors_by_replica[1] == 0, errors_by_replica  # the live replica never failed a call
        assert results == {n: [value_of(User("https://as.example", f"user-{n}"))] for n in range(FLOWS)}
        assert max(completed.values()) == 1  # no record completed twice
    finally:
        for task in list(tasks):
            task.cancel()
        leave.set()
        for holder in holders:  # a client of the killed replica ends with its connection's error
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(holder, 15)
        for http in https:
            await http.aclose()
        await bus.close()  # type: ignore[attr-defined]
        await store.close()
        for process in processes:
            stop(process)  # type: ignore[arg-type]
