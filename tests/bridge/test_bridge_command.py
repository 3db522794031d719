"""`elicitkit bridge` as a person meets it: what it prints, and its mistakes in one sentence."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bridge_harness import FASTMCP, HERE, PY, bridge_args, environment, http_process
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
    with http_process(
        command, log, port=port, env=environment(XDG_STATE_HOME=str(tmp_path / "state"))
    ) as url:
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


def sign_in_fails(tmp_path: Path, how: str) -> subprocess.CompletedProcess[str]:
    """The command in front of an upstream whose sign-in fails (`how`: a dead port, or "refuse")."""
    upstream = [PY, str(HERE / "upstream_unreachable_auth.py"), "PORT", how]
    with http_process(upstream, tmp_path / "upstream.log") as url:
        return subprocess.run(
            [PY, "-m", "elicitkit", "bridge", "--listen", f"127.0.0.1:{free_port()}", url],
            capture_output=True,
            text=True,
            timeout=120,
            env=environment(XDG_DATA_HOME=str(tmp_path / "data"), BROWSER="true"),
            check=False,
        )


def test_an_unreachable_authorization_server_is_named_in_one_sentence(tmp_path: Path) -> None:
    dead = free_port()
    done = sign_in_fails(tmp_path, str(dead))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("elicitkit bridge: could not reach ")
    assert f"http://127.0.0.1:{dead}" in lines[0] and "sign in" in lines[0]


def test_a_refused_sign_in_is_one_sentence_without_the_sdks_traceback(tmp_path: Path) -> None:
    done = sign_in_fails(tmp_path, "refuse")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "OAuth flow error" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused to register" in lines[0], done.stderr
