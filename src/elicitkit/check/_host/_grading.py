"""The verdicts: what the host sent back (and did not), judged against the client rules.

A `fail` is a MUST broken with the answer that shows it: content on a decline, an accepted
answer the schema refuses, a declared mode declined unseen or never answered, a URL request in
an undeclared mode answered instead of refused, a 2026-07-28 round never retried. What only a
person can see (a warning shown, a value clamped) or what is a SHOULD is a `warn`, as in
`elicitkit check`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any

from elicitkit.check._findings import HOST_RULES, Findings
from elicitkit.check._host._battery import BATTERY, CLAMP_TRY, Question
from elicitkit.check._host._records import MODERN, TERMINAL, Asked, HostSeen
from elicitkit.schema import defaults, validate

_QUESTIONS = {q.key: q for q in BATTERY}
_NO_ANSWER = {"error": "came back an error", "not-asked": "not asked"}


def question_of(key: str) -> Question:
    """The battery question a record's key belongs to (a round's keys end in -1, -2)."""
    return _QUESTIONS.get(key) or _QUESTIONS[key.rpartition("-")[0]]


def shown(record: Asked, *, detail: bool = True) -> str:
    """A record as evidence: the question and what came back (and the audit's `detail` on it,
    unless the evidence says the same itself, as the schema's problems with an answer do)."""
    if record.answer is not None:
        back = f"came back {json.dumps(record.answer, ensure_ascii=False)}"
    else:
        back = _NO_ANSWER.get(record.outcome, "no answer came back")
    said = f" ({record.detail})" if record.detail and (detail or record.answer is None) else ""
    return f"{record.key}: {back}{said}"


def grade(records: Iterable[Asked], host: HostSeen) -> Findings:
    """Every verdict the records support, one per rule of `HOST_RULES`."""
    findings = Findings(HOST_RULES)
    records = list(records)
    asked = [r for r in records if r.outcome != "not-asked"]
    answered = [r for r in asked if r.outcome == "answered"]
    _responses(answered, findings)
    _validation(answered, findings)
    _defaults(answered, findings)
    _at_hand(answered, findings)
    _lookalike(answered, findings)
    _undeclared(asked, findings)
    _modes(asked, host, findings)
    _rounds(asked, host, findings)
    _task_question(next((r for r in records if r.key == "task-question"), None), findings)
    _task_tool(next((r for r in records if r.key == "task-tool"), None), findings)
    return findings


def _action(record: Asked) -> str:
    return str((record.answer or {}).get("action", ""))


def _content(record: Asked) -> Any:
    return (record.answer or {}).get("content")


def _problems(record: Asked) -> list[str]:
    """Why an accepted form answer breaks its schema (nothing for a good one)."""
    if record.answer is None:
        return [record.detail] if record.detail else []
    content = _content(record)
    if not isinstance(content, Mapping):
        return [f"content is {json.dumps(content)}, not an object"]
    return [p.message for p in validate(record.sent["requestedSchema"], content)]


def _responses(answered: list[Asked], findings: Findings) -> None:
    for record in answered:
        action, content = _action(record), _content(record)
        if action not in ("accept", "decline", "cancel"):
            findings.add("R-01", "fail", f"{shown(record)}: the action must be accept, decline or cancel")
        elif action != "accept" and content:
            findings.add("R-01", "fail", f"{shown(record)}: content came with a {action}")
        elif record.sent["mode"] == "url" and content:
            findings.add("R-01", "fail", f"{shown(record)}: a URL-mode answer carries no content")
        elif record.sent["mode"] == "form" and action == "accept" and (problems := _problems(record)):
            said = " ".join(problems)
            findings.add("R-01", "fail", f"{shown(record, detail=False)}: it breaks the schema: {said}")
        else:
            findings.add("R-01", "pass", f"{len(answered)} answers, content only on a valid form accept")


def _validation(answered: list[Asked], findings: Findings) -> None:
    forms = [r for r in answered if r.sent["mode"] == "form" and _action(r) == "accept"]
    for record in forms:
        if problems := _problems(record):
            said = " ".join(problems)
            findings.add("C-12", "warn", f"{shown(record, detail=False)}: sent unchecked: {said}")
        elif record.key == "bounds" and (_content(record) or {}).get("guests") == 100:
            findings.add(
                "C-12",
                "warn",
                f"{shown(record)}: Guests came back as its maximum, 100; the person was told to type "
                f"{CLAMP_TRY} and then 42: a host that clamps silently sends the bound",
            )
        else:
            findings.add("C-12", "pass", f"{len(forms)} accepted forms, each valid against its schema")
    if not forms:
        findings.note("C-12", "no form was accepted")


def _defaults(answered: list[Asked], findings: Findings) -> None:
    record = next((r for r in answered if r.key == "defaults" and _action(r) == "accept"), None)
    if record is None:
        findings.note("C-11", "the defaults question was not accepted")
        return
    wanted = defaults(record.sent["requestedSchema"])
    content = _content(record) or {}
    off = sorted(k for k in wanted if content.get(k) != wanted[k])
    if off:
        findings.add(
            "C-11", "warn", f"{shown(record)}: told to change nothing; not the defaults: {', '.join(off)}"
        )
    else:
        findings.add("C-11", "pass", f"{shown(record)}: every default came back unchanged")


def _at_hand(answered: list[Asked], findings: Findings) -> None:
    for record in answered:
        told = question_of(record.key).told
        if record.key in ("decline", "cancel"):
            if _action(record) == told:
                findings.add("C-30", "pass", f"{shown(record)}: {told} as told")
            else:
                findings.add("C-30", "warn", f"{shown(record)}: told to press {told.title()}; is it at hand?")
        elif record.key == "long-message" and (_content(record) or {}).get("saw_end") is False:
            findings.add("C-30", "warn", f"{shown(record)}: the person could not read the whole message")
    if not any(r.key in ("decline", "cancel") for r in answered):
        findings.note("C-30", "the decline and cancel questions were not answered")


def _lookalike(answered: list[Asked], findings: Findings) -> None:
    record = next((r for r in answered if r.key == "url-lookalike"), None)
    if record is None:
        findings.note(
            "C-23", "the look-alike URL was not asked (it is asked only of a host that declared URL mode)"
        )
    elif _action(record) == "accept":
        findings.add(
            "C-23", "warn", f"{shown(record)}: consent to open a look-alike domain, so no warning was shown"
        )
    else:
        findings.add("C-23", "pass", f"{shown(record)}: the look-alike domain was not opened")


def _undeclared(asked: list[Asked], findings: Findings) -> None:
    record = next((r for r in asked if r.key == "url-undeclared"), None)
    if record is None:
        findings.note("C-02", "asked only of a host that declared elicitation without URL mode (2025-11-25)")
    elif record.outcome == "error" and record.detail.startswith("error -32602"):
        findings.add("C-02", "pass", f"{shown(record)}")
    elif record.outcome == "error":
        findings.add("C-02", "warn", f"{shown(record)}: refused, but not with -32602 (invalid params)")
    elif record.outcome == "unanswered":
        findings.add("C-02", "fail", f"{shown(record)}: a request in an undeclared mode was left hanging")
    else:
        findings.add("C-02", "fail", f"{shown(record)}: a URL request in an undeclared mode was answered")


def _modes(asked: list[Asked], host: HostSeen, findings: Findings) -> None:
    if not host.declared:
        findings.note("C-01", "the host declared no elicitation capability, so nothing was asked")
        return
    failed, warned = [], []
    for mode in host.modes:
        mine = [r for r in asked if r.sent["mode"] == mode and r.key != "url-undeclared"]
        hanging = [r for r in mine if r.outcome == "unanswered"]
        errors = [r for r in mine if r.outcome == "error" and r.key != "task-question"]  # T-11's
        told = [r for r in mine if r.outcome == "answered" and question_of(r.key).told == "accept"]
        if mode == "url":
            told = [r for r in told if r.key == "url-consent"]
        refused = [r for r in told if _action(r) in ("decline", "cancel")]
        if hanging:
            failed.append(f"declared {mode} mode but never answered {shown(hanging[0])}")
        elif told and len(refused) == len(told):
            failed.append(
                f"declared {mode} mode but refused every question it was told to accept "
                f"({len(refused)} of {len(told)}), e.g. {shown(refused[0])}"
            )
        elif errors:
            warned.append(f"{mode}: a valid question got an error: {shown(errors[0])}")
        elif refused:
            warned.append(f"{mode}: refused what it was told to accept: {shown(refused[0])}")
    if failed:
        findings.add("C-01", "fail", "; ".join(failed))
    elif warned:
        findings.add("C-01", "warn", "; ".join(warned))
    elif any(r.outcome == "answered" for r in asked):
        findings.add("C-01", "pass", f"declared {', '.join(host.modes)}; every question was answered")


def _rounds(asked: list[Asked], host: HostSeen, findings: Findings) -> None:
    modern = [r for r in asked if r.protocol >= MODERN and r.sent["mode"] == "form"]
    if not modern:
        findings.note("M-01", f"the host spoke {host.protocol or 'no revision'}, not {MODERN}")
        return
    hanging = [r for r in modern if r.outcome == "unanswered"]
    if hanging:
        findings.add("M-01", "fail", f"a {MODERN} round never retried: {shown(hanging[0])}")
    else:
        findings.add("M-01", "pass", f"{len(modern)} input-required rounds, each answered and retried")


_RECEIVER = ("T-10", "T-11", "T-12", "T-13", "T-14", "T-15", "T-17", "T-18")
_REQUESTOR = ("T-20", "T-22", "T-23", "T-24")
_PATHS = {"working": {"input_required", *TERMINAL}, "input_required": {"working", *TERMINAL}}


def _task_question(record: Asked | None, findings: Findings) -> None:
    """T-10..T-18: the task-augmented question, as the host's task (or, undeclared, its plain answer)."""
    task = (record.task if record is not None else None) or {}
    if record is None or record.outcome == "not-asked" or not task:
        why = record.detail if record is not None and record.detail else "the question was not asked"
        for rule in _RECEIVER:
            findings.note(rule, f"task-question: {why}")
        return
    created = task.get("created")
    if not task.get("declared"):
        if created is not None:
            findings.add(
                "T-10", "fail", f"{shown(record)}: a CreateTaskResult from a host that did not declare tasks"
            )
            findings.add(
                "T-11", "fail", f"{shown(record)}: not declared, so it must answer as a plain question"
            )
        elif record.outcome == "answered" and "action" in (record.answer or {}):
            findings.add("T-11", "pass", f"{shown(record)}: not declared; answered as a plain question")
        else:
            findings.add(
                "T-11", "fail", f"{shown(record)}: not declared, so it must answer as a plain question"
            )
        for rule in _RECEIVER[2:]:
            findings.note(rule, "the host did not declare tasks.requests.elicitation.create")
        findings.note("T-10", "the host did not declare tasks.requests.elicitation.create")
        return
    findings.note("T-11", "the host declared tasks.requests.elicitation.create")
    if created is None:
        findings.add("T-10", "pass", "declared tasks.requests.elicitation.create")
        findings.add(
            "T-12", "fail", f"{shown(record)}: declared tasks for elicitation, yet no CreateTaskResult"
        )
        for rule in _RECEIVER[3:]:
            findings.note(rule, "no task was created")
        return
    findings.add("T-10", "pass", "declared tasks.requests.elicitation.create and answered with a task")
    _created(created, findings)
    _statuses(record, task, findings)
    _result(record, task, findings)
    for rule, key, what in (
        ("T-17", "cancel", "tasks/cancel of the ended task"),
        ("T-18", "unknown", "tasks/get of an unknown id"),
    ):
        reply = task.get(key)
        if reply is None:
            findings.note(rule, "the task never ended, so this was not tried")
        elif reply == "error -32602":
            findings.add(rule, "pass", f"{what}: {reply}")
        else:
            findings.add(rule, "fail", f"{what}: {reply}, not error -32602 (invalid params)")


def _created(created: dict[str, Any], findings: Findings) -> None:
    missing = [k for k in ("createdAt", "ttl") if k not in created]
    if created.get("status") != "working":
        findings.add(
            "T-12", "fail", f"the CreateTaskResult's task was {created.get('status')}; a task begins working"
        )
    elif missing:
        findings.add("T-12", "fail", f"the CreateTaskResult's task lacks {', '.join(missing)}")
    else:
        findings.add("T-12", "pass", "a CreateTaskResult at once: the task working, with createdAt and ttl")


def _statuses(record: Asked, task: dict[str, Any], findings: Findings) -> None:
    statuses: list[str] = task.get("statuses") or []
    path = " -> ".join(statuses)
    wrong = [f"{a} -> {b}" for a, b in pairwise(statuses) if b not in _PATHS.get(a, ())]
    if wrong:
        findings.add("T-13", "fail", f"statuses seen {path}: {wrong[0]} is not a path the spec allows")
    elif task.get("broke"):
        findings.add("T-13", "fail", f"statuses seen {path}; then {task['broke']}")
    elif not statuses or statuses[-1] not in TERMINAL:
        findings.note("T-13", f"statuses seen {path}; the task never ended")
    elif "input_required" in statuses:  # the path between, which polls may or may not catch, is not evidence
        findings.add("T-13", "pass", f"{statuses[0]}, input_required while asked, then {statuses[-1]}")
    else:
        findings.add("T-13", "pass", f"statuses seen {path} (answered before a poll saw input_required)")


def _result(record: Asked, task: dict[str, Any], findings: Findings) -> None:
    if record.outcome == "unanswered":
        findings.note("T-14", "tasks/result did not return before the audit's deadline")
        findings.note("T-15", "tasks/result did not return before the audit's deadline")
        return
    if record.outcome == "error" or "action" not in (record.answer or {}):
        findings.add("T-14", "fail", f"{shown(record)}: tasks/result must return the ElicitResult")
    else:
        findings.add("T-14", "pass", f"{shown(record)}")
    if task.get("related"):
        findings.add("T-15", "pass", "tasks/result carried related-task _meta naming the task")
    elif record.outcome == "answered":
        findings.add("T-15", "fail", "tasks/result carried no related-task _meta naming the task")
    if task.get("get_meta"):
        findings.add("T-15", "warn", "tasks/get carried related-task _meta, which it should not")


def _task_tool(record: Asked | None, findings: Findings) -> None:
    """T-20..T-24: how the host ran the tool whose `execution.taskSupport` is required."""
    task = (record.task if record is not None else None) or {}
    if record is None or not task:
        why = (
            record.detail if record is not None and record.detail else "the host did not call audit_task_tool"
        )
        for rule in _REQUESTOR:
            findings.note(rule, f"task-tool: {why}")
        return
    if not task.get("as_task"):
        findings.add(
            "T-20", "fail", f"task-tool: {record.detail}; a required task tool must be called as a task"
        )
        for rule in _REQUESTOR[1:]:
            findings.note(rule, "the tool was never called as a task")
        return
    plain = task.get("plain_calls") or 0
    if plain:
        findings.add(
            "T-20", "fail", f"task-tool: called as a task, and {plain} time(s) without task (-32601)"
        )
    else:
        findings.add("T-20", "pass", "task-tool: called as a task")
    gap, interval = task.get("shortest_gap_ms"), task.get("poll_interval_ms")
    if gap is not None and interval is not None and gap < 0.8 * interval:
        findings.add("T-22", "warn", f"tasks/get polled faster than the task's pollInterval of {interval} ms")
    else:
        findings.add("T-22", "pass", f"no tasks/get faster than the task's pollInterval of {interval} ms")
    if not task.get("results"):
        findings.add("T-23", "warn", f"task-tool: {record.detail}")
        findings.note("T-24", "the task's question never reached the host")
    elif record.outcome == "answered":
        findings.add("T-23", "pass", f"{shown(record)}: on tasks/result, and the tool's result read there")
        findings.add("T-24", "pass", f"{shown(record)}: the question tied to its task was answered")
    elif record.outcome == "error":
        findings.add("T-24", "fail", f"{shown(record)}: the question tied to its task was refused")
    else:
        findings.note("T-23", f"{shown(record)}")
        findings.note("T-24", f"{shown(record)}")
