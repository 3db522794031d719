"""The host audit's task questions (2025-11-25 tasks, docs/hosts.md): a task-augmented question,
followed as a requestor follows it, and a tool that runs only as a task. A host that declared
tasks for elicitation and gets them right passes T-10..T-18; one that did not declare them must
answer the question as a plain one (T-11); planted hosts break one rule each and get its `fail`."""

from __future__ import annotations

import pytest
from support.host_drivers import ElicitkitHost, PlantedTaskCaller, PlantedTaskHost, SdkHost, TsSdkHost

from elicitkit.check import HostReport, audit_host

pytestmark = pytest.mark.timeout(120)

RECEIVER = ("T-10", "T-12", "T-13", "T-14", "T-15", "T-17", "T-18")
REQUESTOR = ("T-20", "T-22", "T-23", "T-24")


def verdicts(report: HostReport) -> dict[str, str]:
    return {f.id: f.verdict for f in report.findings.all()}


def evidence(report: HostReport, rule: str) -> str:
    return next(f.evidence for f in report.findings.all() if f.id == rule)


async def test_elicitkit_client_runs_the_question_as_a_task_and_calls_the_task_tool_as_one() -> None:
    report = await audit_host(ElicitkitHost("legacy"), deadline=40)
    got = verdicts(report)
    assert report.seen.tasks and "declares form, url, tasks" in report.summary()
    assert {got[rule] for rule in (*RECEIVER, *REQUESTOR)} == {"pass"}, report.to_text()
    assert got["T-11"] == "not-observed"
    assert evidence(report, "T-13") == "working, input_required while asked, then completed"
    assert '{"action": "accept", "content": {"note": "answered in a task"}}' in evidence(report, "T-14")
    assert "fail" not in got.values() and "warn" not in got.values(), report.to_text()


async def test_a_host_without_the_capability_answers_the_task_question_as_a_plain_one() -> None:
    report = await audit_host(SdkHost("mcp.Client", mode="legacy"), deadline=30)
    got = verdicts(report)
    assert not report.seen.tasks
    assert got["T-11"] == "pass", report.to_text()
    assert "answered as a plain question" in evidence(report, "T-11")
    assert {got[rule] for rule in RECEIVER} == {"not-observed"}


async def test_the_sdk_client_calls_the_required_task_tool_plainly_and_fails_t20() -> None:
    report = await audit_host(SdkHost("mcp.Client", mode="legacy"), deadline=30)
    assert verdicts(report)["T-20"] == "fail"
    assert "called without task, so the task wire refused it (-32601)" in evidence(report, "T-20")


async def test_the_typescript_v1_client_refuses_an_undeclared_task_question_and_fails_t11() -> None:
    report = await audit_host(TsSdkHost(1), deadline=40)
    got = verdicts(report)
    assert got["T-11"] == "fail", report.to_text()
    assert "error -32603" in evidence(report, "T-11")
    assert {got[rule] for rule in REQUESTOR} == {"pass"}  # its task API runs the task tool
    assert got["C-01"] == "pass"  # the refusal is T-11's, not a declared mode's


async def test_a_correct_planted_task_host_gets_no_fail() -> None:
    report = await audit_host(PlantedTaskHost(), deadline=20)
    got = verdicts(report)
    assert {got[rule] for rule in RECEIVER} == {"pass"}, report.to_text()
    assert "fail" not in got.values(), report.to_text()


async def test_a_host_that_declares_tasks_but_never_answers_its_task_fails_c01() -> None:
    report = await audit_host(PlantedTaskHost("never"), deadline=8)
    got = verdicts(report)
    assert got["C-01"] == "fail", report.to_text()
    assert "task-question: no answer came back" in evidence(report, "C-01")
    assert "the task stayed input_required" in evidence(report, "C-01")
    assert got["T-10"] == "pass" and got["T-12"] == "pass"
    assert got["T-14"] == "not-observed"


@pytest.mark.parametrize(
    ("fault", "rule", "said"),
    [
        ("plain", "T-12", "declared tasks for elicitation, yet no CreateTaskResult"),
        ("no-meta", "T-15", "tasks/result carried no related-task _meta naming the task"),
        ("cancel-ok", "T-17", "tasks/cancel of the ended task: answered, not error -32602"),
        ("unknown-ok", "T-18", "tasks/get of an unknown id: answered, not error -32602"),
    ],
)
async def test_a_planted_task_host_breaking_one_rule_fails_it(fault: str, rule: str, said: str) -> None:
    report = await audit_host(PlantedTaskHost(fault), deadline=20)
    got = verdicts(report)
    assert got[rule] == "fail", report.to_text()
    assert said in evidence(report, rule)
    assert [r for r, v in got.items() if v == "fail"] == [rule]


async def test_the_task_questions_are_asked_on_2025_11_25_only() -> None:
    report = await audit_host(ElicitkitHost("auto"), deadline=30)
    got = verdicts(report)
    assert report.seen.protocol == "2026-07-28"
    assert {got[rule] for rule in (*RECEIVER, "T-11", *REQUESTOR)} == {"not-observed"}
    assert "asked on 2025-11-25 only" in evidence(report, "T-20")


async def test_over_stdio_the_task_questions_are_asked_and_followed_too() -> None:
    report = await audit_host(ElicitkitHost("legacy"), transport="stdio", deadline=40)
    got = verdicts(report)
    assert {got[rule] for rule in (*RECEIVER, *REQUESTOR)} == {"pass"}, report.to_text()


async def test_a_host_that_calls_the_task_tool_as_a_task_and_reads_its_result_passes() -> None:
    report = await audit_host(PlantedTaskCaller(), deadline=20)
    got = verdicts(report)
    assert {got[rule] for rule in REQUESTOR} == {"pass"}, report.to_text()


async def test_a_host_that_never_reads_the_tasks_result_is_warned_on_t23() -> None:
    report = await audit_host(PlantedTaskCaller(reads_result=False), deadline=20)
    got = verdicts(report)
    assert got["T-20"] == "pass" and got["T-23"] == "warn", report.to_text()
    assert "never called tasks/result" in evidence(report, "T-23")
    assert got["C-01"] != "fail"  # the question never reached it: not a declared mode left hanging


async def test_a_host_that_polls_faster_than_the_poll_interval_is_warned_on_t22() -> None:
    report = await audit_host(PlantedTaskCaller(gap=0.05, polls=6), deadline=20)
    got = verdicts(report)
    assert got["T-22"] == "warn", report.to_text()
    assert "faster than the task's pollInterval of 500 ms" in evidence(report, "T-22")
    assert got["T-23"] == "pass"


async def test_the_html_report_shows_what_the_task_went_through() -> None:
    page = (await audit_host(PlantedTaskHost(), deadline=20)).to_html()
    assert "<p>The task</p>" in page
    assert "&quot;statuses&quot;: [\n    &quot;working&quot;,\n    &quot;completed&quot;\n  ]" in page
    assert "&quot;unknown&quot;: &quot;error -32602&quot;" in page
