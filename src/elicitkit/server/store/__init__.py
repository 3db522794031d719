"""Where pending elicitations live: the `Store` protocol, `MemoryStore`, and the SQLite, Redis
and PostgreSQL backends beside them (imported on first use: each needs its extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elicitkit.extras import lazy_names
from elicitkit.server.store._base import (
    ACTIVE,
    TERMINAL,
    BlobStore,
    CounterStore,
    LockStore,
    MemoryStore,
    OnceStore,
    Record,
    RecordStore,
    State,
    Store,
    holding,
    new_elicitation_id,
)

if TYPE_CHECKING:
    from elicitkit.server.store._postgres import POSTGRES_CHANNEL, PostgresStore, import_asyncpg
    from elicitkit.server.store._redis import (
        COMPLETIONS_CHANNEL,
        RedisStore,
        cluster_gate,
        shard_channel,
        shard_channels,
    )
    from elicitkit.server.store._sqlite import SQLiteStore

__all__ = [
    "ACTIVE",
    "COMPLETIONS_CHANNEL",
    "POSTGRES_CHANNEL",
    "TERMINAL",
    "BlobStore",
    "CounterStore",
    "LockStore",
    "MemoryStore",
    "OnceStore",
    "PostgresStore",
    "Record",
    "RecordStore",
    "RedisStore",
    "SQLiteStore",
    "State",
    "Store",
    "cluster_gate",
    "holding",
    "import_asyncpg",
    "new_elicitation_id",
    "shard_channel",
    "shard_channels",
]

_OPTIONAL = {
    "POSTGRES_CHANNEL": ("elicitkit.server.store._postgres", "postgres"),
    "PostgresStore": ("elicitkit.server.store._postgres", "postgres"),
    "import_asyncpg": ("elicitkit.server.store._postgres", "postgres"),
    "cluster_gate": ("elicitkit.server.store._redis", "redis"),
    "shard_channel": ("elicitkit.server.store._redis", "redis"),
    "shard_channels": ("elicitkit.server.store._redis", "redis"),
    "COMPLETIONS_CHANNEL": ("elicitkit.server.store._redis", "redis"),
    "RedisStore": ("elicitkit.server.store._redis", "redis"),
    "SQLiteStore": ("elicitkit.server.store._sqlite", "sqlite"),
}


__getattr__, __dir__ = lazy_names(__name__, _OPTIONAL)
