"""The vault: AES-GCM at rest, bound to user and name, key ring rotation, no plaintext fallback."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from elicitkit.server._errors import VaultDecryptError, VaultKeyError
from elicitkit.server._user import User
from elicitkit.server._vault import KEYS_ENV, KeyRing, Vault
from elicitkit.server.store import MemoryStore
from elicitkit.server.store._sqlite import SQLiteStore

ALICE = User("https://as.example", "alice")
BOB = User("https://as.example", "bob")
SECRET = "wk-very-secret-value-4711"


async def test_round_trip_and_binding() -> None:
    vault = Vault(KeyRing.from_string(KeyRing.generate("k1")), MemoryStore())
    await vault.put(ALICE, "weather", SECRET)
    assert await vault.get(ALICE, "weather") == SECRET
    assert await vault.get(BOB, "weather") is None
    assert await vault.get(ALICE, "other") is None
    await vault.delete(ALICE, "weather")
    assert await vault.get(ALICE, "weather") is None


def test_associated_data_binds_user_and_name() -> None:
    ring = KeyRing.from_string(KeyRing.generate("k1"))
    blob = ring.seal(b"x", b"alice|weather")
    assert ring.open(blob, b"alice|weather") == b"x"
    with pytest.raises(VaultDecryptError):
        ring.open(blob, b"bob|weather")  # a value moved to another user does not open


async def test_sealed_copied_to_another_user_does_not_open() -> None:
    store = MemoryStore()
    vault = Vault(KeyRing.from_string(KeyRing.generate("k1")), store)
    await vault.put(ALICE, "weather", SECRET)
    (alice_key,) = [key async for key in store.blob_keys()]
    await vault.put(BOB, "weather", "bob-value")
    (bob_key,) = [key async for key in store.blob_keys() if key != alice_key]
    alice_sealed = await store.get_blob(alice_key)
    assert alice_sealed is not None
    await store.put_blob(bob_key, alice_sealed)  # what someone with write access to the store could do
    with pytest.raises(VaultDecryptError):
        await vault.get(BOB, "weather")


async def test_wrong_key_fails_and_tampering_fails(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.sqlite3")
    await Vault(KeyRing.from_string(KeyRing.generate("k1")), store).put(ALICE, "weather", SECRET)
    other = Vault(KeyRing.from_string(KeyRing.generate("k1")), store)  # same id, different bytes
    with pytest.raises(VaultDecryptError, match="wrong"):
        await other.get(ALICE, "weather")
    unknown = Vault(KeyRing.from_string(KeyRing.generate("k9")), store)
    with pytest.raises(VaultDecryptError, match="not in the key ring"):
        await unknown.get(ALICE, "weather")
    await store.close()
    raw = (tmp_path / "v.sqlite3").read_bytes()
    assert SECRET.encode() not in raw


async def test_rotation_by_adding_a_key() -> None:
    store = MemoryStore()
    old = KeyRing.generate("2025")
    await Vault(KeyRing.from_string(old), store).put(ALICE, "a", "sealed-under-old")
    new = KeyRing.generate("2026")
    rotated = Vault(KeyRing.from_string(f"{old},{new}"), store)
    assert rotated.keys.current == "2026"
    assert await rotated.get(ALICE, "a") == "sealed-under-old"
    await rotated.put(ALICE, "b", "sealed-under-new")
    # the new value opens only with the new key present
    with pytest.raises(VaultDecryptError):
        await Vault(KeyRing.from_string(old), store).get(ALICE, "b")


def test_missing_key_is_a_clear_startup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEYS_ENV, raising=False)
    with pytest.raises(VaultKeyError, match="never stores secrets in plaintext"):
        KeyRing.from_env()
    with pytest.raises(VaultKeyError, match="no key"):
        KeyRing([])


def test_bad_keys_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(VaultKeyError, match="32 random bytes"):
        KeyRing([("k1", b"short")])
    with pytest.raises(VaultKeyError, match="not `id:base64key`"):
        KeyRing.from_string("k1")
    with pytest.raises(VaultKeyError, match="appears twice"):
        key = base64.urlsafe_b64encode(b"k" * 32).decode()
        KeyRing.from_string(f"a:{key},a:{key}")
    with pytest.raises(VaultKeyError, match="key id"):
        KeyRing([("bad id!", b"k" * 32)])
    monkeypatch.setenv(KEYS_ENV, KeyRing.generate("env"))
    assert KeyRing.from_env().current == "env"
