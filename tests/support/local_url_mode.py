"""A URL mode for one person on this machine, in memory: what the in-process server tests need."""

from __future__ import annotations

from typing import Any

from elicitkit.server import KeyRing, LocalBus, McpUsers, MemoryStore, UrlMode


def local_url_mode(**options: Any) -> tuple[UrlMode, LocalBus]:
    """A `UrlMode` (single-user local, a fresh key, `MemoryStore`) and its `LocalBus`;
    `options` (`ttl`, `max_pending_per_user`, ...) go to `UrlMode` as given."""
    bus = LocalBus()
    url_mode = UrlMode(
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        bus=bus,
        users=McpUsers.single_user_local(),
        **options,
    )
    return url_mode, bus
