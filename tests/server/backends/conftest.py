"""The backend tests run against a real redis-server (tests/redis_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from redis_server import RedisServer, redis_server

__all__ = ["RedisServer", "redis_server"]
