"""Tasks (2025-11-25): T-01, T-03 ... T-09 and T-40, from the tools the checker called as tasks
and its probes (T-02, a server that declared no tasks processing `task` normally, is not probed:
a client must not send it).

A tool whose `execution.taskSupport` is "required" is called as a task wherever the checker
calls it, one that is "optional" once more as a task; each task is polled with `tasks/get`
while its `tasks/result` waits, read once more after it ended and cancelled (which must be
refused). The probes: a required tool called without `task`, task ids nobody was given, and
(with both tokens) the first user's tasks asked for as the other user.
"""

from __future__ import annotations

from elicitkit.check._findings import Findings, Verdict
from elicitkit.check._observed import Observations, Poll, Reply, TaskRun
from elicitkit.check._wire import RELATED_TASK as RELATED
from elicitkit.check._wire import related_task

STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})
TERMINAL = frozenset({"completed", "failed", "cancelled"})
METHOD_NOT_FOUND, INVALID_REQUEST, INVALID_PARAMS = -32601, -32600, -32602
#: how long after an answer a task may still say input_required (its status is written after)
GRACE = 1.0


def judge(seen: Observations, findings: Findings) -> None:
    _declared(seen, findings)
    if seen.server_tasks is None:
        for rule in ("T-03", "T-04", "T-05", "T-06", "T-07", "T-08", "T-09"):
            findings.note(rule, "the server declared no `tasks` capability at 2025-11-25")
    else:
        _required(seen, findings)
        for run in seen.task_runs:
            _lifecycle(run, findings)
            _terminal(run, findings)
            _related(run, findings)
            _times(run, findings)
        _summaries(seen, findings)
        _probes(seen, findings)
    _capability(seen, findings)


def _required(seen: Observations, findings: Findings) -> None:
    """T-04: a tool whose taskSupport is "required", called without `task`, is refused with -32601."""
    for kind, reply in seen.task_probes:
        if kind != "without-task":
            continue
        code = reply.error.get("code") if reply.error is not None else None
        if code == METHOD_NOT_FOUND:
            findings.add("T-04", "pass", f"refused with -32601: {reply.quote()}")
        elif code == INVALID_REQUEST:
            findings.add(
                "T-04",
                "warn",
                "refused with -32600, which the spec's Error Handling allows (MAY), while its "
                f"Tool-Level Negotiation says -32601 (MUST): {reply.quote()}",
            )
        elif reply.error is not None:
            findings.add(
                "T-04", "fail", f"refused with {code}, not -32601 (Method not found): {reply.quote()}"
            )
        elif reply.result is None:
            findings.add("T-04", "warn", f"no reply in time: {reply.quote()}")
        elif reply.result.get("isError") is True:
            findings.add(
                "T-04",
                "warn",
                "refused as a tool result with isError, not as the JSON-RPC error -32601 the spec "
                f"names: {reply.quote()}",
            )
        else:
            findings.add(
                "T-04", "fail", f'a tool with taskSupport "required" ran without a task: {reply.quote()}'
            )
    findings.note("T-04", 'no tool declares execution.taskSupport "required"')


def _lifecycle(run: TaskRun, findings: Findings) -> None:
    """T-03: a CreateTaskResult that begins `working`, with its times; T-07: known statuses only,
    input_required while asked and out of it once answered."""
    created = run.created
    if created.error is not None:
        return  # refused as a call may be (bad arguments, say); the call's own rules read it
    if run.task_id is None:
        findings.add(
            "T-03",
            "fail",
            "a task-augmented tools/call on a tool that supports tasks got no CreateTaskResult "
            f"(no task.taskId): {created.quote()}",
        )
        return
    if created.status != "working":
        findings.add("T-03", "fail", f"the task began {created.status!r}, not 'working': {created.quote()}")
    task = (created.result or {}).get("task")
    missing = [key for key in ("createdAt", "lastUpdatedAt") if not (isinstance(task, dict) and key in task)]
    if missing:
        findings.add("T-03", "fail", f"the created task has no {' or '.join(missing)}: {created.quote()}")
    for poll in run.polls:
        status = poll.reply.status
        if poll.reply.result is not None and status not in STATUSES:
            findings.add("T-07", "fail", f"tasks/get gave the status {status!r}: {poll.reply.quote()}")
        elif poll.asking and status is not None and status != "input_required":
            findings.add(
                "T-07",
                "warn",
                f"the task said {status!r} while its question was open, not 'input_required' "
                f"(SHOULD): {poll.reply.quote()}",
            )
    if run.answered_at:
        late = run.answered_at[-1] + GRACE
        stuck = [p for p in run.polls if not p.asking and p.at > late and p.reply.status == "input_required"]
        if stuck:
            findings.add(
                "T-07",
                "warn",
                f"the task still said 'input_required' {stuck[0].at - run.answered_at[-1]:.1f} s after "
                f"its question was answered (SHOULD move out of it): {stuck[0].reply.quote()}",
            )


