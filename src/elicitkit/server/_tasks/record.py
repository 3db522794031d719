"""One task as the store keeps it, and the status machine it moves through.

A task is the durable state of one task-augmented request: who made it (the verified user, the
binding every read checks), what it runs (the request's params, so any replica can run it
again), where it stands, the questions it has open and the answers already given (keyed by the
question's identity, so a run from the top replays them), and, once it ends, its outcome.

Statuses move only along the 2025-11-25 paths (`working` <-> `input_required`, either to a
terminal status, never out of one); `moved` refuses anything else, so no caller can break it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from elicitkit.server._errors import ElicitationError
from elicitkit.server._user import User

__all__ = ["TERMINAL_STATUSES", "TaskRecord", "TaskStatus", "iso"]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL_STATUSES: frozenset[TaskStatus] = frozenset({"completed", "failed", "cancelled"})
_PATHS: dict[TaskStatus, frozenset[TaskStatus]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}


def iso(timestamp: float) -> str:
    """An ISO 8601 UTC timestamp, as the task wire wants `createdAt` and `lastUpdatedAt`."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class TaskRecord:
    """A task where it stands now (what `Tasks` reads and writes; a wire renders it).

    `questions` are the open ones, by key: `{"q": digest, "request": params as sent, "t": asked at}`;
    `answers` the given ones: `{"q": digest, "r": the client's result}`. `outcome` is
    `{"result": wire result}` or `{"error": {"code", "message", "data"}}` once the run ended.
    `runner` and `seen_at` say which process runs it and when it last said so (see `Tasks`).
    """

    id: str
    user: User
    client_id: str
    tool: str
    request: dict[str, Any]
    created_at: float
    updated_at: float
    ttl: float
    poll_interval: float
    slot: str
    status: TaskStatus = "working"
    status_message: str | None = None
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    outcome: dict[str, Any] | None = None
    runner: str | None = None
    seen_at: float = 0.0
    runs: int = 0
    version: int = 0

    @property
    def expires_at(self) -> float:
        """When the task and its result may be deleted: `ttl` seconds after creation."""
        return self.created_at + self.ttl

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (`completed`, `failed`, `cancelled`): it never moves again."""
        return self.status in TERMINAL_STATUSES

    def moved(self, status: TaskStatus, *, now: float, message: str | None = None) -> TaskRecord:
        """This task in `status`, or itself when already there; an invalid path raises."""
        if status == self.status:
            return replace(self, status_message=message) if message != self.status_message else self
        if status not in _PATHS.get(self.status, frozenset()):
            raise ElicitationError(f"A task cannot move from {self.status!r} to {status!r}.")
        return replace(self, status=status, status_message=message, updated_at=now)

    def dumps(self) -> bytes:
        """The record as JSON bytes (sealed by `Tasks` before it reaches the store)."""
        data = asdict(self)
        data["user"] = [self.user.issuer, self.user.subject]
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def loads(cls, raw: bytes) -> TaskRecord:
        """A record from `dumps`' bytes."""
        data = json.loads(raw)
        issuer, subject = data.pop("user")
        return cls(user=User(issuer=issuer, subject=subject), **data)
