"""`elicitkit client` and the reference "everything" server's task-augmented question (T-10..T-19).

`trigger-elicitation-request-async` is listed only to a client that declares
`tasks.requests.elicitation.create`; the command declares it, answers the question the server
asks as a task from --answers, and the server's own report (its polls of the client's
`tasks/get`, the `tasks/result` it read) is the command's output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).parents[2]
ELICITKIT = Path(sys.executable).with_name("elicitkit")
INDEX = ROOT / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TOOL = "trigger-elicitation-request-async"


def call(answers: list[dict[str, object]], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    command = [str(ELICITKIT), "client", "--call", TOOL, "--answers", str(path), "--", "node", str(INDEX)]
    return subprocess.run(
        [*command, "stdio"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90
    )


def test_the_async_question_answered_from_the_answers_file(tmp_path: Path) -> None:
    done = call([{"action": "accept", "content": {"name": "Ada", "favoriteColor": "Red"}}], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[COMPLETED] User provided the requested information!")
    assert "- Name: Ada" in done.stdout and "- Favorite Color: Red" in done.stdout
    task_id = done.stdout.split("Task created: ")[1].split()[0]
    assert f'"taskId": "{task_id}"' in done.stdout  # tasks/result's related-task _meta
    assert (
        f"Everything Reference Server (task {task_id[:8]})  asks the script to fill in a form" in done.stderr
    )


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("decline", "[DECLINED] User declined to provide the requested information."),
        ("cancel", "[CANCELLED] User cancelled the elicitation dialog."),
    ],
)
def test_the_async_question_declined_or_cancelled_from_the_answers_file(
    action: str, said: str, tmp_path: Path
) -> None:
    done = call([{"action": action}], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(said)
