"""Secrets and third-party tokens, encrypted at rest and bound to the user they belong to.

Each value is sealed with AES-GCM under the newest key of a `KeyRing`; the user's issuer and
subject and the value's name are the associated data, so a sealed value copied to another
user or name fails to open. Rotation: add a key (it becomes the one that seals), keep the old
ones until everything sealed with them is rewritten or gone. There is no key-less mode: a
missing key is a start-up error.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from elicitkit.server.errors import VaultDecryptError, VaultKeyError
from elicitkit.server.store import BlobStore
from elicitkit.server.user import User

__all__ = ["KEYS_ENV", "KeyRing", "Vault"]

KEYS_ENV = "ELICITKIT_VAULT_KEYS"
"""The environment variable `KeyRing.from_env()` reads: `id:base64key[,id:base64key...]`."""

_KID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_MAGIC = b"ek1"
_NONCE = 12


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class KeyRing:
    """AES-256-GCM keys by id; the last one added seals, every one opens.

    `KeyRing.generate()` prints a new entry; keep entries in `ELICITKIT_VAULT_KEYS` (or a
    secrets manager) and load them with `KeyRing.from_env()`.
    """

    def __init__(self, keys: Iterable[tuple[str, bytes]]) -> None:
        self._keys: dict[str, AESGCM] = {}
        self._current = ""
        for kid, key in keys:
            if not _KID.match(kid):
                raise VaultKeyError(f"Vault key id {kid!r} must be 1-32 letters, digits, '-' or '_'.")
            if len(key) != 32:
                raise VaultKeyError(
                    f"Vault key {kid!r} is {len(key)} bytes; it must be 32 random bytes. "
                    "Make one with `python -c 'from elicitkit.server.vault import KeyRing; "
                    "print(KeyRing.generate())'`."
                )
            if kid in self._keys:
                raise VaultKeyError(f"Vault key id {kid!r} appears twice; give each key its own id.")
            self._keys[kid] = AESGCM(key)
            self._current = kid
        if not self._keys:
            raise VaultKeyError(
                "The vault has no key, and it never stores secrets in plaintext. Set "
                f"{KEYS_ENV}=<id>:<base64 key> (make one with KeyRing.generate()) or pass a KeyRing."
            )

    @staticmethod
    def generate(key_id: str = "k1") -> str:
        """A new ring entry, `id:base64key`, to append to the ring's configuration."""
        return f"{key_id}:{base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()}"

    @classmethod
    def from_string(cls, text: str) -> KeyRing:
        """Parse `id:base64key[,id:base64key...]`; the last entry seals."""
        entries: list[tuple[str, bytes]] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            kid, sep, encoded = part.partition(":")
            try:
                key = _b64decode(encoded) if sep else b""
            except (binascii.Error, ValueError):
                key = b""
            if not sep or not key:
                raise VaultKeyError(f"Vault key entry for {kid!r} is not `id:base64key`.")
            entries.append((kid, key))
        return cls(entries)

    @classmethod
    def from_env(cls, name: str = KEYS_ENV) -> KeyRing:
        text = os.environ.get(name, "")
        if not text.strip():
            raise VaultKeyError(
                f"{name} is not set, and the vault never stores secrets in plaintext. Set it to "
                "<id>:<base64 key> (make one with `python -c 'from elicitkit.server.vault import KeyRing; "
                "print(KeyRing.generate())'`)."
            )
        return cls.from_string(text)

    @property
    def current(self) -> str:
        """The id of the key that seals."""
        return self._current

    def seal(self, plaintext: bytes, aad: bytes) -> bytes:
        nonce = os.urandom(_NONCE)
        kid = self._current.encode()
        header = _MAGIC + bytes([len(kid)]) + kid
        return header + nonce + self._keys[self._current].encrypt(nonce, plaintext, header + aad)

    def open(self, blob: bytes, aad: bytes) -> bytes:
        if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 1:
            raise VaultDecryptError("This value was not sealed by an elicitkit vault.")
        n = blob[len(_MAGIC)]
        header = blob[: len(_MAGIC) + 1 + n]
        kid = header[len(_MAGIC) + 1 :].decode(errors="replace")
        key = self._keys.get(kid)
        if key is None:
            raise VaultDecryptError(
                f"This value was sealed with vault key {kid!r}, which is not in the key ring; "
                "add that key back to the ring to read it."
            )
        body = blob[len(header) :]
        try:
            return key.decrypt(body[:_NONCE], body[_NONCE:], header + aad)
        except InvalidTag:
            raise VaultDecryptError(
                f"The value did not open under vault key {kid!r}: the key is wrong or the bytes were altered."
            ) from None


def _aad(user: User, name: str) -> bytes:
    return json.dumps(["elicitkit/vault/v1", user.issuer, user.subject, name]).encode()


def _blob_key(user: User, name: str) -> str:
    return "vault:" + hashlib.sha256(_aad(user, name)).hexdigest()


class Vault:
    """Named values per user, sealed with a `KeyRing` and kept in a `Store`."""

    def __init__(self, keys: KeyRing, store: BlobStore) -> None:
        self.keys = keys
        self.store = store

    async def put(self, user: User, name: str, value: str) -> None:
        await self.store.put_blob(_blob_key(user, name), self.keys.seal(value.encode(), _aad(user, name)))

    async def get(self, user: User, name: str) -> str | None:
        blob = await self.store.get_blob(_blob_key(user, name))
        return None if blob is None else self.keys.open(blob, _aad(user, name)).decode()

    async def delete(self, user: User, name: str) -> None:
        await self.store.delete_blob(_blob_key(user, name))
