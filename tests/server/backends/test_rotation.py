"""Key rotation on every backend: listing blob keys in batches, compare-and-set, and `rotate`
re-sealing a vault while writers keep writing, interrupted and run again."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer
from support.redis_topology import ClusterNodes, SentinelGroup

from elicitkit.server._backends import open_store
from elicitkit.server._errors import VaultDecryptError
from elicitkit.server._rotation import rotate
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing, Vault
from elicitkit.server.store import MemoryStore, Store
from elicitkit.server.store._sqlite import SQLiteStore

pytestmark = pytest.mark.timeout(90)

K1, K2 = KeyRing.generate("k1"), KeyRing.generate("k2")
OLD, BOTH, NEW = KeyRing.from_string(K1), KeyRing.from_string(f"{K1},{K2}"), KeyRing.from_string(K2)


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-sentinel", "redis-cluster", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    backend: Store
    if request.param == "memory":
        backend = MemoryStore()
    elif request.param == "sqlite":
        backend = SQLiteStore(tmp_path / "s.sqlite3")
    elif request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("shared_postgres")
        backend = open_store(postgres.url, prefix=f"t{secrets.token_hex(6)}_")
    elif request.param == "redis-sentinel":
        group: SentinelGroup = request.getfixturevalue("shared_sentinels")
        backend = open_store(group.url, prefix=f"t{secrets.token_hex(6)}:", replicas_ack=1)
    elif request.param == "redis-cluster":
        cluster: ClusterNodes = request.getfixturevalue("redis_cluster")
        backend = open_store(cluster.url, prefix=f"t{secrets.token_hex(6)}:")
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        backend = open_store(server.url, prefix=f"t{secrets.token_hex(6)}:")
    yield backend
    await backend.close()


def user(n: int) -> User:
    return User("https://as.example", f"user-{n}")


async def listed(store: Store, prefix: str) -> list[str]:
    return [key async for key in store.blob_keys(prefix)]


async def test_blob_keys_lists_every_key_with_the_prefix_across_batches(store: Store) -> None:
    wanted = {f"vault:{n:05d}" for n in range(1203)} | {"vault:a*b", "vault:[x]?", "vault:back\\slash"}
    others = ["vaul", "vaultx:1", "other:vault:1", "once:2"]
    for keys in (sorted(wanted)[i : i + 100] for i in range(0, len(wanted), 100)):
        await asyncio.gather(*(store.put_blob(key, b"v") for key in keys))
    await asyncio.gather(*(store.put_blob(key, b"o") for key in others))
    keys = await listed(store, "vault:")
    assert set(keys) == wanted  # a Redis SCAN may list a key twice; nothing else is listed
    assert set(await listed(store, "vault:a*")) == {"vault:a*b"}  # the prefix is text, not a pattern
    assert set(await listed(store, "")) == wanted | set(others)


async def test_replace_blob_is_a_compare_and_set(store: Store) -> None:
    await store.put_blob("k", b"one")
    assert await store.replace_blob("k", b"one", b"two")
    assert await store.get_blob("k") == b"two"
    assert not await store.replace_blob("k", b"one", b"three")  # someone wrote "two" meanwhile
    assert await store.get_blob("k") == b"two"
    assert not await store.replace_blob("missing", b"one", b"two")  # never creates
    assert await store.get_blob("missing") is None


async def put_all(store: Store, ring: KeyRing, count: int) -> None:
    vault = Vault(ring, store)
    for start in range(0, count, 50):
        await asyncio.gather(
            *(vault.put(user(n), "api-key", f"secret-{n}") for n in range(start, min(count, start + 50)))
        )


async def test_rotate_reseals_everything_so_the_old_key_can_leave_the_ring(store: Store) -> None:
    await put_all(store, OLD, 120)
    await store.put_blob("other:thing", b"not the vault's")
    rotation = await rotate(Vault(BOTH, store))
    assert (rotation.resealed, rotation.current, sum(rotation.left.values())) == (120, 0, 0)
    assert rotation.retirable(BOTH) == ["k1"]
    retired = Vault(NEW, store)
    assert [await retired.get(user(n), "api-key") for n in range(120)] == [f"secret-{n}" for n in range(120)]
    assert await store.get_blob("other:thing") == b"not the vault's"
    again = await rotate(Vault(BOTH, store))
    assert (again.resealed, again.current) == (0, 120)


async def test_an_interrupted_rotation_loses_nothing_and_running_it_again_finishes(store: Store) -> None:
    await put_all(store, OLD, 100)
    done = 0

    def crash(n: int) -> None:
        nonlocal done
        done += n
        if done >= 32:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await rotate(Vault(BOTH, store), progress=crash)
    both = Vault(BOTH, store)
    assert [await both.get(user(n), "api-key") for n in range(100)] == [f"secret-{n}" for n in range(100)]
    with pytest.raises(VaultDecryptError):  # some values still need k1: it cannot leave yet
        for n in range(100):
            await Vault(NEW, store).get(user(n), "api-key")
    rotation = await rotate(Vault(BOTH, store))
    assert rotation.resealed + rotation.current == 100 and rotation.resealed < 100
    assert not rotation.left


async def test_a_value_written_during_the_rotation_is_never_lost(store: Store) -> None:
    await put_all(store, OLD, 200)
    writer = Vault(BOTH, store)
    last: dict[int, str] = {}
    stop = asyncio.Event()

    async def keep_writing(offset: int) -> None:
        round_ = 0
        while not stop.is_set():
            round_ += 1
            for n in range(offset, 200, 4):
                value = f"new-{n}-{round_}"
                await writer.put(user(n), "api-key", value)
                last[n] = value
                await asyncio.sleep(0)  # a MemoryStore never waits: let the rotation run too

    writers = [asyncio.create_task(keep_writing(i)) for i in range(4)]
    try:
        await asyncio.sleep(0.01)
        rotation = await rotate(Vault(BOTH, store))
    finally:
        stop.set()
        await asyncio.gather(*writers)
    assert not rotation.left
    retired = Vault(NEW, store)
    for n in range(200):
        assert await retired.get(user(n), "api-key") == last.get(n, f"secret-{n}")


async def test_a_value_the_ring_cannot_open_is_left_and_its_key_is_not_retirable() -> None:
    store = MemoryStore()
    gone = Vault(KeyRing.from_string(KeyRing.generate("gone")), store)
    for n in range(3):
        await gone.put(user(n), "token", "t")
    await put_all(store, OLD, 2)
    rotation = await rotate(Vault(BOTH, store))
    assert rotation.left == {"gone": 3} and rotation.resealed == 2
    assert rotation.needs("gone") and not rotation.needs("k1")
