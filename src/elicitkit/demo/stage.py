"""Everything the demo story runs on, started together on 127.0.0.1 with free ports.

The demo authorization server (who alice and bob are), Demo Calendar (the third party), and
the demo MCP server with its SQLite store and vault, in a per-user data directory. The vault
key comes from `ELICITKIT_VAULT_KEYS` when it is set; otherwise the demo keeps its own key
in the data directory (generated on first run, owner-only).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.mcp_server import DemoMcpServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.i18n import gettext as _
from elicitkit.server import KEYS_ENV, KeyRing, SQLiteStore

__all__ = ["Stage", "default_data_dir", "demo_keys", "running_stage"]

KEY_FILE = "vault.key"
STORE_FILE = "demo.sqlite3"


def default_data_dir() -> Path:
    """The demo's per-user data directory (platformdirs), e.g. ~/.local/share/elicitkit/demo."""
    return Path(platformdirs.user_data_dir("elicitkit", appauthor=False)) / "demo"


def demo_keys(data_dir: Path) -> tuple[KeyRing, str]:
    """The vault's key ring, and a sentence saying where it came from."""
    if os.environ.get(KEYS_ENV, "").strip():
        return KeyRing.from_env(), _("Vault key: from %(env)s.") % {"env": KEYS_ENV}
    path = data_dir / KEY_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return KeyRing.from_string(path.read_text()), _(
            "Vault key: %(path)s (kept from an earlier run, mode 0600)."
        ) % {"path": path}
    with os.fdopen(descriptor, "w") as file:
        file.write(KeyRing.generate("demo1") + "\n")
    return (
        KeyRing.from_string(path.read_text()),
        _(
            "Vault key: none was configured (%(env)s is not set), so one was generated and kept in "
            "%(path)s (mode 0600)."
        )
        % {"env": KEYS_ENV, "path": path},
    )


@dataclass
class Stage:
    """The running demo: its servers, its data directory, and what was said about the key."""

    data_dir: Path
    key_note: str
    auth: DemoAuthServer
    calendar: DemoProvider
    server: DemoMcpServer
    store: SQLiteStore


@asynccontextmanager
async def running_stage(data_dir: Path | None = None) -> AsyncIterator[Stage]:
    """Start the three servers (and stop them, whatever happens)."""
    data_dir = data_dir or default_data_dir()
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    keys, key_note = demo_keys(data_dir)
    store = SQLiteStore(data_dir / STORE_FILE)
    try:
        async with DemoAuthServer() as auth, DemoProvider() as calendar:
            server = DemoMcpServer(auth=auth, calendar=calendar, keys=keys, store=store)
            async with server:
                server.connect_calendar()
                yield Stage(data_dir, key_note, auth, calendar, server, store)
    finally:
        await store.close()
