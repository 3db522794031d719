"""`elicitkit client` calls a tool that runs as a task (2025-11-25) as it calls any tool (T-20..T-25).

The reference "everything" server's `simulate-research-query` requires a task; with an
ambiguous topic its task asks a clarifying question on the `tasks/result` stream, answered here
from --answers, or by a person at the terminal whose screen names the task, while each new
status of the task is said. Ctrl-C in an interactive session cancels the task on the server
(tests/client/task_stdio_server.py logs what it got).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.tmux_pane import PATIENCE
from support.tmux_terminal import Terminal

ROOT = Path(__file__).parents[2]
ELICITKIT = Path(sys.executable).with_name("elicitkit")
EVERYTHING = [
    "node",
    str(ROOT / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
TASK_PEER = [sys.executable, str(ROOT / "tests" / "client" / "task_stdio_server.py")]


def test_the_research_tasks_question_is_answered_from_the_answers_file(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept", "content": {"interpretation": "comedy"}}]))
    call = ["--call", "simulate-research-query", "--args", json.dumps({"topic": "python", "ambiguous": True})]
    done = subprocess.run(
        [str(ELICITKIT), "client", *call, "--answers", str(answers), "--", *EVERYTHING],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "# Research Report: python (comedy)" in done.stdout, done.stdout
    said = " ".join(done.stderr.split())
    assert "Everything Reference Server, in its task simulate-research-query asks the script" in said, said
    assert "Waiting for Everything Reference Server's task simulate-research-query: working" in said, said
    assert "Traceback" not in done.stderr


@pytest.mark.timeout(240)
def test_a_person_at_the_terminal_answers_the_research_tasks_question() -> None:
    t = Terminal([str(ELICITKIT), "client", "--", *EVERYTHING])
    try:
        t.wait_for("elicitkit>", "simulate-research-query")
        t.type('call simulate-research-query {"topic": "python", "ambiguous": true}')
        t.keys("Enter")
        screen = t.wait_for("Monty Python comedy group", timeout=60)
        assert "The server “Everything Reference Server, in its task" in screen  # who asks, and which task
        assert "simulate-research-query” asks you to fill in a form" in screen
        assert "Waiting for Everything Reference Server's task simulate-research-query:" in screen
        t.keys("2", "Enter")  # Python snake species
        t.wait_for("Review your answers")
        t.keys("s")
        t.wait_for("elicitkit>", after="result: # Research Report: python (snake)", timeout=60)
        t.type("quit")
        t.keys("Enter")
        assert "EXIT=0" in t.wait_for("EXIT=")
    finally:
        t.close()


def _wait_for_line(path: Path, line: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not (path.exists() and line in path.read_text().splitlines()):
        got = path.read_text() if path.exists() else "(nothing)"
        assert time.monotonic() < deadline, f"{line} never reached the server: {got}"
        time.sleep(0.05)


@pytest.mark.timeout(240)
def test_ctrl_c_while_a_task_runs_cancels_the_task_on_the_server(tmp_path: Path) -> None:
    log = tmp_path / "received"
    t = Terminal([str(ELICITKIT), "client", "--", *TASK_PEER, "300", str(log)])
    try:
        t.wait_for("elicitkit>", "slow()")
        t.type("call slow")
        t.keys("Enter")
        _wait_for_line(log, "tasks/get")  # the task runs, and the client polls it
        t.keys("C-c")
        t.wait_for("Cancelled (Ctrl-C); the server was told to stop.")
        _wait_for_line(log, "tasks/cancel")
        t.wait_for("elicitkit>", after="the server was told to stop")
        t.type("quit")
        t.keys("Enter")
    finally:
        t.close()
