"""`elicitkit demo` played unattended: the transcript, the checks, the exit status."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import ConnectMode
from typer.testing import CliRunner

from elicitkit.cli import app
from elicitkit.demo import steps
from elicitkit.demo._wire import WireLog
from elicitkit.demo.provider import DEMO_EVENTS
from elicitkit.demo.story import STEPS, Story

ELICITKIT = Path(sys.executable).with_name("elicitkit")


def run_demo(data_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ELICITKIT_VAULT_KEYS"}
    return subprocess.run(
        [str(ELICITKIT), "demo", "--data-dir", str(data_dir), *extra],
        stdin=subprocess.DEVNULL,  # not a terminal: the story plays by itself
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )


def test_without_a_terminal_it_plays_every_step_and_exits_0(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_demo(tmp_path / "data")
    elapsed = time.monotonic() - started
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert elapsed < 60
    assert len(STEPS) == 10
    for number, step in enumerate(STEPS, 1):
        assert f"[{number}/10] {step.title}" in out
    assert "All 10 steps behaved as expected" in out
    assert "✗" not in out
    # what a person would see, step by step
    for seen in [
        "Demo Assistant  asks alice to fill in a form:",
        "Seating                  one of: Indoors, by the window | On the terrace | At the bar, required",
        "Dietary needs            any of: vegetarian, vegan, gluten-free, nut allergy",
        'Note for the restaurant  text, default "No special requests"',
        "does not send that: 'party_size' must be at most 12, not 40",
        "alice  declines: nothing is sent.",
        "alice  cancels: nothing is sent.",
        "asks alice to open a page in the browser:",
        "^^^^^^^^^  site: 127.0.0.1 (no warnings)",
        '"Sign in to Demo Sign-in"',
        '"Demo Weather API key"',
        "the call is held (error -32042)",
        "notice  Demo Assistant: an elicitation completed.",
        '"This link is not for you" (HTTP 403)',
        '"Sign in to Demo Calendar"',
        '"Connected"',
        "alice's Demo Calendar: Dentist",
    ]:
        assert seen in out, seen
    # the last step: the same form, asked in a tool result on a 2026-07-28 connection
    first, last = out.split("[8/10] The same tool on a 2026-07-28 connection")
    assert "connects to Demo Assistant (MCP 2025-11-25)" in first
    for seen in [
        "taking the newest revision both speak: MCP 2026-07-28.",
        "✓ the second connection is at MCP 2026-07-28",
        "Demo Assistant  returns its question inside the tool result (resultType input_required, "
        "with a sealed requestState) instead of sending an elicitation/create request.",
        "Demo Assistant  asks alice to fill in a form:",
        "calls book_table again, with alice's answers (inputResponses) and the requestState it got "
        "back, sealed by the server, returned unread",
        "result  Booked Chez Elicit on ",
        "✓ on the wire: no elicitation/create request; the question came in an input_required result, "
        "and the call made again with the answers completed",
        "✓ the same booking confirmation as in step 1",
    ]:
        assert seen in last, seen
    assert "returns its question inside the tool result" not in first  # 2025-11-25 asks by request
    # steps 9 and 10: the URL flows on 2026-07-28, each URL asked once, one consent screen each
    for number, tool in [(9, "check_weather"), (10, "list_events")]:
        step = last.split(f"[{number}/10]")[1].split(f"[{number + 1}/10]")[0]
        assert f"calls {tool} again, with alice's answers (inputResponses)" in step, step
        assert step.count("asks alice to open a page in the browser:") == 1, step
        assert "✓ on the wire: the URL came once, inside a tool result" in step, step
        assert "✓ alice saw one consent screen for the URL" in step, step
        assert "error -32042" not in step, step
    # the secrets typed on the pages never show up in the transcript
    assert "demo-weather-123" not in out and "demo-messenger-456" not in out


def test_the_vault_key_is_generated_once_and_kept_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = run_demo(data, "--script")
    assert first.returncode == 0, first.stdout + first.stderr
    key = data / "vault.key"
    assert "so one was generated and kept in" in first.stdout and str(key) in first.stdout
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert (data / "demo.sqlite3").exists()
    written = key.read_text()
    second = run_demo(data, "--script")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "kept from an earlier run" in second.stdout
    assert key.read_text() == written


def test_a_step_that_misbehaves_fails_the_demo_with_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(DEMO_EVENTS, "alice", [])  # Demo Calendar lost alice's events
    monkeypatch.delenv("ELICITKIT_VAULT_KEYS", raising=False)
    result = CliRunner().invoke(app, ["demo", "--script", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert (
        "Step 7 (A third-party OAuth connection) failed: the tool did not list alice's events"
        in result.output
    )
    assert "[6/10] A phishing attempt, refused" in result.output
    assert "[8/10]" not in result.output  # the story stops at the first step that did not behave
    assert "steps behaved as expected" not in result.output


def _legacy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection of the story at 2025-11-25, the last step's included."""
    connect = Story.connect

    def legacy(self: Story, mode: ConnectMode, *, wire: WireLog | None = None) -> Any:
        return connect(self, "legacy", wire=wire)

    monkeypatch.setattr(Story, "connect", legacy)
    monkeypatch.delenv("ELICITKIT_VAULT_KEYS", raising=False)


def test_the_last_step_fails_on_a_connection_that_is_not_2026_07_28(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _legacy_only(monkeypatch)
    result = CliRunner().invoke(app, ["demo", "--script", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert (
        "Step 8 (The same tool on a 2026-07-28 connection) failed: the second connection is at "
        "MCP 2025-11-25, not 2026-07-28" in result.output
    )
    assert "Traceback" not in result.output


def test_the_last_step_fails_when_the_question_comes_as_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wire check alone: expecting 2025-11-25, the question arrives as elicitation/create."""
    _legacy_only(monkeypatch)
    monkeypatch.setattr(steps, "ROUNDS_VERSION", "2025-11-25")
    result = CliRunner().invoke(app, ["demo", "--script", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "result  Booked Chez Elicit on " in result.output.split("[8/10]")[1]
    assert (
        "Step 8 (The same tool on a 2026-07-28 connection) failed: the question did not come in the "
        "tool result; on the wire: 1 elicitation/create request(s) from the server; tool results: "
        "complete; 0 call(s) made again with answers" in result.output
    )


def test_ctrl_c_stops_everything_cleanly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ELICITKIT_VAULT_KEYS"}
    process = subprocess.Popen(
        [str(ELICITKIT), "demo", "--script", "--data-dir", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as on a terminal
    )
    assert process.stdout is not None
    seen = ""
    while "[4/10]" not in seen:  # interrupt in the middle of a URL-mode step
        line = process.stdout.readline()
        assert line, seen
        seen += line
    process.send_signal(signal.SIGINT)
    rest, errors = process.communicate(timeout=20)
    assert process.returncode == 130
    assert "Stopped. Every demo server was shut down." in rest
    assert "steps behaved" not in rest
    assert errors.strip() == ""  # no traceback, no error logged on the way out


def test_a_configured_vault_key_is_used_and_none_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elicitkit.server._vault import KeyRing

    monkeypatch.setenv("ELICITKIT_VAULT_KEYS", KeyRing.generate("configured"))
    result = CliRunner().invoke(app, ["demo", "--script", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Vault key: from ELICITKIT_VAULT_KEYS." in result.output
    assert not (tmp_path / "vault.key").exists()
