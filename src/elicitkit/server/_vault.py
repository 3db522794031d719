"""Secrets and third-party tokens, encrypted at rest and bound to the user they belong to.

Each value is sealed with AES-GCM under the newest key of a `KeyRing`; where it is stored
(a hash of the user's issuer and subject and the value's name) is the associated data, so a
sealed value copied to another user or name fails to open. The ring never seals with its keys
themselves: each purpose (the vault, the browser session cookie, the OAuth and sign-in
`state`) seals with its own key derived from them (HKDF), so a value of one purpose cannot
be passed off as another's even if associated data were ever to coincide. Rotation: add a
key (it becomes the one that seals; every write seals with it), keep the old ones until
everything sealed with them is rewritten or gone. There is no key-less mode: a missing key is
a start-up error.
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
from typing import ClassVar, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from elicitkit.errors import ConfigurationError
from elicitkit.server._errors import VaultDecryptError, VaultKeyError
from elicitkit.server._user import User
from elicitkit.server.store import BlobStore

__all__ = ["KEYS_ENV", "KeyRing", "Resealing", "Vault"]

KEYS_ENV = "ELICITKIT_VAULT_KEYS"
"""The environment variable `KeyRing.from_env()` reads: `id:base64key[,id:base64key...]`."""

_KID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_PURPOSE = re.compile(r"^[a-z][a-z0-9-]{0,40}$")
_MAGIC = b"ek2"
"""Sealed with the key derived from a ring key for the value's purpose."""
_NONCE = 12

Resealing = Literal["resealed", "current", "left", "gone"]
"""What `Vault.reseal` did with one value: sealed it again, found it sealed under the current key
already, left it (it still needs the key it was sealed with), or found nothing there."""


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class KeyRing:
    """AES-256-GCM keys by id; the last one added seals, every one opens.

    A value is sealed for a `purpose` ("vault", "browser-session", "oauth-state",
    "login-state") under a key derived from the ring's key for that purpose (HKDF-SHA256), and
    opens only for the same purpose; `is_current` tells a value that should be sealed again.

    `KeyRing.generate()` prints a new entry; keep entries in `ELICITKIT_VAULT_KEYS` (or a
    secrets manager) and load them with `KeyRing.from_env()`.
    """

    def __init__(self, keys: Iterable[tuple[str, bytes]]) -> None:
        self._keys: dict[str, bytes] = {}
        self._derived: dict[tuple[str, str], AESGCM] = {}
        self._current = ""
        for kid, key in keys:
            if not _KID.match(kid):
                raise VaultKeyError(f"Vault key id {kid!r} must be 1-32 letters, digits, '-' or '_'.")
            if len(key) != 32:
                raise VaultKeyError(
                    f"Vault key {kid!r} is {len(key)} bytes; it must be 32 random bytes. "
                    "Make one with `python -c 'from elicitkit.server import KeyRing; "
                    "print(KeyRing.generate())'`."
                )
            if kid in self._keys:
                raise VaultKeyError(f"Vault key id {kid!r} appears twice; give each key its own id.")
            self._keys[kid] = bytes(key)
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
        """The ring in the environment variable `name`, as `from_string` reads it; `VaultKeyError` when it is
        not set."""
        text = os.environ.get(name, "")
        if not text.strip():
            raise VaultKeyError(
                f"{name} is not set, and the vault never stores secrets in plaintext. Set it to "
                "<id>:<base64 key> (make one with `python -c 'from elicitkit.server import KeyRing; "
                "print(KeyRing.generate())'`)."
            )
        return cls.from_string(text)

    @property
    def current(self) -> str:
        """The id of the key that seals."""
        return self._current

    def seal(self, plaintext: bytes, aad: bytes, *, purpose: str = "vault") -> bytes:
        """`plaintext` sealed for `purpose` under the current key, bound to `aad`."""
        nonce = os.urandom(_NONCE)
        kid = self._current.encode()
        header = _MAGIC + bytes([len(kid)]) + kid
        return header + nonce + self._aead(self._current, purpose).encrypt(nonce, plaintext, header + aad)

    def open(self, blob: bytes, aad: bytes, *, purpose: str = "vault") -> bytes:
        """What `seal` sealed for the same `purpose` and `aad`, under any key of the ring."""
        if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 1:
            raise VaultDecryptError("This value was not sealed by an elicitkit vault.")
        n = blob[len(_MAGIC)]
        header = blob[: len(_MAGIC) + 1 + n]
        kid = header[len(_MAGIC) + 1 :].decode(errors="replace")
        if kid not in self._keys:
            raise VaultDecryptError(
                f"This value was sealed with vault key {kid!r}, which is not in the key ring; "
                "add that key back to the ring to read it."
            )
        body = blob[len(header) :]
        try:
            return self._aead(kid, purpose).decrypt(body[:_NONCE], body[_NONCE:], header + aad)
        except InvalidTag:
            raise VaultDecryptError(
                f"The value did not open under vault key {kid!r}: the key is wrong or the bytes were altered."
            ) from None

    def is_current(self, blob: bytes) -> bool:
        """Whether `blob` is sealed as `seal` seals now (the current key, a key per purpose);
        a value that is not should be sealed again before its key leaves the ring."""
        kid = self._current.encode()
        return blob.startswith(_MAGIC + bytes([len(kid)]) + kid)

    @staticmethod
    def sealed_with(blob: bytes) -> str:
        """The id of the ring key `blob` was sealed under (read from its header, not checked)."""
        if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 1:
            return ""
        n = blob[len(_MAGIC)]
        return blob[len(_MAGIC) + 1 : len(_MAGIC) + 1 + n].decode(errors="replace")

    @property
    def ids(self) -> list[str]:
        """Every key id of the ring, the sealing one last."""
        return list(self._keys)

    def _aead(self, kid: str, purpose: str) -> AESGCM:
        aead = self._derived.get((kid, purpose))
        if aead is None:
            if not _PURPOSE.match(purpose):
                raise ConfigurationError(
                    f"A sealing purpose is a short lowercase label (letters, digits, '-'), not {purpose!r}."
                )
            info = b"elicitkit/key/v2/" + purpose.encode()
            key = HKDF(algorithm=SHA256(), length=32, salt=None, info=info).derive(self._keys[kid])
            aead = self._derived[(kid, purpose)] = AESGCM(key)
        return aead


