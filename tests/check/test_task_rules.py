"""`elicitkit check` on a server's tasks (2025-11-25): T-01, T-03 ... T-09 and T-40.

Each faulty task server (tests/check/faulty_task_server.py, a real process on the raw SDK over
streamable HTTP on 127.0.0.1) breaks one task rule: the checker fails that rule and nothing
else when it is a MUST, and only warns for a SHOULD. The reference "everything" server's
`simulate-research-query` (task required, asks when its topic is ambiguous) is checked as a
task, its question answered through `tasks/result`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.check import Options, Report, Target, run

HERE = Path(__file__).parent
SERVER = HERE / "faulty_task_server.py"
EVERYTHING = HERE.parent / "peers" / "everything"
ELICITKIT = Path(sys.executable).with_name("elicitkit")
COMMAND = [str(ELICITKIT), "check", "--timeout", "5", "--json", "-"]
TASK_RULES = ["T-01", "T-03", "T-04", "T-05", "T-06", "T-07", "T-08", "T-09", "T-40"]

#: the broken MUST, and words its evidence must show
FAILS = {
    "T-01": "tool 'research' says execution.taskSupport 'required', but the server declared no",
    "T-03": "the task began 'input_required', not 'working'",
    "T-04": 'a tool with taskSupport "required" ran without a task',
    "T-05": "a task id nobody was given gave -32603, not -32602",
    "T-06": "the first user's task, asked for by the other user, was answered",
    "T-07": "tasks/cancel on a task already 'completed' was accepted",
    "T-07-flip": "tasks/result answered, which it may only once the task ended, yet tasks/get then said",
    "T-08": "with no _meta['io.modelcontextprotocol/related-task']",
    "T-09": "tasks/get without ttl",
}
#: a broken SHOULD: a warning with its evidence, never a failure
WARNINGS = {
    "T-07-asking": "the task said 'working' while its question was open, not 'input_required' (SHOULD)",
    "T-07-stuck": "still said 'input_required'",
    "T-40": "a task-augmented elicitation/create to a client that did not declare tasks.requests.elicitation",
}


@contextmanager
def serving(command: list[str], port: int, cwd: Path = HERE) -> Iterator[str]:
    env = {**os.environ, "PORT": str(port)}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def faulty(rule: str) -> contextlib.AbstractContextManager[str]:
    port = free_port()
    return serving([sys.executable, str(SERVER), rule, str(port)], port)


async def check(rule: str) -> tuple[dict[str, str], dict[str, str]]:
    """Check the server breaking `rule` as alice, with bob's token for T-06: (verdicts, evidence)."""
    with faulty(rule) as url:
        report: Report = await run(
            Target(url=url, token="alice-token"), Options(timeout=5, other_token="bob-token")
        )
    findings = report.findings.all()
    return {f.id: f.verdict for f in findings}, {f.id: f.evidence for f in findings}


@pytest.mark.parametrize("rule", sorted(FAILS))
async def test_the_broken_task_rule_fails_and_nothing_else(rule: str) -> None:
    seen, evidence = await check(rule)
    failed = sorted(r for r, v in seen.items() if v == "fail")
    assert failed == [rule[:4]], {r: evidence[r] for r in failed}
    assert FAILS[rule] in evidence[rule[:4]], evidence[rule[:4]]
    assert "warn" not in seen.values(), {r: evidence[r] for r, v in seen.items() if v == "warn"}


@pytest.mark.parametrize("rule", sorted(WARNINGS))
async def test_a_broken_task_should_is_a_warning_never_a_failure(rule: str) -> None:
    seen, evidence = await check(rule)
    assert "fail" not in seen.values(), {r: evidence[r] for r, v in seen.items() if v == "fail"}
    assert sorted(r for r, v in seen.items() if v == "warn") == [rule[:4]], evidence
    assert WARNINGS[rule] in evidence[rule[:4]], evidence[rule[:4]]


