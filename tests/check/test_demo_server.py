"""`elicitkit check` against elicitkit's own demo server: forms, URL mode, -32042, OAuth, no failure.

The demo runs as in `scripts/demo` (its authorization server, Demo Calendar and the MCP
server, on 127.0.0.1); the checker connects with alice's token, and with `--browser` opens
the URLs in headless Chromium, once as alice's browser and once with bob's token.
"""

from __future__ import annotations

from pathlib import Path

from elicitkit.check import Options, Target, run
from elicitkit.demo.stage import running_stage


async def test_the_demo_server_has_no_failure(tmp_path: Path) -> None:
    async with running_stage(tmp_path) as stage:
        alice = (await stage.auth.token_for("alice", resource=stage.server.mcp_url)).access_token
        bob = (await stage.auth.token_for("bob", resource=stage.server.mcp_url)).access_token
        options = Options(timeout=3, other_token=bob, browser=True)
        report = await run(Target(url=stage.server.mcp_url, token=alice), options)
    verdicts = {f.id: f.verdict for f in report.findings.all()}
    assert "fail" not in verdicts.values(), [f for f in report.findings.all() if f.verdict == "fail"]
    for rule in ("S-01", "S-02", "S-03", "S-10", "S-11", "S-12", "S-13", "S-20", "S-21", "S-24", "S-35"):
        assert verdicts[rule] == "pass", (rule, report.findings.all())
    assert report.protocol_versions == ["2025-11-25", "2026-07-28"]
