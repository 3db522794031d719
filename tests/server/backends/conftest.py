"""The backend tests run against a real redis-server (tests/support/redis_server.py) and a real
PostgreSQL (tests/support/postgres_server.py)."""

from __future__ import annotations

from support.postgres_server import PostgresServer, postgres_server, shared_postgres
from support.redis_server import RedisServer, redis_server
from support.redis_topology import redis_cluster, sentinel_group, shared_sentinels

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
