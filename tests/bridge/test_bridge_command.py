"""`elicitkit bridge` as a person meets it: what it prints, and its mistakes in one sentence."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bridge_harness import FASTMCP, PY, bridge_args, environment, http_process
from support.server_process import free_port


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "elicitkit", "bridge", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(),
        check=False,
    )


def test_listen_prints_the_url_it_serves(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "bridge.log"
    command = [PY, *bridge_args([*FASTMCP, "stdio"], "auto", "--listen", f"127.0.0.1:{port}")]
    with http_process(command, log, port=port) as url:
        assert url == f"http://127.0.0.1:{port}/mcp"
    assert f"serving MCP at http://127.0.0.1:{port}/mcp" in log.read_text()


def test_the_terminal_ui_is_refused_over_stdio() -> None:
    done = run("--answer", "terminal", "--", *FASTMCP, "stdio")
    assert done.returncode == 2
    assert "terminal of the bridge's own" in done.stderr


def test_an_unknown_answer_setting_says_the_choices() -> None:
    done = run("--answer", "robot", "http://127.0.0.1:9/mcp")
    assert done.returncode == 2 and "host, browser, terminal, auto" in done.stderr


def test_a_command_without_dashes_is_not_run() -> None:
    done = run("touch", str(Path("/tmp/elicitkit-bridge-never")))
    assert done.returncode == 2 and "after --" in done.stderr
    assert not Path("/tmp/elicitkit-bridge-never").exists()


def test_an_unreachable_server_is_one_sentence() -> None:
    done = run("--listen", f"127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 1
    assert done.stderr.startswith("elicitkit bridge: ") and "Traceback" not in done.stderr
