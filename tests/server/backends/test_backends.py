"""`open_store` / `open_bus`: the URL picks the backend; AUTH and TLS reach a real Redis; a bad
URL is one sentence that says what to write instead (and never shows the password)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import SSLConnection
from support.clock import Clock
from support.redis_server import RedisServer, TLSFiles
from support.redis_topology import ClusterNodes, SentinelGroup

from elicitkit.server._backends import open_bus, open_store, redis_client
from elicitkit.server._errors import BackendURLError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.bus import LocalBus
from elicitkit.server.bus._postgres import PostgresBus
from elicitkit.server.bus._redis import RedisBus
from elicitkit.server.store import ACTIVE, MemoryStore, Record
from elicitkit.server.store._postgres import PostgresStore
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore

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


async def test_postgresql_urls_build_postgres_backends() -> None:
    url = "postgresql://app:pw@127.0.0.1:5439/app?sslmode=disable"
    store = open_store(url, prefix="app1:", max_size=4)
    bus = open_bus(url, store=store)
    assert isinstance(store, PostgresStore) and isinstance(bus, PostgresBus)
    assert store.prefix == "app1_" and store.completions_channel == "app1_completed"
    assert bus.channel == "app1_completed" and bus.store is store and bus.dsn == url
    assert isinstance(open_store("postgres://127.0.0.1/app"), PostgresStore)  # libpq's short form too
    with pytest.raises(BackendURLError, match="takes them from the URL"):
        open_bus(url, password="x")
    await bus.close()
    await store.close()


async def test_sentinel_and_cluster_urls_build_their_clients() -> None:
    from redis.asyncio import RedisCluster

    url = "redis+sentinel://app:pw@10.0.0.1:26379,10.0.0.2:26380/primary-a/2?sentinel_password=sp"
    store = open_store(url, replicas_ack=1)
    assert isinstance(store, RedisStore) and not store.cluster and store.replicas_ack == 1
    pool = store.client.connection_pool
    assert pool.service_name == "primary-a"  # type: ignore[attr-defined]
    kwargs = pool.connection_kwargs
    assert (kwargs["username"], kwargs["password"], kwargs["db"]) == ("app", "pw", 2)
    sentinels = pool.sentinel_manager.sentinels  # type: ignore[attr-defined]
    seen = [
        (s.connection_pool.connection_kwargs["host"], s.connection_pool.connection_kwargs["port"])
        for s in sentinels
    ]
    assert seen == [("10.0.0.1", 26379), ("10.0.0.2", 26380)]
    assert all(s.connection_pool.connection_kwargs["password"] == "sp" for s in sentinels)
    assert "primary-a" in store.where() and "pw" not in store.where()
    await store.close()

    tls = open_store("rediss+sentinel://h1:26379/svc", ssl_ca_certs="/ca.pem")
    assert isinstance(tls, RedisStore)
    assert tls.client.connection_pool.connection_class.__name__ == "SentinelManagedSSLConnection"
    await tls.close()

    cluster_url = "rediss+cluster://app:pw@10.0.0.1:7000,10.0.0.2:7001"
    cluster_store = open_store(cluster_url, ssl_ca_certs="/ca.pem")
    bus = open_bus(cluster_url, store=cluster_store, ssl_ca_certs="/ca.pem")
    assert isinstance(cluster_store, RedisStore) and isinstance(cluster_store.client, RedisCluster)
    assert cluster_store.cluster and isinstance(bus, RedisBus) and bus.cluster and len(bus.channels) == 16
    nodes = cluster_store.client.nodes_manager
    assert set(nodes.startup_nodes) == {"10.0.0.1:7000", "10.0.0.2:7001"}
    node_kwargs = nodes.connection_kwargs
    assert (node_kwargs["username"], node_kwargs["password"]) == ("app", "pw")
    assert node_kwargs["connection_class"].__name__ == "SSLConnection"
    await asyncio.wait_for(bus.publish("any"), 1)  # the store's scripts SPUBLISH: the bus sends nothing
    await bus.close()
    await cluster_store.close()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+sentinel://h1:26379", "must name the service"),
        ("redis+sentinel://h1:26379/svc/zero", "must name the service"),
        ("redis+sentinel://h1:26379,h2:x/svc", "which is not host:port"),
        ("redis+sentinel://h1:26379/svc?master=x", "which elicitkit does not know"),
        ("redis+cluster://h1:7000/0", "a Cluster has only database 0"),
        ("redis+cluster://:pw@h1:7000,,h2:7001", "which is not host:port"),
    ],
)
def test_bad_sentinel_and_cluster_urls_are_one_sentence(url: str, says: str) -> None:
    with pytest.raises(BackendURLError) as raised:
        open_store(url)
    assert says in str(raised.value) and str(raised.value).endswith(".")
    assert "pw" not in str(raised.value)
    with pytest.raises(BackendURLError, match="use rediss"):
        open_store("redis+cluster://h1:7000", ssl_ca_certs="/ca.pem")
    with pytest.raises(ValueError, match="not for a Cluster"):
        open_store("redis+cluster://h1:7000", replicas_ack=1)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://db/x", "has no scheme elicitkit knows"),
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
    "+incr",
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
        clock = Clock()
        store, bus = open_store(url, clock=clock), open_bus(url)
        heard = asyncio.Event()

        async def listener(eid: str) -> None:
            heard.set()

        try:
            alice = User("https://as.example", "alice")
            overdue = Record.new(alice, "c", "f", "m", ttl=0.01)
            record = Record.new(alice, "c", "f", "m", ttl=60)
            await store.create(overdue)
            await store.create(record, max_active=5)  # the per-user cap, counted in the create script
            assert await store.increment("rounds", ttl=60) == 1  # the 2026-07-28 rounds' counter
            assert await store.count_active(alice) >= 1  # the per-user cap's count (overdue may be out)
            assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
            clock.advance(0.05)
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


async def test_a_least_privilege_acl_user_with_wait_is_enough_for_replicas_ack(tmp_path: Path) -> None:
    """docs/deployment-redis.md: with `replicas_ack`, the rules above plus `+wait`. Every write
    is its script and WAIT on one connection: no SCRIPT EXISTS (which the user may not run)
    before it, and an emptied script cache on the primary is refilled with SCRIPT LOAD."""
    import asyncio

    with RedisServer(tmp_path / "primary") as primary:
        replica_args = ["--replicaof", "127.0.0.1", str(primary.port)]
        with RedisServer(tmp_path / "replica", args=replica_args) as replica:
            admin = redis_client(primary.url)
            await admin.execute_command("ACL", "SETUSER", "elicitkit", *ACL_RULES, "+wait")  # type: ignore[no-untyped-call]
            await asyncio.to_thread(replica.wait_in_sync, primary)  # copied, linked, counted online
            url = f"redis://elicitkit:elicitkit-pw@127.0.0.1:{primary.port}/0"
            store = open_store(url, replicas_ack=1)
            assert isinstance(store, RedisStore) and store.replicas_ack == 1
            try:
                alice = User("https://as.example", "alice")
                record = Record.new(alice, "c", "f", "m", ttl=60)
                await store.create(record)
                await admin.script_flush()
                opened = await store.transition(record.id, from_states={"pending"}, to="opened", user=alice)
                assert opened is not None and opened.state == "opened"
                assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
                copy = redis_client(replica.url)  # WAIT said the replica has it: it does
                assert await copy.hget(f"{store.prefix}record:{record.id}", "state") == b"completed"
                await copy.aclose()
            finally:
                await store.close()
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


CLUSTER_ACL_RULES = [
    *ACL_RULES,
    *("~{elicitkit:*", "&{elicitkit:*", "+spublish", "+ssubscribe", "+sunsubscribe"),
    *("+cluster|slots", "+command"),
]
"""What a Cluster adds to `ACL_RULES` (docs/deployment-redis.md): the hash-tagged keys and
channels, sharded pub/sub, and reading the slot map."""


async def test_a_least_privilege_acl_user_is_enough_on_a_cluster(redis_cluster: ClusterNodes) -> None:
    import asyncio

    from support.redis_topology import ADMIN_PASSWORD

    for node in redis_cluster.nodes:  # ACLs are per node, not spread by the Cluster
        admin = Redis(host="127.0.0.1", port=node.port, password=ADMIN_PASSWORD)
        await admin.execute_command("ACL", "SETUSER", "limited", *CLUSTER_ACL_RULES)  # type: ignore[no-untyped-call]
        await admin.aclose()
    url = redis_cluster.url.replace("elicitkit:elicitkit-pw@", "limited:elicitkit-pw@")
    clock = Clock()
    store, bus = open_store(url, clock=clock), open_bus(url)
    heard = asyncio.Event()

    async def listener(eid: str) -> None:
        heard.set()

    try:
        alice = User("https://as.example", "alice")
        overdue = Record.new(alice, "c", "f", "m", ttl=0.01)
        record = Record.new(alice, "c", "f", "m", ttl=60)
        await store.create(overdue)
        assert await store.create(record, max_active=5)  # the user's index: its own slot
        assert await store.increment("rounds", ttl=60) == 1
        bus.subscribe(record.id, listener)
        assert isinstance(bus, RedisBus)
        await bus.wait_connected()
        assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=alice)
        assert await store.count_active(alice) == 0
        await asyncio.wait_for(heard.wait(), 10)
        clock.advance(0.05)
        assert await store.sweep() == 1
        await store.put_blob("b", b"v")
        assert await store.get_blob("b") == b"v"
        await store.put_once("s", b"o", ttl=60)
        assert await store.take_once("s") == b"o"
        holder = await store.claim("l", ttl=60)
        assert holder is not None
        await store.release("l", holder)
    finally:
        await bus.close()  # type: ignore[attr-defined]
        await store.close()


async def test_a_tls_cluster_with_an_acl_user(tmp_path: Path) -> None:
    """rediss+cluster://: every node speaks only TLS and wants a client certificate; the store
    and the bus reach all three primaries over it, as the URL's ACL user."""
    import asyncio

    tls = TLSFiles(tmp_path / "tls")
    with ClusterNodes(tls=tls) as cluster:
        assert cluster.url.startswith("rediss+cluster://")
        store = open_store(cluster.url, **tls.client_options())
        bus = open_bus(cluster.url, store=store, **tls.client_options())
        heard = asyncio.Event()

        async def listener(eid: str) -> None:
            heard.set()

        try:
            assert isinstance(store, RedisStore) and isinstance(bus, RedisBus)
            records = [
                Record.new(User("https://as.example", "alice"), "c", "f", "m", ttl=60) for _ in range(40)
            ]
            await asyncio.gather(*(store.create(r) for r in records))  # spread over the 16 tags
            bus.subscribe(records[0].id, listener)
            await bus.wait_connected()
            assert await store.transition(records[0].id, from_states=ACTIVE, to="completed")
            await asyncio.wait_for(heard.wait(), 10)
            assert all([await store.get(r.id) for r in records])
            used = {n.name for n in store.client.get_nodes() if n.connection_class is SSLConnection}  # type: ignore[union-attr]
            assert len(used) == 3
        finally:
            await bus.close()  # type: ignore[attr-defined]
            await store.close()
        plain = open_store(cluster.url.replace("rediss+", "redis+"))
        with pytest.raises(StoreUnavailableError):
            await plain.get("x")  # no plain-TCP port to fall back to
        await plain.close()


async def test_a_tls_sentinel_group_with_an_acl_user(tmp_path: Path) -> None:
    """rediss+sentinel://: the Sentinels and both nodes speak only TLS and want a client
    certificate; the store finds the primary through the Sentinels and writes, as the URL's ACL
    user, with a replica's acknowledgement (`replicas_ack=1`)."""
    tls = TLSFiles(tmp_path / "tls")
    with SentinelGroup(tls=tls) as group:
        assert group.url.startswith("rediss+sentinel://")
        store = open_store(group.url, replicas_ack=1, **tls.client_options())
        bus = open_bus(group.url, store=store, **tls.client_options())
        try:
            assert isinstance(store, RedisStore) and isinstance(bus, RedisBus)
            record = Record.new(User("https://as.example", "alice"), "c", "f", "m", ttl=60)
            await store.create(record)
            await bus.wait_connected()
            assert await store.transition(record.id, from_states=ACTIVE, to="completed")
            got = await store.get(record.id)
            assert got is not None and got.state == "completed"
            assert await store.client.acl_whoami() in ("elicitkit", b"elicitkit")
        finally:
            await bus.close()  # type: ignore[attr-defined]
            await store.close()
