"""One key ring, a key per purpose: the vault, the session cookie and the OAuth and sign-in
`state` each seal under their own key derived from the ring's (never the ring's key itself),
every write seals under the current key, and a cookie sealed under a retired key is sealed
anew on the page that opens it. The vault's part runs on every store backend: memory,
SQLite, Redis and PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.responses import Response
from support.postgres_server import PostgresServer, shared_postgres
from support.redis_server import RedisServer, redis_server

from elicitkit.server._backends import open_store
from elicitkit.server._errors import VaultDecryptError
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing, Vault
from elicitkit.server._web.sessions import COOKIE, SessionCookies
from elicitkit.server.store import MemoryStore, Store
from elicitkit.server.store._sqlite import SQLiteStore

__all__ = ["redis_server", "shared_postgres"]  # the real servers' fixtures
pytestmark = pytest.mark.timeout(60)

ALICE = User("https://as.example", "alice")
OLD_KEY = secrets.token_bytes(32)
OLD = f"2025:{base64.urlsafe_b64encode(OLD_KEY).decode()}"
NEW = KeyRing.generate("2026")


@pytest.fixture(params=["memory", "sqlite", "redis", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    backend: Store
    if request.param == "memory":
        backend = MemoryStore()
    elif request.param == "sqlite":
        backend = SQLiteStore(tmp_path / "s.sqlite3")
    elif request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("shared_postgres")
        backend = open_store(postgres.url, prefix=f"t{secrets.token_hex(6)}_")
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        backend = open_store(server.url)
    yield backend
    await backend.close()


def opens_with_the_ring_key_itself(blob: bytes, aad: bytes) -> bool:
    header_length = 3 + 1 + blob[3]
    header, body = blob[:header_length], blob[header_length:]
    try:
        AESGCM(OLD_KEY).decrypt(body[:12], body[12:], header + aad)
    except InvalidTag:
        return False
    return True


def test_no_purpose_seals_with_the_ring_key_itself_nor_with_anothers() -> None:
    ring = KeyRing.from_string(OLD)
    purposes = ("vault", "browser-session", "oauth-state", "login-state")
    for purpose in purposes:
        blob = ring.seal(b"x", b"aad", purpose=purpose)
        assert ring.open(blob, b"aad", purpose=purpose) == b"x"
        assert not opens_with_the_ring_key_itself(blob, b"aad")
        for other in set(purposes) - {purpose}:
            with pytest.raises(VaultDecryptError):
                ring.open(blob, b"aad", purpose=other)


def where(user: User, name: str) -> str:
    """Where the vault keeps `user`'s `name`: a hash of both."""
    return (
        "vault:"
        + hashlib.sha256(
            json.dumps(["elicitkit/vault/v1", user.issuer, user.subject, name]).encode()
        ).hexdigest()
    )


async def test_a_value_under_a_retired_key_says_which_key_to_add_back(store: Store) -> None:
    await Vault(KeyRing.from_string(OLD), store).put(ALICE, "api-key", "wk-1")
    blob = await store.get_blob(where(ALICE, "api-key"))
    assert blob is not None and not KeyRing.from_string(f"{OLD},{NEW}").is_current(blob)
    with pytest.raises(VaultDecryptError, match="'2025'"):
        await Vault(KeyRing.from_string(NEW), store).get(ALICE, "api-key")


def cookie_of(response: Response) -> str:
    return response.headers["set-cookie"].split(";", 1)[0].removeprefix(f"{COOKIE}=")


def test_a_cookie_under_a_retired_key_is_sealed_anew_when_it_opens() -> None:
    old_ring, both, new_ring = (KeyRing.from_string(t) for t in (OLD, f"{OLD},{NEW}", NEW))
    response = Response()
    SessionCookies().save(response, SessionCookies().new(ALICE), old_ring)
    session = SessionCookies().open(cookie_of(response), both)
    assert session is not None and session.user == ALICE
    assert session.dirty  # the page saves it again, under the current key
    again = Response()
    SessionCookies().save(again, session, both)
    fresh = SessionCookies().open(cookie_of(again), new_ring)
    assert fresh is not None and fresh.sid == session.sid and not fresh.dirty
