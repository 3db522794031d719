"""The client side's errors, each with a sentence saying what happened; all are `ElicitationError`.

What a caller of a held tool call can meet (C-21), what a framework adapter raises to refuse
a request, and what the terminal UI raises where no person can type."""

from __future__ import annotations

from elicitkit.errors import ElicitationError

__all__ = [
    "ElicitationCancelledError",
    "ElicitationDeclinedError",
    "ElicitationError",
    "ElicitationLoopError",
    "ElicitationProtocolError",
    "ElicitationRateLimitedError",
    "ElicitationRefusedError",
    "NotATerminalError",
    "ToolTaskCancelledError",
]


class ElicitationDeclinedError(ElicitationError):
    """The person did not consent to a URL the server needs (or it was blocked); the call was not retried."""


class ElicitationCancelledError(ElicitationError):
    """The person stopped waiting for a URL elicitation to complete; the call was not retried."""


class ElicitationLoopError(ElicitationError):
    """The server asked again for elicitations that had already completed: retrying would never end."""


class ElicitationRateLimitedError(ElicitationError):
    """The server asked for more prompts than the client's rate limit allows; the call was stopped."""


class ElicitationProtocolError(ElicitationError):
    """The server sent data that breaks the protocol: a -32042 list or a result (a tool's, a
    2026-07-28 round's) with wrong types, missing fields or too many entries."""


class ElicitationRefusedError(ElicitationError):
    """An `elicitation/create` this client refuses (undeclared mode, bad schema, no `elicitationId`).

    Raised inside FastMCP's handler so that FastMCP answers the server with an error: FastMCP
    wraps anything that is not an `ElicitResult` as an accept, so an `ErrorData` must never be
    returned to it. The server sees JSON-RPC -32603 with this message (FastMCP cannot send -32602).
    """


class NotATerminalError(ElicitationError, RuntimeError):
    """`TerminalUI` was started where no person can type: stdin or stdout is not a terminal."""


class ToolTaskCancelledError(ElicitationError):
    """A tool called as a task (2025-11-25) ended without its result: the server cancelled the
    task, or the call's `task_timeout` ran out and the client cancelled it on the server."""
