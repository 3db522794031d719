"""`elicitkit client` on a real terminal when a task's question outlives the call that asked it.

The server asks as a task and its call returns before the person has answered: the question
keeps the screen and the keys, and the prompt comes back, with the call's result, once it is
answered (T-12). Before, the prompt took the terminal back under the question's screen, whose
keys then went nowhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.tmux_terminal import Terminal

ELICITKIT = Path(sys.executable).with_name("elicitkit")
SERVER = [sys.executable, str(Path(__file__).with_name("task_asker_stdio_server.py"))]


@pytest.mark.timeout(240)
def test_a_task_question_keeps_the_screen_after_its_call_returned() -> None:
    t = Terminal([str(ELICITKIT), "client", "--protocol", "2025-11-25", "--", *SERVER])
    try:
        t.wait_for("elicitkit>")
        t.type("call ask_later")
        t.keys("Enter")
        screen = t.wait_for("name ✱")
        assert "The server “task-asker (task " in screen
        t.type("Ada")
        t.keys("Enter")
        t.wait_for("Review your answers")
        t.keys("s")
        screen = t.wait_for("elicitkit>", after="result: asked, task ")
        task_id = screen.split("result: asked, task ")[1].split()[0]
        t.type("call answer")
        t.keys("Enter")
        screen = t.wait_for("elicitkit>", after="result: {")
        assert '"action": "accept", "content": {"name": "Ada"}' in screen.replace("\n", "")
        assert task_id in screen.split("call answer")[-1].replace("\n", "")
        t.type("quit")
        t.keys("Enter")
        assert "EXIT=0" in t.wait_for("EXIT=")
    finally:
        t.close()
