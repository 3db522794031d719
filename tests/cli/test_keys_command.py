"""`elicitkit keys`: a rotation killed midway loses nothing and a second run finishes it; what it
says, and its exit status, when values still need an old key or the store is out of reach."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elicitkit.server import KeyRing, User, Vault
from elicitkit.server.store._sqlite import SQLiteStore

ELICITKIT = Path(sys.executable).with_name("elicitkit")
K1, K2 = KeyRing.generate("k1"), KeyRing.generate("k2")

pytestmark = pytest.mark.timeout(180)


def keys(*args: str, ring: str, **popen: object) -> subprocess.Popen[str]:
    env = {**os.environ, "ELICITKIT_VAULT_KEYS": ring, "COLUMNS": "100"}
    env.pop("ELICITKIT_STORE", None)
    return subprocess.Popen(
        [str(ELICITKIT), "keys", *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen,
    )  # type: ignore[call-overload]


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


async def seed(path: Path, count: int) -> None:
    store = SQLiteStore(path)
    vault = Vault(KeyRing.from_string(K1), store)
    for start in range(0, count, 200):
        await asyncio.gather(
            *(vault.put(User("i", f"u{n}"), "key", f"v{n}") for n in range(start, min(count, start + 200)))
        )
    await store.close()


async def sealed_with(path: Path) -> dict[str, int]:
    store = SQLiteStore(path)
    counts: dict[str, int] = {}
    async for key in store.blob_keys(Vault.PREFIX):
        blob = await store.get_blob(key)
        assert blob is not None
        kid = KeyRing.sealed_with(blob)
        counts[kid] = counts.get(kid, 0) + 1
    await store.close()
    return counts


async def values(path: Path, ring: str, count: int) -> list[str | None]:
    store = SQLiteStore(path)
    vault = Vault(KeyRing.from_string(ring), store)
    got = [await vault.get(User("i", f"u{n}"), "key") for n in range(count)]
    await store.close()
    return got


async def test_a_rotation_killed_midway_loses_nothing_and_a_second_run_finishes(tmp_path: Path) -> None:
    path, count = tmp_path / "s.sqlite3", 6000
    await seed(path, count)
    rotating = keys("rotate", "--store", f"sqlite:///{path}", ring=f"{K1},{K2}")
    deadline = time.monotonic() + 60
    while (await sealed_with(path)).get("k2", 0) == 0:  # the first values are re-sealed: kill it
        assert rotating.poll() is None and time.monotonic() < deadline, rotating.communicate()
        await asyncio.sleep(0.05)
    os.kill(rotating.pid, signal.SIGKILL)
    rotating.wait()
    midway = await sealed_with(path)
    assert midway["k1"] > 0 and midway["k2"] > 0 and sum(midway.values()) == count
    assert await values(path, f"{K1},{K2}", count) == [f"v{n}" for n in range(count)]

    status, out, err = finished(keys("rotate", "--store", f"sqlite:///{path}", ring=f"{K1},{K2}"))
    assert status == 0, err
    assert f"{midway['k1']} value(s) re-sealed under key 'k2'; {midway['k2']} already were." in out
    assert "No stored value needs 'k1' now" in out
    assert await values(path, K2, count) == [f"v{n}" for n in range(count)]  # k1 has left the ring


async def test_values_that_still_need_an_old_key_are_named_with_exit_status_3(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    await seed(path, 5)
    status, out, err = finished(keys("rotate", "--store", f"sqlite:///{path}", ring=K2))
    assert status == 3, err
    assert "0 value(s) re-sealed under key 'k2'; 0 already were." in out
    assert "5 value(s) still need key 'k1' (not in the ring, or altered): add it back" in out


@pytest.mark.parametrize(
    ("args", "ring", "says"),
    [
        (
            ["rotate", "--store", "redis://127.0.0.1:1/0"],
            K1,
            "The Redis store at 127.0.0.1:1/0 is unavailable",
        ),
        (["rotate", "--store", "sqlite:///x.sqlite3"], "", "ELICITKIT_VAULT_KEYS is not set"),
        (
            ["rotate", "--store", "mysql://db/x"],
            K1,
            "The store URL 'mysql://db/x' has no scheme elicitkit knows",
        ),
        (["new", "no spaces"], K1, "Vault key id 'no spaces' must be 1-32 letters"),
    ],
    ids=["store-unavailable", "no-keys", "unknown-scheme", "bad-key-id"],  # the ring is random: not in an id
)
def test_an_error_is_one_sentence_and_exit_status_1(
    args: list[str], ring: str, says: str, tmp_path: Path
) -> None:
    status, out, err = finished(keys(*args, ring=ring, cwd=tmp_path))
    assert status == 1 and not out
    assert err.startswith(f"elicitkit keys {args[0]}: {says}") and err.count("\n") == 1, err
    assert "Traceback" not in err
