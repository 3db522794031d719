"""`elicitkit check` against stock servers nobody wrote for it: its `fail` must always be right.

The reference "everything" server (@modelcontextprotocol/server-everything, tests/peers/everything)
over stdio and over streamable HTTP, and a server on the stock TypeScript SDK v1
(tests/check/ts_sdk_server.mjs). Each verdict is explained in docs/check.md; this pins them, so a
checker change that turns a hint or a SHOULD into a `fail` (or hides a real one) is seen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

HERE = Path(__file__).parent
EVERYTHING = HERE.parent / "peers" / "everything"
EVERYTHING_STDIO = [
    "node",
    str(EVERYTHING / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"),
    "stdio",
]
ELICITKIT = Path(sys.executable).with_name("elicitkit")


def check(*target: str) -> tuple[int, dict[str, tuple[str, str]]]:
    done = subprocess.run(
        [str(ELICITKIT), "check", "--timeout", "5", "--json", "-", *target],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    report = json.loads(done.stdout)
    return done.returncode, {f["id"]: (f["verdict"], f["evidence"]) for f in report["findings"]}


@contextmanager
def serving(command: list[str], port: int, cwd: Path) -> Iterator[str]:
    env = {**os.environ, "PORT": str(port)}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def failed(found: dict[str, tuple[str, str]]) -> list[str]:
    return sorted(rule for rule, (verdict, _) in found.items() if verdict == "fail")


def assert_the_everything_verdicts(code: int, found: dict[str, tuple[str, str]]) -> None:
    # S-01 is real: its tools are registered when the client declares `elicitation` at all,
    # and `trigger-elicitation-request` sends a form to a client that declared URL mode only.
    assert failed(found) == ["S-01"], found
    assert "did not declare it" in found["S-01"][1] and "url)" in found["S-01"][1]
    assert code == 1
    # "(do not give us your phone number, pin, or other sensitive info)": a word match, a warn
    verdict, evidence = found["S-11"]
    assert verdict == "warn" and "a word match, not proof" in evidence and "pin" in evidence, evidence
    # it echoes an invalid answer back as accepted: S-13 is a SHOULD, so a warn with the evidence
    verdict, evidence = found["S-13"]
    assert verdict == "warn" and "went on as if it were valid" in evidence, evidence
    for rule in ("S-02", "S-03", "S-10", "S-12", "S-20", "S-21"):
        assert found[rule][0] == "pass", (rule, found[rule])
    # tasks: `simulate-research-query` (task required) is called as one; called without `task` it
    # is refused as a tool result whose text names -32601, not as the JSON-RPC error: a warn
    verdict, evidence = found["T-04"]
    assert verdict == "warn" and "refused as a tool result with isError" in evidence, evidence
    for rule in ("T-01", "T-03", "T-05", "T-07", "T-08", "T-09", "T-40"):
        assert found[rule][0] == "pass", (rule, found[rule])
    assert found["T-06"][0] == "not-observed", found["T-06"]


def test_the_reference_everything_server_over_stdio() -> None:
    code, found = check("--", *EVERYTHING_STDIO)
    assert_the_everything_verdicts(code, found)


def test_the_reference_everything_server_over_streamable_http() -> None:
    port = free_port()
    with serving(["node", "serve_http.mjs"], port, EVERYTHING) as url:
        code, found = check(url)
    assert_the_everything_verdicts(code, found)


@pytest.mark.timeout(300)
def test_a_typescript_sdk_server() -> None:
    port = free_port()
    with serving(["node", str(HERE / "ts_sdk_server.mjs"), str(port)], port, HERE) as url:
        code, found = check(url)
    assert code == 1
    assert failed(found) == ["S-01", "S-02"], found
    # `extra.sendRequest` asks without looking at the client's declared modes
    assert "tool 'book'" in found["S-01"][1] and "did not declare it" in found["S-01"][1]
    # `server.server.elicitInput` ties the question to no request: it comes on the standalone stream
    assert "standalone GET stream" in found["S-02"][1]
    # the answer is returned as it came: a SHOULD, so a warn
    assert found["S-13"][0] == "warn" and '"city":12345' in found["S-13"][1], found["S-13"]
    for rule in ("S-03", "S-10", "S-11", "S-12"):
        assert found[rule][0] == "pass", (rule, found[rule])
