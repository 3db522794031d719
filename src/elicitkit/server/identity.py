"""Deprecated: `User`, `Caller`, `McpIdentity` are in `elicitkit.server.user`, the browser
identities in `elicitkit.server.web.identity`. This alias goes away in the next release."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_MOVED = {
    "LOCAL_ISSUER": "elicitkit.server.user",
    "Caller": "elicitkit.server.user",
    "McpIdentity": "elicitkit.server.user",
    "User": "elicitkit.server.user",
    "user_from_token": "elicitkit.server.user",
    "BrowserIdentity": "elicitkit.server.web.identity",
    "HookIdentity": "elicitkit.server.web.identity",
    "IdentityHook": "elicitkit.server.web.identity",
    "LocalUserIdentity": "elicitkit.server.web.identity",
}


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"elicitkit.server.identity is deprecated: import {name} from {_MOVED[name]} "
        "(or from elicitkit.server).",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(_MOVED[name]), name)
