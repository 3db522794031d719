"""What an elicitation comes back as, on both sides: accepted with its data, declined, or cancelled.

One set of names for one concept, the SDK's (`mcp.server.elicitation`): a client's UI returns
one of these for the person's answer, and a server's tool gets one back (R-01). On the server
`data` is the answer after strict validation, typed as the tool asked; on the client it is the
form's content as the person gave it, or None when a URL-mode consent carries none. A small
tagged union, so a tool can `match` on it and a type checker knows the cases are all covered.
Errors (no capability, a bad answer, a timeout) are exceptions, never results.

A URL flow (`Secret.get`, `OAuthConnection.token`) raises `UrlElicitationNotCompletedError` on
a decline instead, because a form returns the person's answer, "no" included, while a URL flow
returns a value the tool needs (a secret, a token), and a "no" must stop the tool rather than
pass for that value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeAlias, TypeVar, overload

__all__ = ["AcceptedElicitation", "CancelledElicitation", "DeclinedElicitation", "ElicitationResult"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True, slots=True, init=False)
class AcceptedElicitation(Generic[T_co]):
    """The person accepted; `data` is what they gave (nothing, for a URL-mode consent)."""

    data: T_co
    action: ClassVar[Literal["accept"]] = "accept"

    @overload
    def __init__(self: AcceptedElicitation[None]) -> None: ...
    @overload
    def __init__(self, data: T_co) -> None: ...
    def __init__(self, data: Any = None) -> None:
        object.__setattr__(self, "data", data)


@dataclass(frozen=True, slots=True)
class DeclinedElicitation:
    """The person explicitly said no."""

    action: ClassVar[Literal["decline"]] = "decline"


@dataclass(frozen=True, slots=True)
class CancelledElicitation:
    """The person dismissed the question without choosing."""

    action: ClassVar[Literal["cancel"]] = "cancel"


ElicitationResult: TypeAlias = AcceptedElicitation[T] | DeclinedElicitation | CancelledElicitation
"""`ElicitationResult[Model]`: exactly one of the three."""
