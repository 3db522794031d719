"""`elicitkit check --host` as a person runs it: Streamable HTTP on the port they chose, the
report when they press Ctrl-C (table, JSON and HTML), and one-sentence usage errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.host_drivers import ElicitkitHost, SdkHost
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.check import HostEndpoint
from elicitkit.check._host import TOOLS

ELICITKIT = Path(sys.executable).with_name("elicitkit")


async def test_the_http_audit_on_a_chosen_port_reports_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    command = [str(ELICITKIT), "check", "--host", "--http", "--port", str(port), "--deadline", "60"]
    command += ["--json", str(tmp_path / "host.json"), "--html", str(tmp_path / "host.html")]
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        wide = {**os.environ, "COLUMNS": "240"}  # one table row on one line
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=wide)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        wait_until_serving(process, url, log)
        await ElicitkitHost("legacy")(HostEndpoint(url, None, TOOLS, time.monotonic() + 60))
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    finally:
        stop(process)
    assert process.returncode == 0, log.read_text()
    assert f"http://127.0.0.1:{port}/mcp" in log.read_text()  # the address to add to the host
    table = " ".join(out.decode().split())
    assert "C-23 │ a look-alike domain is warned about or refused │ pass" in table, table
    data = json.loads((tmp_path / "host.json").read_text())
    assert data["protocol"] == "2025-11-25" and data["elicitation"] == ["form", "url"]
    assert {f["verdict"] for f in data["findings"]} == {"pass", "not-observed"}
    assert "<h1>Host audit:" in (tmp_path / "host.html").read_text()


async def test_a_failing_host_makes_the_stdio_audit_exit_1() -> None:
    from elicitkit.check import audit_host

    async def declines(context: object, params: object) -> object:
        from mcp_types import ElicitResult

        return ElicitResult(action="decline")

    report = await audit_host(SdkHost("declines", callback=declines), transport="stdio", deadline=30)
    assert report.findings.failed()


def test_a_server_given_with_host_is_refused_in_one_sentence() -> None:
    command = [str(ELICITKIT), "check", "--host", "http://127.0.0.1:9/mcp"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    said = " ".join(done.stderr.replace("│", " ").split())
    assert "--host audits a host, so it takes no server: leave out the URL or command." in said, said
    assert "Traceback" not in done.stderr


def test_a_busy_port_is_named_and_exits_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(ELICITKIT), "check", "--host", "--http", "--port", str(port), "--deadline", "5"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert f"Cannot listen on 127.0.0.1:{port}" in said and "Traceback" not in done.stderr, said
