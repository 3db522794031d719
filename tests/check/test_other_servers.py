"""Servers written with the SDK's and FastMCP's own elicitation APIs: a full report, no crash.

The findings are the servers' own: the SDK (mcp 2.3) sends a URL-mode question to a client
that declared only forms, as its `check_client_capability` ignores the modes (python-sdk
issue 2965), which the checker must report as S-01, while the forms pass.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.check import RULES, Options, Target, run

SERVER = Path(__file__).with_name("sdk_style_servers.py")


async def report_on(kind: str) -> dict[str, tuple[str, str]]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), kind, str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        report = await run(Target(url=f"http://127.0.0.1:{port}/mcp"), Options(timeout=5))
    finally:
        stop(process)
    assert [f.id for f in report.findings.all()] == list(RULES)
    assert report.protocol_versions[0] == "2025-11-25"
    return {f.id: (f.verdict, f.evidence) for f in report.findings.all()}


async def test_a_server_on_the_sdk_alone() -> None:
    found = await report_on("sdk")
    for rule in ("S-02", "S-03", "S-10", "S-11", "S-12", "S-13", "S-20", "S-21", "S-23"):
        assert found[rule][0] == "pass", (rule, found[rule])
    verdict, evidence = found["S-01"]
    assert verdict == "fail" and "url-mode elicitation to a client that did not declare it" in evidence
    assert found["S-24"][0] in ("pass", "fail")  # -32042 is listed; on 2026-07-28 it does not exist
    assert "data.elicitations" not in found["S-24"][1]


async def test_a_fastmcp_server() -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp extra is not installed")
    found = await report_on("fastmcp")
    assert found["S-10"][0] == "pass" and found["S-13"][0] == "pass", found
    assert found["S-20"][0] == "not-observed"
