"""A 2025-11-25 server whose tools run as tasks, written as bare JSON-RPC lines over stdio.

No SDK here does a task server's side, so this one is written out by hand, to say exactly what
goes on the wire. Its tools:

- `research` (taskSupport "required"): its task is `working` for three polls, then
  `input_required`. Before answering the first `tasks/get` it asks a question tagged with its
  task (no `tasks/result` is open yet: the client must refuse it); on `tasks/result` it asks one
  tagged with a task that is not the client's, one with no tag, and then its real question,
  tagged with its task; the result reports the reply to each, and the time of each `tasks/get`.
- `optional`, `forbidden`, `unsaid` (taskSupport "optional", "forbidden", none): each says
  whether it was called as a task.
- `slow` (taskSupport "required"): its task works until cancelled; `tasks/list` shows it.
- `told` (taskSupport "required"): its task suggests polling every 5 s, and at once sends
  `notifications/tasks/status` saying it is `input_required`; on `tasks/result` it asks, and
  its result says how many seconds after its creation `tasks/result` came.
- `broken` (taskSupport "required"): answers the task-augmented call with a task whose id is
  a number, which breaks the protocol.

    python tests/client/task_stdio_server.py [POLL_MS [LOG [endless]]]

With LOG (not "-"), the method of each request it receives is appended to that file, a line
each. With "endless", every `tools/list` page names a next one.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

POLL_MS = int(sys.argv[1]) if len(sys.argv) > 1 else 300
LOG = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
ENDLESS = sys.argv[3:] == ["endless"]
RELATED = "io.modelcontextprotocol/related-task"
QUESTION = {
    "type": "object",
    "properties": {"topic": {"type": "string", "title": "Which topic?"}},
    "required": ["topic"],
}
TOOLS = [
    {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "slow", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "told", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "broken", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "optional", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
    {"name": "forbidden", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
    {"name": "unsaid", "inputSchema": {"type": "object"}},
]

tasks: dict[str, dict[str, Any]] = {}
pending: list[dict[str, Any]] = []  # messages read while waiting for a reply
next_id = 0


def now() -> str:
    return datetime.now(UTC).isoformat()


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def read() -> dict[str, Any] | None:
    if pending:
        return pending.pop(0)
    line = sys.stdin.readline()
    if not line:
        return None
    message: dict[str, Any] = json.loads(line)
    if LOG and "method" in message and "id" in message:
        with open(LOG, "a") as log:
            log.write(f"{message['method']}\n")
    return message


def ask(task_id: str | None) -> Any:
    """Send an `elicitation/create` (tagged with `task_id` when given); the client's reply."""
    global next_id
    next_id += 1
    params: dict[str, Any] = {"message": "Which topic do you mean?", "requestedSchema": QUESTION}
    if task_id is not None:
        params["_meta"] = {RELATED: {"taskId": task_id}}
    send({"id": f"s-{next_id}", "method": "elicitation/create", "params": params})
    held: list[dict[str, Any]] = []
    while True:
        message = read()
        if message is None:
            sys.exit(0)
        if message.get("id") == f"s-{next_id}" and "method" not in message:
            pending[:0] = held
            return message.get("result", {}).get("action") or message.get("error", {}).get("code")
        if message.get("method") == "tasks/get":  # the client keeps polling while it answers
            handle(message)
        else:
            held.append(message)


def task_view(task: dict[str, Any]) -> dict[str, Any]:
    keys = ("taskId", "status", "createdAt", "lastUpdatedAt", "ttl", "pollInterval")
    return {k: task[k] for k in keys if k in task}


def result_text(text: str, task_id: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if task_id is not None:
        result["_meta"] = {RELATED: {"taskId": task_id}}
    return result


def handle(message: dict[str, Any]) -> None:
    method, params, rid = message.get("method"), message.get("params") or {}, message.get("id")
    if rid is None:
        return  # a notification
    if method == "initialize":
        capabilities = {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
        info = {"name": "task-peer", "title": "Task Peer", "version": "1"}
        send(
            {
                "id": rid,
                "result": {"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": info},
            }
        )
    elif method == "tools/list":
        send({"id": rid, "result": {"tools": TOOLS, **({"nextCursor": "more"} if ENDLESS else {})}})
    elif method == "tools/call":
        name, as_task = params["name"], "task" in params
        if not as_task:
            send({"id": rid, "result": result_text(f"{name}: plain")})
            return
        if name == "broken":
            send({"id": rid, "result": {"task": {"taskId": 7, "status": "working"}}})
            return
        task_id = str(uuid.uuid4())
        task = {
            "taskId": task_id,
            "status": "completed" if name not in ("research", "slow", "told") else "working",
            "createdAt": now(),
            "lastUpdatedAt": now(),
            "ttl": params["task"].get("ttl") or 60000,
            "pollInterval": 5000 if name == "told" else POLL_MS,
            "created": time.monotonic(),
            "tool": name,
            "gets": [],
            "replies": {},
        }
        tasks[task_id] = task
        send({"id": rid, "result": {"task": task_view(task)}})
        if name == "told":
            task["status"] = "input_required"
            send({"method": "notifications/tasks/status", "params": task_view(task)})
    elif method == "tasks/get":
        task = tasks.get(params.get("taskId", ""))
        if task is None:
            send({"id": rid, "error": {"code": -32602, "message": "Failed to retrieve task: Task not found"}})
            return
        task["gets"].append(time.monotonic())
        if task["tool"] == "research" and task["status"] == "working":
            if len(task["gets"]) == 1:
                task["replies"]["before tasks/result"] = ask(task["taskId"])
            if len(task["gets"]) >= 3:
                task["status"] = "input_required"
        send({"id": rid, "result": task_view(task)})
    elif method == "tasks/result":
        task = tasks[params["taskId"]]
        if task["tool"] == "research":
            task["replies"]["a stranger's task"] = ask("not-a-task-of-yours")
            task["replies"]["no task named"] = ask(None)
            task["replies"]["its own task"] = ask(task["taskId"])
            task["status"] = "completed"
            gaps = [round(b - a, 3) for a, b in zip(task["gets"], task["gets"][1:], strict=False)]
            report = {"replies": task["replies"], "gaps": gaps}
            send({"id": rid, "result": result_text(json.dumps(report), task["taskId"])})
        elif task["tool"] == "told":
            after = round(time.monotonic() - task["created"], 3)
            reply = ask(task["taskId"])
            task["status"] = "completed"
            told = json.dumps({"after": after, "reply": reply})
            send({"id": rid, "result": result_text(told, task["taskId"])})
        else:
            send({"id": rid, "result": result_text(f"{task['tool']}: task", task["taskId"])})
    elif method == "tasks/cancel":
        task = tasks.get(params.get("taskId", ""))
        if task is None or task["status"] in ("completed", "failed", "cancelled"):
            send({"id": rid, "error": {"code": -32602, "message": "Cannot cancel task"}})
            return
        task["status"] = "cancelled"
        send({"id": rid, "result": task_view(task)})
    elif method == "tasks/list":
        send({"id": rid, "result": {"tasks": [task_view(t) for t in tasks.values()]}})
    elif method == "ping":
        send({"id": rid, "result": {}})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main() -> None:
    while (message := read()) is not None:
        handle(message)


if __name__ == "__main__":
    main()
