"""The backend tests run against a real redis-server (tests/redis_server.py) and a real
PostgreSQL (tests/postgres_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from postgres_server import PostgresServer, postgres_server, shared_postgres
from redis_server import RedisServer, redis_server
from redis_topology import redis_cluster, sentinel_group, shared_sentinels

__all__ = [
    "PostgresServer",
    "RedisServer",
    "postgres_server",
    "redis_cluster",
    "redis_server",
    "sentinel_group",
    "shared_postgres",
    "shared_sentinels",
]
