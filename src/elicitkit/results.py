"""What a form question can come back as: accepted with a typed value, declined, or cancelled (R-01).

A small tagged union, so a tool can `match` on it and a type checker knows the cases are all
covered. Errors (no capability, a bad answer, a timeout) are exceptions, never outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, Literal, TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Accepted(Generic[T]):
    """The person submitted the form; `value` passed strict validation."""

    value: T
    action: ClassVar[Literal["accept"]] = "accept"


@dataclass(frozen=True, slots=True)
class Declined:
    """The person explicitly said no."""

    action: ClassVar[Literal["decline"]] = "decline"


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The person dismissed the question without choosing."""

    action: ClassVar[Literal["cancel"]] = "cancel"


FormOutcome: TypeAlias = Accepted[T] | Declined | Cancelled
"""`FormOutcome[Model]`: exactly one of the three."""
