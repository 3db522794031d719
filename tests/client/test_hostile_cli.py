"""Issue 12: `elicitkit client --call` against misbehaving servers: same gate, clean Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from client_http import serve
from client_servers import State, held_server
from hostile_servers import hostile_server, old_server

ELICITKIT = Path(sys.executable).with_name("elicitkit")

pytestmark = pytest.mark.timeout(90)


def start(url: str, tool: str, answers: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            str(ELICITKIT),
            "client",
            url,
            "--protocol",
            "2025-11-25",
            "--call",
            tool,
            "--answers",
            str(answers),
            *extra,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_while_waiting_for_a_completion_exits_130_without_a_traceback(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept"}]))
    with serve(held_server(State()).streamable_http_app()) as url:
        process = start(url, "connect_service", answers)
        assert process.stderr is not None
        seen = ""
        deadline = time.monotonic() + 30
        while "not opened" not in seen and time.monotonic() < deadline:
            seen += process.stderr.readline()
        assert "not opened: https://example.com/connect/conn-1" in seen
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 130, seen + err
    assert "Traceback" not in seen + err
    assert err.strip().endswith("Cancelled (Ctrl-C); nothing more was sent.")


def test_a_32042_storm_ends_the_cli_call_with_one_sentence(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept"}] * 200 + [{"wait": "retry"}] * 200))
    with serve(hostile_server().streamable_http_app()) as url:
        process = start(url, "storm", answers, "--wait", "0.05")
        _out, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    assert "Traceback" not in err
    assert "The call failed: Hostile Server asked for more than this client shows" in err
    # Consents and waiting screens share the default gate: at most `burst` (5) prompts in all.
    assert 1 <= err.count("asks the script to open a page") <= 5
    assert err.count("is asking too often") == 1


def test_the_default_protocol_falls_back_for_a_server_that_only_speaks_2025_11_25() -> None:
    with serve(old_server()) as url:
        done = subprocess.run(
            [str(ELICITKIT), "client", url, "--call", "hello"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello from 2025-11-25"
    assert "Connected to Old Server (2025-11-25)." in done.stderr
