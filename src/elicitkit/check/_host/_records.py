"""What the audit keeps: each question as asked and what came of it, and what the host declared."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["answered", "error", "unanswered", "not-asked"]

MODERN = "2026-07-28"
"""The revision whose questions ride in input-required rounds."""

TERMINAL = ("completed", "failed", "cancelled")
"""A task's statuses that never change again (2025-11-25 tasks)."""


@dataclass
class Asked:
    """One question as asked and what came of it: the evidence a verdict quotes."""

    key: str
    protocol: str
    modes: tuple[str, ...]
    sent: dict[str, Any]
    outcome: Outcome = "unanswered"
    answer: dict[str, Any] | None = None
    detail: str = ""
    task: dict[str, Any] | None = None
    """A task question's evidence beyond the answer: what was created, the statuses seen, the replies."""

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data."""
        return {
            "key": self.key,
            "protocol": self.protocol,
            "modes": list(self.modes),
            "sent": self.sent,
            "outcome": self.outcome,
            "answer": self.answer,
            "detail": self.detail,
            "task": self.task,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Asked:
        """A record read back from `to_dict`'s data."""
        return cls(**{**data, "modes": tuple(data["modes"])})


@dataclass
class HostSeen:
    """Who the host said it is and what it declared (from the last tool call it made)."""

    name: str = ""
    protocol: str = ""
    declared: bool = False
    modes: tuple[str, ...] = ()
    tasks: bool = False
    """Whether it declared `tasks.requests.elicitation.create` (2025-11-25 tasks)."""
