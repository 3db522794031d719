"""Where the bridge keeps its sign-in to one upstream server: a folder per server under the
user's data directory, one file encrypted with AES-GCM, the key beside it."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken, ProtectedResourceMetadata

from elicitkit.bridge._private_files import private_folder, write_new, write_over
from elicitkit.extras import needs

__all__ = ["EncryptedTokenStorage", "canonical_url", "server_folder"]

logger = logging.getLogger("elicitkit.bridge")

_MAGIC = b"EKB1"  # format of the encrypted file: magic, 12-byte nonce, AES-GCM ciphertext


def server_folder(server_url: str, data_dir: Path | None = None) -> Path:
    """The folder of one upstream server's tokens: a readable, file-safe name from the URL's
    origin and path, plus a hash of them so two servers never share one."""
    if data_dir is None:
        with needs("cli"):
            from platformdirs import user_data_dir

        data_dir = Path(user_data_dir("elicitkit")) / "bridge"
    canonical = canonical_url(server_url)
    readable = re.sub(r"[^a-z0-9.]+", "-", canonical.split("://", 1)[-1].lower()).strip("-.")[:60]
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    return data_dir / f"{readable or 'server'}-{digest}"


class EncryptedTokenStorage:
    """The SDK's `TokenStorage`, encrypted at rest with AES-GCM.

    The key is a file created with mode 0600 beside the data, in a folder of mode 0700 (as is
    every folder made on the way to it): the OS keyring (Secret Service, Keychain) is not
    available where the bridge often runs (headless machines, containers, CI), so a key file it
    is. It keeps tokens out of anything that copies the data file alone (a backup, a bug report,
    a grep) and the data is bound to the server's URL; it does not protect against someone who
    can read all of the user's files.
    """

    def __init__(
        self, folder: Path, server_url: str, *, pre_registered: OAuthClientInformationFull | None = None
    ) -> None:
        self.folder = folder
        self._bound_to = canonical_url(server_url).encode()
        self._pre_registered = pre_registered
        self._data = folder / "tokens.enc"
        self._key = folder / "key"

    async def get_tokens(self) -> OAuthToken | None:
        state = await anyio.to_thread.run_sync(self._load)
        stored = state.get("tokens")
        client = await self.get_client_info()
        if not isinstance(stored, dict) or client is None or state.get("client_id") != client.client_id:
            return None  # none yet, or issued to another client than the one in use now
        tokens = OAuthToken.model_validate(stored)
        expires_at = state.get("expires_at")
        if isinstance(expires_at, int | float):
            tokens.expires_in = max(0, int(expires_at - time.time()))
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        client = await self.get_client_info()

        def save() -> None:
            state = self._load()
            state["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
            state["client_id"] = client.client_id if client is not None else None
            state["expires_at"] = time.time() + int(tokens.expires_in) if tokens.expires_in else None
            self._save(state)

        await anyio.to_thread.run_sync(save)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self._pre_registered is not None:
            return self._pre_registered
        stored = (await anyio.to_thread.run_sync(self._load)).get("client")
        return OAuthClientInformationFull.model_validate(stored) if isinstance(stored, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self._pre_registered is not None:
            return  # the person's configuration is the record of a pre-registered client

        def save() -> None:
            state = self._load()
            state["client"] = client_info.model_dump(mode="json", exclude_none=True)
            self._save(state)

        await anyio.to_thread.run_sync(save)

    async def get_discovery(self) -> tuple[ProtectedResourceMetadata | None, OAuthMetadata] | None:
        """The resource's and its authorization server's metadata, as last discovered."""
        stored = (await anyio.to_thread.run_sync(self._load)).get("discovery")
        if not isinstance(stored, dict) or not isinstance(stored.get("authorization_server"), dict):
            return None
        resource = stored.get("resource")
        return (
            ProtectedResourceMetadata.model_validate(resource) if isinstance(resource, dict) else None,
            OAuthMetadata.model_validate(stored["authorization_server"]),
        )

    async def set_discovery(self, resource: ProtectedResourceMetadata | None, server: OAuthMetadata) -> None:
        def save() -> None:
            state = self._load()
            state["discovery"] = {
                "resource": resource.model_dump(mode="json", exclude_none=True) if resource else None,
                "authorization_server": server.model_dump(mode="json", exclude_none=True),
            }
            self._save(state)

        await anyio.to_thread.run_sync(save)

    def registered_port(self) -> int | None:
        """The callback port of the stored dynamic registration, so its redirect URI still matches."""
        client = self._load().get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        if not uris:
            return None
        parts = urlsplit(str(uris[0]))
        return parts.port if parts.scheme == "http" and parts.hostname == "127.0.0.1" else None

    def _load(self) -> dict[str, Any]:
        try:
            blob = self._data.read_bytes()
            key = self._key.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            if not blob.startswith(_MAGIC) or len(key) != 32:
                raise ValueError("not ours")
            nonce, sealed = blob[len(_MAGIC) : len(_MAGIC) + 12], blob[len(_MAGIC) + 12 :]
            loaded = json.loads(AESGCM(key).decrypt(nonce, sealed, self._bound_to))
        except (InvalidTag, ValueError):
            logger.warning(
                "The stored sign-in in %s cannot be read; the bridge will sign in again.", self.folder
            )
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def _save(self, state: dict[str, Any]) -> None:
        private_folder(self.folder)
        key = self._read_or_create_key()
        nonce = os.urandom(12)
        sealed = AESGCM(key).encrypt(nonce, json.dumps(state).encode(), self._bound_to)
        write_over(self._data, _MAGIC + nonce + sealed)

    def _read_or_create_key(self) -> bytes:
        """The key, created whole before it takes its name (`write_new`), so two bridges
        starting at once agree on one key and neither reads a half-written file."""
        for _ in range(3):
            try:
                key = self._key.read_bytes()
            except FileNotFoundError:
                pass
            else:
                if len(key) == 32:
                    return key
                self._key.unlink(missing_ok=True)  # damaged: whatever it sealed is unreadable anyway
            key = AESGCM.generate_key(bit_length=256)
            if write_new(self._key, key):
                return key
        return self._key.read_bytes()


def canonical_url(server_url: str) -> str:
    """Scheme, host, non-default port and path: the server's identity, without query or fragment."""
    parts = urlsplit(server_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    default = {"http": 80, "https": 443}.get(scheme)
    port = f":{parts.port}" if parts.port and parts.port != default else ""
    return f"{scheme}://{host}{port}{parts.path.rstrip('/')}"
