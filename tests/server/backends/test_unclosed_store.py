"""A store nobody closes: the program's event loop is closed and gone, the store is dropped or
left to the exit, and the process goes on or ends. It must say so the way an unclosed file does
(a `ResourceWarning`, silent unless warnings are shown), never with a thread's traceback, and
every write it acknowledged must still be there."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer

from elicitkit.server._backends import open_store

pytestmark = pytest.mark.timeout(120)

# The program: its own event loop, closed when it is done with it; the store, opened from a URL
# and used once, is never closed; then the rest of the program runs (here: half a second).
DROPPED = """
import asyncio, sys, time
from elicitkit.server._backends import open_store

def serve() -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    store = open_store(sys.argv[1])
    loop.run_until_complete(store.put_blob(sys.argv[2], b"kept"))
    loop.close()

serve()  # the store is dropped here, unclosed, its loop closed
time.sleep(0.5)
"""

# The commonest shape: the store a module-level name, the loop `asyncio.run`'s, the exit right after.
AT_EXIT = """
import asyncio, sys
from elicitkit.server._backends import open_store

store = open_store(sys.argv[1])
asyncio.run(store.put_blob(sys.argv[2], b"kept"))
"""


def run(program: str, url: str, key: str, *warnings: str) -> subprocess.CompletedProcess[str]:
    options = [option for category in warnings for option in ("-W", category)]
    return subprocess.run(
        [sys.executable, *options, "-c", program, url, key],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_quiet(ran: subprocess.CompletedProcess[str]) -> None:
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr and "Exception in thread" not in ran.stderr, ran.stderr


def kept(url: str, key: str) -> bytes | None:
    """What another process finds under `key` (this one, with a store it closes)."""

    async def read() -> bytes | None:
        store = open_store(url)
        try:
            return await store.get_blob(key)
        finally:
            await store.close()

    return asyncio.run(read())


BOTH = pytest.mark.parametrize("program", [DROPPED, AT_EXIT], ids=["dropped", "at-exit"])


@BOTH
def test_an_unclosed_sqlite_store_ends_quietly_and_keeps_its_writes(tmp_path: Path, program: str) -> None:
    url, key = f"sqlite://{tmp_path / 'unclosed.sqlite3'}", secrets.token_hex(8)
    ran = run(program, url, key)
    assert_quiet(ran)
    assert ran.stderr == ""
    assert kept(url, key) == b"kept"


def test_an_unclosed_sqlite_store_warns_like_an_unclosed_file(tmp_path: Path) -> None:
    path, key = tmp_path / "warned.sqlite3", secrets.token_hex(8)
    ran = run(DROPPED, f"sqlite://{path}", key, "default::ResourceWarning")
    assert_quiet(ran)
    assert "ResourceWarning" in ran.stderr and str(path) in ran.stderr and "close()" in ran.stderr
    assert kept(f"sqlite://{path}", key) == b"kept"


@BOTH
def test_an_unclosed_redis_store_ends_quietly(redis_server: RedisServer, program: str) -> None:
    key = secrets.token_hex(8)
    assert_quiet(run(program, redis_server.url, key, "default::ResourceWarning"))
    assert kept(redis_server.url, key) == b"kept"


@BOTH
def test_an_unclosed_postgres_store_ends_quietly(shared_postgres: PostgresServer, program: str) -> None:
    key = secrets.token_hex(8)
    assert_quiet(run(program, shared_postgres.url, key, "default::ResourceWarning"))
    assert kept(shared_postgres.url, key) == b"kept"
