"""docs/deployment-redis.md, run as written: the data nodes' redis.conf (ACL users, replication
login, persistence) and the Sentinels' sentinel.conf start a real primary, replica and three
Sentinels, and a flow runs through them as the documented `elicitkit` user; a private CA in a
`rediss://` URL is enough for the store and the bus."""

from __future__ import annotations

import asyncio
import re
import secrets
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from support.redis_server import REDIS_SERVER, RedisServer, TLSFiles
from support.redis_topology import REDIS_CLI
from support.server_process import free_port

from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, Record

pytestmark = pytest.mark.timeout(120)

DOC = Path(__file__).parents[3] / "docs" / "deployment-redis.md"
SECRETS = {
    "ADMIN_PW": "admin-pw",
    "REPLICA_PW": "replica-pw",
    "SENTINEL_PW": "sentinel-pw",
    ">PW": ">elicitkit-pw",
}


def block(starting: str) -> list[str]:
    """The lines of the fenced block whose first line starts with `starting` (comments dropped)."""
    blocks: list[list[str]] = []
    inside = False
    for line in DOC.read_text().splitlines():
        if line.strip().startswith("```"):
            inside = not inside
            if inside:
                blocks.append([])
        elif inside:
            blocks[-1].append(line.strip())
    for lines in blocks:
        if lines and lines[0].startswith(starting):
            return [line for line in lines if line and not line.startswith("#")]
    raise AssertionError(f"docs/deployment-redis.md has no block starting {starting!r}")


def filled(line: str, primary: int) -> str:
    for placeholder, value in SECRETS.items():
        line = line.replace(placeholder, value)
    return line.replace("PRIMARY_HOST 6379", f"127.0.0.1 {primary}")


def as_args(lines: list[str]) -> list[str]:
    """Config lines as redis-server's command line takes them (`--name value ...`)."""
    args: list[str] = []
    for line in lines:
        name, *values = line.split()
        args += [f"--{name}", *values]
    return args


def ask(port: int, *command: str) -> str:
    done = subprocess.run(
        [REDIS_CLI, "-p", str(port), *command], capture_output=True, text=True, timeout=10, check=False
    )
    return done.stdout


async def test_the_documented_sentinel_setup_starts_and_serves_a_flow(tmp_path: Path) -> None:
    primary_port = free_port()
    node = [filled(line, primary_port) for line in block("# every data node")]
    sentinel_conf = [filled(line, primary_port) for line in block("# sentinel.conf")]
    primary = RedisServer(tmp_path / "a", port=primary_port, args=as_args(node))
    replica = RedisServer(
        tmp_path / "b", args=[*as_args(node), "--replicaof", "127.0.0.1", str(primary_port)]
    )
    sentinels: list[subprocess.Popen[bytes]] = []
    ports = [free_port() for _ in range(3)]
    with primary, replica:
        try:
            for index, port in enumerate(ports):
                conf = tmp_path / f"sentinel-{index}.conf"
                lines = [f"port {port}" if line.startswith("port ") else line for line in sentinel_conf]
                conf.write_text("\n".join([*lines, "bind 127.0.0.1", f"dir {tmp_path}"]) + "\n")
                sentinels.append(
                    subprocess.Popen(
                        [REDIS_SERVER, str(conf), "--sentinel", "--logfile", str(tmp_path / f"s{index}.log")],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            deadline = time.monotonic() + 60
            admin = ("--user", "admin", "--pass", SECRETS["ADMIN_PW"], "--no-auth-warning")
            while True:  # the Sentinels logged in to both nodes (their ACL user works) and met,
                # and the primary counts the replica as good (min-replicas-to-write lets it write)
                replicas = ask(ports[0], "SENTINEL", "REPLICAS", "elicitkit")
                master = ask(ports[0], "SENTINEL", "MASTER", "elicitkit")
                others = ask(ports[0], "SENTINEL", "SENTINELS", "elicitkit").split().count("runid")
                good = "min_slaves_good_slaves:1" in ask(primary_port, *admin, "INFO", "replication")
                if "flags\nslave\n" in replicas and "flags\nmaster\n" in master and others == 2 and good:
                    break
                assert time.monotonic() < deadline, (master, replicas, others, good)
                await asyncio.sleep(0.2)
            hosts = ",".join(f"127.0.0.1:{port}" for port in ports)
            url = f"redis+sentinel://elicitkit:elicitkit-pw@{hosts}/elicitkit/0"
            store = open_store(url, replicas_ack=1)
            bus = open_bus(url, store=store)
            heard = asyncio.Event()
            try:
                alice = User("https://as.example", "alice")
                record = Record.new(alice, "c", "f", "m", ttl=60)
                assert await store.create(record, max_active=20)
                assert await store.increment("url-rounds:x", ttl=60) == 1

                async def listener(elicitation_id: str) -> None:
                    heard.set()

                bus.subscribe(record.id, listener)
                await bus.wait_connected()  # type: ignore[attr-defined]
                assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
                await asyncio.wait_for(heard.wait(), 10)
            finally:
                await bus.close()  # type: ignore[attr-defined]
                await store.close()
        finally:
            for process in sentinels:
                process.kill()
                process.wait(10)


async def test_a_private_ca_in_a_rediss_url_serves_the_store_and_the_bus() -> None:
    with tempfile.TemporaryDirectory() as folder:
        tls = TLSFiles(Path(folder) / "tls")
        with RedisServer(Path(folder) / "r", tls=tls) as server:
            query = f"ssl_ca_certs={tls.ca}&ssl_certfile={tls.client_cert}&ssl_keyfile={tls.client_key}"
            url = f"rediss://127.0.0.1:{server.port}/0?{query}"
            store = open_store(url)
            bus = open_bus(url, store=store)
            heard = asyncio.Event()

            async def listener(elicitation_id: str) -> None:
                heard.set()

            try:
                alice = User("https://as.example", "alice")
                record = Record.new(alice, "c", "f", "m", ttl=60)
                assert await store.create(record)
                bus.subscribe(record.id, listener)
                await bus.wait_connected()  # type: ignore[attr-defined]
                assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
                await asyncio.wait_for(heard.wait(), 10)
            finally:
                await bus.close()  # type: ignore[attr-defined]
                await store.close()


async def test_the_schema_version_and_tables_docs_name_are_what_postgres_holds(shared_postgres: Any) -> None:
    text = (DOC.parent / "deployment.md").read_text()
    documented = re.search(r"schema version \(now (\d+)", text)
    assert documented is not None, "docs/deployment.md names no schema version"
    prefix = f"t{secrets.token_hex(4)}_"
    store = open_store(shared_postgres.url, prefix=prefix)
    try:
        await store.sweep()  # opens the pool: creates and migrates the tables
        pool = await store.pool()  # type: ignore[attr-defined]
        async with pool.acquire() as conn:
            version = await conn.fetchval(f"SELECT max(version) FROM {prefix}schema")
            tables = {
                row[0]
                for row in await conn.fetch(
                    "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", f"{prefix}%"
                )
            }
    finally:
        await store.close()
    assert version == int(documented.group(1))
    named = set(re.findall(r"`elicitkit_(\w+)`", text))
    assert {table.removeprefix(prefix) for table in tables} <= named, (tables, named)
