"""The token tests run against a real, independent OAuth server (tests/oidc_peer.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))