def _terminal(run: TaskRun, findings: Findings) -> None:
    """T-07: a task that ended stays as it ended; `tasks/cancel` on it is -32602."""
    replies: list[Reply] = [run.created, *(p.reply for p in sorted(run.polls, key=_when))]
    if run.after is not None:
        replies.append(run.after)
    ended: Reply | None = None
    for reply in replies:
        status = reply.status
        if ended is not None and status is not None and status != ended.status:
            findings.add(
                "T-07",
                "fail",
                f"the task was {ended.status!r} and then {status!r}: {ended.quote()}; later {reply.quote()}",
            )
            return
        if ended is None and status in TERMINAL:
            ended = reply
    after = run.after
    if ended is None and run.result is not None and after is not None and after.status not in TERMINAL:
        findings.add(
            "T-07",
            "fail",
            f"tasks/result answered, which it may only once the task ended, yet tasks/get then said "
            f"{after.status!r}: {run.result.quote()}; then {after.quote()}",
        )
        return
    cancel = run.cancel
    if cancel is None or ended is None:
        return
    code = cancel.error.get("code") if cancel.error is not None else None
    if cancel.result is not None:
        findings.add(
            "T-07", "fail", f"tasks/cancel on a task already {ended.status!r} was accepted: {cancel.quote()}"
        )
    elif code != INVALID_PARAMS:
        findings.add(
            "T-07",
            "fail",
            f"tasks/cancel on a task already {ended.status!r} gave {code}, not -32602: {cancel.quote()}",
        )


def _related(run: TaskRun, findings: Findings) -> None:
    """T-08: the task's questions, and its `tasks/result`, carry related-task with its id."""
    for asked in run.call.asked:
        if asked.source != "request":
            continue
        given = related_task(asked.params.get("_meta"))
        if given != run.task_id:
            said = "no" if given is None else f"the taskId {given!r} in its"
            findings.add(
                "T-08",
                "fail",
                f"a question of task {run.task_id!r} with {said} _meta[{RELATED!r}]: {asked.quote()}",
            )
    result = run.result.result if run.result is not None else None
    if result is not None and related_task(result.get("_meta")) != run.task_id:
        findings.add(
            "T-08",
            "fail",
            f"tasks/result of task {run.task_id!r} without _meta[{RELATED!r}] naming it: "
            f"{run.result.quote() if run.result else ''}",
        )


def _times(run: TaskRun, findings: Findings) -> None:
    """T-09: each `tasks/get` gives the task's actual `ttl` (or null) and its two times."""
    for poll in run.polls:
        result = poll.reply.result
        missing = [
            key for key in ("ttl", "createdAt", "lastUpdatedAt") if result is not None and key not in result
        ]
        if missing:
            findings.add("T-09", "fail", f"tasks/get without {' or '.join(missing)}: {poll.reply.quote()}")
            return


def _summaries(seen: Observations, findings: Findings) -> None:
    runs = [r for r in seen.task_runs if r.task_id is not None]
    if not runs:
        for rule in ("T-03", "T-07", "T-08", "T-09"):
            findings.note(
                rule, 'no tool was called as a task (none says taskSupport "optional" or "required")'
            )
        return
    findings.add(
        "T-03", "pass", f"{len(runs)} CreateTaskResults, each 'working' with createdAt and lastUpdatedAt"
    )
    paths = "; ".join(sorted({_path(r) for r in runs}))
    ended = [r for r in runs if r.after is not None]
    tried = sum(1 for r in ended if r.cancel is not None)
    cancels = f", refused with -32602 when cancelled ({tried} tried)" if tried else ""
    findings.add(
        "T-07",
        "pass",
        f"{len(runs)} tasks moved only as the spec allows ({paths}); {len(ended)} read again after "
        f"they ended, unchanged{cancels}",
    )
    asked = [a for r in runs for a in r.call.asked if a.source == "request"]
    results = [r for r in runs if r.result is not None and r.result.result is not None]
    if asked or results:
        findings.add(
            "T-08",
            "pass",
            f"{len(asked)} questions of a task and {len(results)} tasks/result replies, each with "
            f"_meta[{RELATED!r}] naming its task",
        )
    polls = sum(len(r.polls) for r in runs)
    if polls:
        findings.add("T-09", "pass", f"{polls} tasks/get replies, each with ttl, createdAt and lastUpdatedAt")


