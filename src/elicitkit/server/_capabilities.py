"""Which elicitation modes the client declared for the request being handled (S-01, M-04).

mcp 2.3's `check_client_capability` only asks whether `elicitation` is present, not which
modes it names (python-sdk issue 2965), so the modes are read here from the capabilities the
SDK recorded: the `initialize` handshake on 2025-11-25, the request's
`_meta["io.modelcontextprotocol/clientCapabilities"]` on 2026-07-28.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from elicitkit.server._errors import ModeNotDeclaredError

Mode = Literal["form", "url"]


def declared_modes(ctx: Context[Any, Any]) -> frozenset[Mode]:
    """The modes this client may be asked in; `elicitation: {}` means form only (C-01)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return frozenset()
    modes: set[Mode] = set()
    if elicitation.form is not None:
        modes.add("form")
    if elicitation.url is not None:
        modes.add("url")
    return frozenset(modes) if modes else frozenset({"form"})


def require_mode(ctx: Context[Any, Any], mode: Mode) -> None:
    """Refuse, before anything is sent, to ask in a mode the client did not declare."""
    if mode not in declared_modes(ctx):
        raise ModeNotDeclaredError(mode)
