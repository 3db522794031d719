"""The backend tests run against a real redis-server (tests/support/redis_server.py)."""

from __future__ import annotations

from support.redis_server import RedisServer, redis_server

__all__ = ["RedisServer", "redis_server"]