async def test_the_well_behaved_task_server_passes_every_task_rule() -> None:
    seen, evidence = await check("good")
    assert {r: seen[r] for r in TASK_RULES} == dict.fromkeys(TASK_RULES, "pass"), evidence
    assert "fail" not in seen.values() and "warn" not in seen.values(), evidence
    # the question came through tasks/result, in input_required, and the task went on once answered
    assert "working -> input_required -> working -> completed" in evidence["T-07"], evidence["T-07"]
    assert "refused with -32602 (tasks/get, tasks/result)" in evidence["T-06"], evidence["T-06"]


async def test_a_tasks_question_on_the_standalone_stream_is_the_tasks_and_is_answered() -> None:
    """The tasks page lets a server side-channel a task's messages on any SSE stream: tied to the
    task by its `_meta`, such a question is not a loose one (S-02) and gets the task's answer."""
    seen, evidence = await check("side-channel")
    assert "fail" not in seen.values() and "warn" not in seen.values(), evidence
    assert seen["S-02"] == "pass" and seen["T-08"] == "pass", evidence
    assert "working -> input_required -> working -> completed" in evidence["T-07"], evidence["T-07"]


async def test_without_a_second_token_another_users_tasks_are_not_observed() -> None:
    with faulty("T-06") as url:
        report = await run(Target(url=url, token="alice-token"), Options(timeout=5))
    finding = {f.id: f for f in report.findings.all()}["T-06"]
    assert finding.verdict == "not-observed" and "--other-token" in finding.evidence, finding


@pytest.mark.timeout(300)
def test_the_reference_everything_servers_research_task_and_its_question() -> None:
    """`simulate-research-query` is task-required; with an ambiguous topic it asks through its task."""
    with serving(["node", "serve_http.mjs"], free_port(), EVERYTHING) as url:
        done = subprocess.run(
            [
                *COMMAND,
                "--tool",
                "simulate-research-query",
                "--args",
                '{"topic": "python", "ambiguous": true}',
                url,
            ],
            capture_output=True,
            text=True,
            timeout=280,
        )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    found = {f["id"]: (f["verdict"], f["evidence"]) for f in json.loads(done.stdout)["findings"]}
    for rule in ("T-01", "T-03", "T-05", "T-07", "T-08", "T-09", "T-40"):
        assert found[rule][0] == "pass", (rule, found[rule])
    # asked through tasks/result, while input_required, and working again once answered
    assert "working -> input_required -> working -> completed" in found["T-07"][1], found["T-07"]
    assert "questions of a task" in found["T-08"][1] and not found["T-08"][1].startswith("0 "), found["T-08"]
    # it refuses the call without `task` as a tool result whose text names -32601, not the error
    verdict, evidence = found["T-04"]
    assert verdict == "warn" and "refused as a tool result with isError" in evidence, evidence
    # its question is asked inside the call (tasks/result) in a declared mode... except S-01:
    # it sends its form to a client that declared URL mode only, as its other tools do
    assert found["S-02"][0] == "pass", found["S-02"]
    assert found["S-01"][0] == "fail" and "url)" in found["S-01"][1], found["S-01"]


async def test_elicitkits_own_task_server_passes_every_task_rule() -> None:
    """elicitkit's task wire (tests/support/task_server.py): a form question asked through a task,
    a failing task, and a URL-mode `Secret` in a task-required tool nobody finishes."""
    from support.task_server import serving as task_server

    tools: dict[str, dict[str, object] | None] = {
        "book": {"city": "Paris"},
        "fail": None,
        "pay": {"amount": 3},
    }
    async with task_server() as (_, url):
        report = await run(Target(url=url, token="alice"), Options(timeout=3, other_token="bob", tools=tools))
    seen = {f.id: f.verdict for f in report.findings.all()}
    evidence = {f.id: f.evidence for f in report.findings.all()}
    assert {r: seen[r] for r in TASK_RULES} == dict.fromkeys(TASK_RULES, "pass"), evidence
    assert "fail" not in seen.values() and "warn" not in seen.values(), evidence
    assert "working -> input_required" in evidence["T-07"], evidence["T-07"]