def _declared(seen: Observations, findings: Findings) -> None:
    """T-01: a server whose tools run as tasks declares `tasks.requests.tools.call`."""
    requests = (seen.server_tasks or {}).get("requests")
    tools = requests.get("tools") if isinstance(requests, dict) else None
    declared = isinstance(tools, dict) and isinstance(tools.get("call"), dict)
    supports = {name: s for name, s in seen.task_support.items() if s in ("optional", "required")}
    for name, support in supports.items():
        if not declared:
            verdict: Verdict = "fail" if support == "required" else "warn"
            findings.add(
                "T-01",
                verdict,
                f"tool {name!r} says execution.taskSupport {support!r}, but the server declared no "
                "tasks.requests.tools.call, so no client may call it as a task",
            )
    if declared and supports:
        listed = ", ".join(f"{name} ({support})" for name, support in sorted(supports.items()))
        findings.add("T-01", "pass", f"tasks.requests.tools.call declared; tools that run as tasks: {listed}")
    findings.note("T-01", "no tool says execution.taskSupport 'optional' or 'required'")


def _probes(seen: Observations, findings: Findings) -> None:
    """T-05: an id nobody was given is -32602; T-06: so is another user's."""
    for rule, kind, what in (
        ("T-05", "unknown", "a task id nobody was given"),
        ("T-06", "other-user", "the first user's task, asked for by the other user,"),
    ):
        probes = [reply for k, reply in seen.task_probes if k == kind]
        for reply in probes:
            code = reply.error.get("code") if reply.error is not None else None
            if code == INVALID_PARAMS:
                continue
            if reply.result is not None:
                findings.add(rule, "fail", f"{what} was answered: {reply.quote()}")
            elif reply.error is None:
                findings.add(rule, "warn", f"{what} got no reply in time: {reply.quote()}")
            elif rule == "T-06":
                findings.add(rule, "warn", f"{what} was refused with {code}, not -32602: {reply.quote()}")
            else:
                findings.add(
                    rule, "fail", f"{what} gave {code}, not -32602 (Invalid params): {reply.quote()}"
                )
        if probes:
            methods = ", ".join(sorted({r.method for r in probes}))
            findings.add(rule, "pass", f"{what} is refused with -32602 ({methods})")
    findings.note("T-06", "needs --user-token and --other-token over HTTP, and a tool called as a task")


def _capability(seen: Observations, findings: Findings) -> None:
    """T-40: no task-augmented elicitation/create to a client that did not declare it (SHOULD)."""
    asked = [a for a in seen.asked if a.source == "request"]
    for a in asked:
        if "task" in a.params:
            findings.add(
                "T-40",
                "warn",
                "a task-augmented elicitation/create to a client that did not declare "
                f"tasks.requests.elicitation.create (SHOULD NOT): {a.quote()}",
            )
    if asked:
        findings.add(
            "T-40",
            "pass",
            f"{len(asked)} elicitation/create requests, none task-augmented (the checker never "
            "declares tasks.requests.elicitation.create)",
        )
    else:
        findings.note("T-40", "no elicitation/create was seen")


def _when(poll: Poll) -> float:
    return poll.at


def _path(run: TaskRun) -> str:
    """The statuses a task went through, each once in a row: "working -> input_required -> ..."."""
    seen: list[str] = []
    after = [run.after.status] if run.after is not None else []
    for status in [run.created.status, *(p.reply.status for p in sorted(run.polls, key=_when)), *after]:
        if status is not None and (not seen or seen[-1] != status):
            seen.append(status)
    return " -> ".join(seen)
