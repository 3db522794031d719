"""`elicitkit client` on a real terminal, asked by the reference "everything" server as a task.

`trigger-elicitation-request-async` sends its question as a task (T-10..T-19): the screen names
the task beside the server, and the person dismisses the question with Ctrl-C: the task ends
`completed` with the answer "cancel", as a plain request's would, and the server's own report,
the call's result, says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.tmux_terminal import Terminal

ELICITKIT = Path(sys.executable).with_name("elicitkit")
INDEX = (
    Path(__file__).parents[2]
    / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)


@pytest.mark.timeout(240)
def test_the_person_sees_which_task_asks_and_cancels_it() -> None:
    t = Terminal([str(ELICITKIT), "client", "--", "node", str(INDEX), "stdio"])
    try:
        t.wait_for("elicitkit>")
        t.type("call trigger-elicitation-request-async")
        t.keys("Enter")
        screen = t.wait_for("Your Name")
        assert "The server “Everything Reference Server (task " in screen
        assert "Please provide inputs for the following fields (async task demo):" in screen
        t.keys("C-c")
        screen = t.wait_for("elicitkit>", after="[CANCELLED]")
        task_id = screen.split("Task created: ")[1].split()[0]
        assert f"(task {task_id[:8]})” asks you to fill in" in screen
        assert "result: [CANCELLED] User cancelled the elicitation dialog." in screen
        assert "Poll 1: completed" in screen
        t.type("quit")
        t.keys("Enter")
        assert "EXIT=0" in t.wait_for("EXIT=")
    finally:
        t.close()
