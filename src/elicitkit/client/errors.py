"""What a caller of a held tool call can meet (C-21), each with a sentence saying what happened."""

from __future__ import annotations

from elicitkit.errors import ElicitationError

__all__ = [
    "ElicitationCancelledError",
    "ElicitationDeclinedError",
    "ElicitationError",
    "ElicitationLoopError",
    "ElicitationProtocolError",
    "ElicitationRateLimitedError",
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
