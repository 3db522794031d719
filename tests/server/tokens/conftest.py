"""The token tests run against a real, independent OAuth server (tests/support/oidc_peer.py)."""

from __future__ import annotations
