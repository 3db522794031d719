"""A client that declares the elicitation capability a test chooses.

`mcp.Client` declares both form and url whenever it has an elicitation callback; the SDK's
public API has no way to declare less (docs/upstream.md), so a chosen capability goes through
`elicitkit._sdk.ExtendedClient`, the one module that may use the SDK's private hooks. No
capability at all is the public `mcp.Client` without a callback.
"""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp_types import ElicitationCapability

from elicitkit._sdk import ExtendedClient


def declaring(elicitation: dict[str, Any] | None, target: Any, **options: Any) -> Client:
    """A client of `target` that declares exactly `elicitation` (None: no elicitation capability,
    so no callback either: nothing may ask it)."""
    if elicitation is None:
        options.pop("elicitation_callback", None)
        return Client(target, **options)
    client = ExtendedClient(target, **options)
    client.elicitation_capability = ElicitationCapability.model_validate(elicitation)
    return client