def _blob_key(user: User, name: str) -> str:
    """Where `user`'s value `name` is stored: a hash of both, no personal data in the key."""
    where = json.dumps(["elicitkit/vault/v1", user.issuer, user.subject, name]).encode()
    return "vault:" + hashlib.sha256(where).hexdigest()


def _aad(blob_key: str) -> bytes:
    """Where a value is stored binds it: that key is a hash of its user and name (so a value
    can be sealed again knowing only where it is stored)."""
    return json.dumps(["elicitkit/vault/v2", blob_key]).encode()


class Vault:
    """Named values per user, sealed with a `KeyRing` and kept in a `Store`.

    Every `put` seals under the ring's current key; a value sealed under an older key of the
    ring still opens, and a `put` (or `reseal`) seals it under the current one.
    """

    def __init__(self, keys: KeyRing, store: BlobStore) -> None:
        self.keys = keys
        self.store = store

    async def put(self, user: User, name: str, value: str) -> None:
        """Seal `value` under the ring's current key as `user`'s `name`, replacing what was there."""
        key = _blob_key(user, name)
        await self.store.put_blob(key, self.keys.seal(value.encode(), _aad(key)))

    async def get(self, user: User, name: str) -> str | None:
        """`user`'s `name` opened, or None when there is none; `VaultDecryptError` when it does not open."""
        key = _blob_key(user, name)
        blob = await self.store.get_blob(key)
        if blob is None:
            return None
        return self.keys.open(blob, _aad(key)).decode()

    async def delete(self, user: User, name: str) -> None:
        """Delete `user`'s `name`; nothing happens when there is none."""
        await self.store.delete_blob(_blob_key(user, name))

    PREFIX: ClassVar[str] = "vault:"
    """Every value the vault stores is a blob whose key starts with this."""

    async def reseal(self, key: str, *, attempts: int = 5) -> Resealing:
        """Seal the value stored under blob `key` again under the ring's current key, unless it
        already is, with a compare-and-set: a value written meanwhile is read again, never
        overwritten. A value that does not open (under a key the ring lacks, or altered) stays as
        it is."""
        for _ in range(attempts):
            blob = await self.store.get_blob(key)
            if blob is None:
                return "gone"
            if self.keys.is_current(blob):
                return "current"
            try:
                value = self.keys.open(blob, _aad(key))
            except VaultDecryptError:
                return "left"
            if await self.store.replace_blob(key, blob, self.keys.seal(value, _aad(key))):
                return "resealed"
        return "left"  # rewritten on every attempt, by a writer that does not seal with this key
