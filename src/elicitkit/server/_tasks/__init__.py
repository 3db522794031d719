"""Tasks (MCP 2025-11-25, experimental): a tool call that runs in the background and asks the
person as it goes, its state in elicitkit's store. `tasks.py` is the core (no wire), `record.py`
a task and its status machine, `wire.py` the 2025-11-25 methods on an `MCPServer`, `extension.py`
the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) on the SDK's `Extension` API."""

from __future__ import annotations

from elicitkit.server._tasks.extension import TASKS_EXTENSION, TasksExtension
from elicitkit.server._tasks.record import TERMINAL_STATUSES, TaskRecord, TaskStatus, iso
from elicitkit.server._tasks.tasks import (
    Resume,
    Runner,
    TaskRun,
    Tasks,
    TaskSupport,
    TerminalTaskError,
    UnknownTaskError,
    current_run,
)
from elicitkit.server._tasks.wire import RELATED_TASK, TASKS_VERSION, TasksMiddleware, serve_tasks, task_wire

__all__ = [
    "RELATED_TASK",
    "TASKS_EXTENSION",
    "TASKS_VERSION",
    "TERMINAL_STATUSES",
    "Resume",
    "Runner",
    "TaskRecord",
    "TaskRun",
    "TaskStatus",
    "TaskSupport",
    "Tasks",
    "TasksExtension",
    "TasksMiddleware",
    "TerminalTaskError",
    "UnknownTaskError",
    "current_run",
    "iso",
    "serve_tasks",
    "task_wire",
]
