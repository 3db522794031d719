"""Ctrl-C in the middle of a 2026-07-28 URL round: the process exits at once and tells the server.

A real process tree: `elicitkit client --call` (the terminal client, scripted answers) runs the
weather server of tests/server/url over stdio, at 2026-07-28, with its pages on a loopback
listener. alice accepts the consent (the "browser" is `true`), never finishes the page, and
presses Ctrl-C while the call waits. The CLI's exit status for Ctrl-C (130) is the CLI's own
rule (elicitkit/cli/client.py); what this test adds is that the wait ends promptly and the
server's record is closed as cancelled, so the tool saw it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from elicitkit.server._vault import KeyRing

ELICITKIT = Path(sys.executable).with_name("elicitkit")
HARNESS = Path(__file__).parents[1] / "support" / "url_harness.py"


def states(db: Path) -> list[str]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as connection:
        try:
            return [row[0] for row in connection.execute("SELECT state FROM records")]
        except sqlite3.OperationalError:  # not created yet
            return []


def test_ctrl_c_while_waiting_for_the_page_exits_130_and_cancels_the_record(tmp_path: Path) -> None:
    db = tmp_path / "url-mode.sqlite3"
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept"}]))
    env = {**os.environ, "BROWSER": "true"}
    keys = f"ELICITKIT_VAULT_KEYS={KeyRing.generate('k1')}"  # the SDK passes stdio servers a bare env
    command = ["--call", "forecast", "--args", '{"city": "Oslo"}', "--answers", str(answers)]
    command += ["--protocol", "2026-07-28", "--modes", "url"]
    command += ["--", "env", keys, sys.executable, str(HARNESS), "--stdio", "--db", str(db)]
    process = subprocess.Popen(
        [str(ELICITKIT), "client", *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as on a terminal
    )
    try:
        deadline = time.monotonic() + 60
        while states(db) != ["pending"]:  # asked, consented, the page not finished: waiting
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the URL elicitation was never asked"
            time.sleep(0.2)
        time.sleep(1.5)  # a few rounds go by
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert time.monotonic() - started < 10, "Ctrl-C did not end the wait promptly"
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err, err
    assert states(db) == ["cancelled"], "the server was not told, so the tool never saw the cancel"
