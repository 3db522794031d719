"""The credential a host presents to a bridge that listens on HTTP.

Whoever can send the bridge a request can act upstream as the person signed in there, and on
a shared machine every user and every local program can reach a port on 127.0.0.1. So a bridge
on HTTP asks each request for `Authorization: Bearer <secret>` (the transport spec's "servers
SHOULD authenticate connections"; the MCP Inspector added a session token for the same reason
after CVE-2025-49596). The secret is compared in constant time.

`CredentialFile` is what the command uses: one secret per bridge (one upstream server at one
listen address), made on first use in a file of mode 0600 under the user's state folder,
kept across restarts so the host's configuration keeps working, and read again when the file
changes, so a rotation takes effect in a running bridge at once.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from elicitkit.bridge._private_files import open_to_others, write_new, write_over
from elicitkit.errors import ConfigurationError
from elicitkit.extras import needs

__all__ = ["Credential", "CredentialFile", "credential_path"]

_MINIMUM = 16
"""Characters a secret given by a program must have at least (a made one has 43)."""


class Credential:
    """A fixed secret the host must present as `Authorization: Bearer <secret>`."""

    def __init__(self, secret: str) -> None:
        if len(secret) < _MINIMUM or secret != secret.strip() or not secret.isprintable():
            raise ConfigurationError(
                f"A bridge credential must be at least {_MINIMUM} printable characters without "
                "surrounding spaces; Credential.generate() makes a good one."
            )
        self.secret = secret

    @classmethod
    def generate(cls) -> Credential:
        """A new random secret (256 bits, URL-safe text)."""
        return cls(secrets.token_urlsafe(32))

    @property
    def header(self) -> str:
        """The `Authorization` header's value a host sends."""
        return f"Bearer {self.secret}"

    def matches(self, authorization: bytes | None) -> bool:
        """Whether an `Authorization` header's value presents this secret."""
        return _presents(authorization, self.secret.encode())

    def __repr__(self) -> str:
        return "Credential(...)"


class CredentialFile:
    """A bridge's credential kept in the file at `path` (mode 0600, its folders 0700).

    `make()` creates it if there is none; `rotate()` replaces it. A request is checked against
    the file as it is now (re-read when it changes), so a rotation holds at once; a file that is
    gone lets no request in.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._seen: tuple[int, int, int] | None = None
        self._secret: bytes | None = None

    def make(self) -> Credential | None:
        """Create the credential if there is none yet: the new one, or None if one was there.

        An existing file others may read is refused: its secret may already be theirs."""
        credential = Credential.generate()
        if write_new(self.path, credential.secret.encode() + b"\n"):
            return credential
        loose = open_to_others(self.path)
        if loose is not None:
            raise ConfigurationError(
                f"The bridge's credential file {self.path} can be read by other users (mode {loose}); "
                "make a new one with --rotate-credential (or rotate() in a program)."
            )
        return None

    def rotate(self) -> Credential:
        """Replace the credential with a new one; the old one stops working at once."""
        credential = Credential.generate()
        write_over(self.path, credential.secret.encode() + b"\n")
        return credential

    def matches(self, authorization: bytes | None) -> bool:
        """Whether an `Authorization` header's value presents the secret the file holds now."""
        secret = self._current()
        return secret is not None and _presents(authorization, secret)

    def _current(self) -> bytes | None:
        try:
            seen = os.stat(self.path)
        except OSError:
            return None
        key = (seen.st_ino, seen.st_mtime_ns, seen.st_size)
        if key != self._seen:
            try:
                self._secret = self.path.read_bytes().strip() or None
            except OSError:
                return None
            self._seen = key
        return self._secret

    def __repr__(self) -> str:
        return f"CredentialFile({str(self.path)!r})"


def credential_path(upstream: str, label: str, host: str, port: int, state_dir: Path | None = None) -> Path:
    """Where the credential of the bridge in front of `upstream` at `host:port` is kept: a name
    readable from the address and `label` (the server's host and path, or its command's name;
    never its arguments), plus a hash of all three, so two bridges never share one. `state_dir`
    is the user's state folder by default."""
    if state_dir is None:
        with needs("bridge"):
            from platformdirs import user_state_dir

        state_dir = Path(user_state_dir("elicitkit"))
    readable = re.sub(r"[^a-z0-9.]+", "-", f"{host}-{port}-{label}".lower()).strip("-.")[:80]
    digest = hashlib.sha256(f"{host.lower()}:{port} {upstream}".encode()).hexdigest()[:12]
    return state_dir / "bridge" / "credentials" / f"{readable}-{digest}"


def _presents(authorization: bytes | None, secret: bytes) -> bool:
    """`Bearer <secret>` (the scheme in any case), compared in constant time."""
    if authorization is None:
        return False
    scheme, _, token = authorization.strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), secret)
