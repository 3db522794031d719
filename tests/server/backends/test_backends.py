"""`open_store` / `open_bus`: the URL picks the backend; AUTH and TLS reach a real Redis; a bad
URL is one sentence that says what to write instead (and never shows the password)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import SSLConnection
from support.redis_server import RedisServer, TLSFiles

from elicitkit.server.backends import open_bus, open_store, redis_client
from elicitkit.server.bus import LocalBus
from elicitkit.server.bus._redis import RedisBus
from elicitkit.server.errors import BackendURLError, StoreUnavailableError
from elicitkit.server.store import ACTIVE, MemoryStore, Record
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore
from elicitkit.server.user import User

pytestmark = pytest.mark.timeout(60)


async def test_sqlite_and_memory_urls(tmp_path: Path) -> None:
    store = open_store(f"sqlite://{tmp_path}/app/elicitkit.sqlite3")
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "app" / "elicitkit.sqlite3"
    assert isinstance(open_store("memory://"), MemoryStore)
    assert isinstance(open_bus(f"sqlite://{tmp_path}/x.sqlite3"), LocalBus)
    assert isinstance(open_bus("memory://"), LocalBus)


async def test_redis_urls_build_redis_backends() -> None:
    store = open_store("redis://127.0.0.1:6390/3", prefix="app1:")
    bus = open_bus("redis://127.0.0.1:6390/3", store=store, channel="app1:completed")
    assert isinstance(store, RedisStore) and isinstance(bus, RedisBus)
    kwargs = store.client.connection_pool.connection_kwargs
    assert (kwargs["host"], kwargs["port"], kwargs["db"]) == ("127.0.0.1", 6390, 3)
    assert kwargs["health_check_interval"] > 0 and kwargs["retry"] is not None
    assert store.prefix == "app1:" and bus.channel == "app1:completed" and bus.store is store
    await store.close()
    await bus.close()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgres://db/x", "has no scheme elicitkit knows"),
        ("/var/lib/x.sqlite3", "has no scheme elicitkit knows"),
        ("sqlite://relative/x.sqlite3", "three slashes"),
        ("redis:///0", "has no host"),
        ("redis://host:99999/0", "not a number from 0 to 65535"),
        ("redis://host:6379/zero", "a Redis database is a number"),
    ],
)
def test_bad_urls_are_one_sentence(url: str, says: str) -> None:
    with pytest.raises(BackendURLError) as raised:
        open_store(url)
    message = str(raised.value)
    assert says in message and message.endswith(".")
    assert isinstance(raised.value, ValueError)


def test_the_password_never_appears_in_an_error() -> None:
    with pytest.raises(BackendURLError) as raised:
        open_store("redis://user:hunter2@host:6379/zero")
    assert "hunter2" not in str(raised.value) and "user:***@host" in str(raised.value)


def test_redis_options_on_other_backends_and_tls_options_on_plain_tcp_are_refused() -> None:
    with pytest.raises(BackendURLError, match="apply to Redis only"):
        open_store("memory://", password="x")
    with pytest.raises(BackendURLError, match="use a rediss:// URL for TLS"):
        open_store("redis://127.0.0.1:6379/0", ssl_ca_certs="/ca.pem")


async def test_auth_from_the_url_or_password_option(tmp_path: Path) -> None:
    record = Record.new(User("https://as.example", "alice"), "c", "f", "m", ttl=60)
    with RedisServer(tmp_path / "redis", password="s3cret-pw") as server:
        in_url = open_store(server.url)
        as_option = open_store(f"redis://127.0.0.1:{server.port}/0", password="s3cret-pw")
        wrong = open_store(f"redis://:nope@127.0.0.1:{server.port}/0")
        missing = open_store(f"redis://127.0.0.1:{server.port}/0")
        try:
            await in_url.create(record)
            assert await as_option.get(record.id) == record
            for refused in (wrong, missing):
                with pytest.raises(StoreUnavailableError) as raised:
                    await refused.get(record.id)
                assert "nope" not in str(raised.value)
        finally:
            for store in (in_url, as_option, wrong, missing):
                await store.close()


async def test_tls_with_client_certificates(tmp_path: Path) -> None:
    files = TLSFiles(tmp_path / "tls")
    record = Record.new(User("https://as.example", "alice"), "c", "f", "m", ttl=60)
    with RedisServer(tmp_path / "redis", tls=files) as server:
        assert server.url.startswith("rediss://")
        store = open_store(server.url, **files.client_options())
        bus = open_bus(server.url, **files.client_options())
        untrusted = open_store(server.url)  # the system CAs do not know our throwaway CA
        try:
            assert isinstance(store, RedisStore)
            assert store.client.connection_pool.connection_class is SSLConnection
            await store.create(record)
            assert await store.get(record.id) == record
            assert isinstance(bus, RedisBus)
            await bus.wait_connected()
            with pytest.raises(StoreUnavailableError):
                await untrusted.get(record.id)
        finally:
            await store.close()
            await bus.close()  # type: ignore[attr-defined]
            await untrusted.close()


def test_redis_client_rejects_non_redis_urls() -> None:
    with pytest.raises(BackendURLError, match="is not a Redis URL"):
        redis_client("sqlite:///x")


ACL_RULES = [
    *("on", ">elicitkit-pw", "resetkeys", "~elicitkit:*", "resetchannels", "&elicitkit:*", "-@all"),
    *("+hgetall", "+set", "+get", "+del", "+getdel", "+evalsha", "+eval", "+script|load"),
    *("+publish", "+subscribe", "+unsubscribe", "+ping"),
    *("+exists", "+hget", "+hset", "+zadd", "+zrem", "+zrangebyscore", "+pexpire", "+pexpireat"),
]
"""The least a Redis ACL user needs for elicitkit, inside its scripts too (docs/deployment-redis.md)."""


async def test_a_least_privilege_acl_user_is_enough(tmp_path: Path) -> None:
    import asyncio

    from redis.exceptions import NoPermissionError

    from elicitkit.server.store import ACTIVE

    with RedisServer(tmp_path / "redis", password="admin-pw") as server:
        admin = redis_client(server.url)
        await admin.execute_command("ACL", "SETUSER", "elicitkit", *ACL_RULES)  # type: ignore[no-untyped-call]
        url = f"redis://elicitkit:elicitkit-pw@127.0.0.1:{server.port}/0"
        store, bus = open_store(url), open_bus(url)
        heard = asyncio.Event()

        async def listener(eid: str) -> None:
            heard.set()

        try:
            alice = User("https://as.example", "alice")
            overdue = Record.new(alice, "c", "f", "m", ttl=0.01)
            record = Record.new(alice, "c", "f", "m", ttl=60)
            await store.create(overdue)
            await store.create(record)
            assert await store.count_active(alice) >= 1  # the per-user cap's count (overdue may be out)
            assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
            await asyncio.sleep(0.05)
            assert await store.count_active(alice) == 0
            assert await store.sweep(now=None) == 1
            await store.put_blob("b", b"1")
            assert await store.get_blob("b") == b"1"
            await store.delete_blob("b")
            await store.put_once("o", b"1", ttl=60)
            assert await store.take_once("o") == b"1"
            bus.subscribe(record.id, listener)
            assert isinstance(bus, RedisBus)
            await bus.wait_connected()
            await bus.publish(record.id)
            await asyncio.wait_for(heard.wait(), 10)
            assert isinstance(store, RedisStore)
            with pytest.raises(NoPermissionError):  # and nothing beyond its own keys
                await store.client.get("other-app:secret")
        finally:
            await store.close()
            await bus.close()  # type: ignore[attr-defined]
            await admin.aclose()


def test_a_missing_redis_server_fails_with_what_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from support import redis_server

    monkeypatch.setattr(redis_server, "REDIS_SERVER", "/nonexistent/redis-server")
    with pytest.raises(RuntimeError, match="run scripts/setup"):
        RedisServer()


async def _heard_on(client: Redis, channel: str, act: Callable[[], Awaitable[object]]) -> list[str]:
    """What `channel` carried while `act` ran (and a moment after)."""
    pubsub = client.pubsub()
    await pubsub.subscribe(channel)
    await pubsub.get_message(timeout=5.0)  # the subscribe confirmation
    await act()
    heard: list[str] = []
    while (message := await pubsub.get_message(timeout=0.3)) is not None:
        if message["type"] == "message":
            heard.append(message["data"].decode())
    await pubsub.aclose()  # type: ignore[no-untyped-call]
    return heard


async def test_a_final_transition_announces_itself_in_the_same_script(redis_server: RedisServer) -> None:
    """The claim and its announcement are one Redis script: a replica that dies right after
    claiming (before any bus call) cannot strand the waiting session. Only final states are
    announced, once, on `<prefix>completed`; `announce=False` announces nothing."""
    store = open_store(redis_server.url, prefix="app1:")
    listener = redis_client(redis_server.url)
    alice = User("https://as.example", "alice")
    assert isinstance(store, RedisStore) and store.completions_channel == "app1:completed"
    try:
        record, declined = (Record.new(alice, "c", "f", "m", ttl=60) for _ in range(2))
        for each in (record, declined):
            await store.create(each)

        async def claim() -> None:
            await store.transition(record.id, from_states={"pending"}, to="opened", user=alice)
            await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
            await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)  # lost race
            await store.transition(declined.id, from_states=ACTIVE, to="declined")

        assert await _heard_on(listener, "app1:completed", claim) == [record.id, declined.id]

        quiet = RedisStore(redis_client(redis_server.url), prefix="app1:", announce=False)
        other = Record.new(alice, "c", "f", "m", ttl=60)
        await quiet.create(other)
        finish = quiet.transition(other.id, from_states=ACTIVE, to="completed")
        assert await _heard_on(listener, "app1:completed", lambda: finish) == []
        await quiet.close()
    finally:
        await store.close()
        await listener.aclose()


async def test_a_bus_leaves_publishing_to_a_store_that_announces(redis_server: RedisServer) -> None:
    """Each completion crosses Redis once: a bus given an announcing store on the same server
    (and so on its channel) publishes nothing more; otherwise it publishes itself."""
    listener = redis_client(redis_server.url)
    store = open_store(redis_server.url)
    elsewhere = RedisStore(redis_client("redis://127.0.0.1:1/0"))  # another server: never contacted
    silent = RedisStore(redis_client(redis_server.url), announce=False)
    buses = {
        "announcing store": open_bus(redis_server.url, store=store),
        "no store": open_bus(redis_server.url),
        "store on another server": RedisBus(redis_client(redis_server.url), store=elsewhere),
        "store that does not announce": open_bus(redis_server.url, store=silent),
    }
    try:
        heard = {
            name: await _heard_on(listener, "elicitkit:completed", lambda bus=bus: bus.publish("x"))  # type: ignore[misc]
            for name, bus in buses.items()
        }
        assert heard == {
            "announcing store": [],
            "no store": ["x"],
            "store on another server": ["x"],
            "store that does not announce": ["x"],
        }
    finally:
        for closing in (*buses.values(), store, elsewhere, silent):
            await closing.close()  # type: ignore[attr-defined]
        await listener.aclose()
