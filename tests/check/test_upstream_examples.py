"""`elicitkit check` against the SDK's and FastMCP's own elicitation example servers.

The files in tests/check/upstream_examples/ are the projects' examples, unchanged (README.md
there names each source and commit). Each runs as its own process on 127.0.0.1 and the
command is run as a person runs it: a report, exit 1 (each has a real finding), no traceback.
Every finding below was read against the example's code and the spec; the test pins those
verdicts so a checker change that turns one of them is seen.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.check import RULES

HERE = Path(__file__).parent
UPSTREAM = HERE / "upstream_examples"
ELICITKIT = Path(sys.executable).with_name("elicitkit")


@contextmanager
def serving(command: list[str], cwd: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [*command, str(port)],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def example(file: str) -> list[str]:
    """A file with no `__main__` of its own, served by tests/check/serve_upstream.py."""
    return [sys.executable, str(HERE / "serve_upstream.py"), str(UPSTREAM / file)]


def story(module: str) -> list[str]:
    """An SDK story server, run as its README says (`--http --port N` binds 127.0.0.1)."""
    return [sys.executable, "-m", f"stories.legacy_elicitation.{module}", "--http", "--port"]


def check(url: str, *args: str) -> dict[str, tuple[str, str]]:
    done = subprocess.run(
        [str(ELICITKIT), "check", "--timeout", "5", url, "--json", "-", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["protocol_versions"] == ["2025-11-25", "2026-07-28"]
    assert [f["id"] for f in report["findings"]] == list(RULES)
    return {f["id"]: (f["verdict"], f["evidence"]) for f in report["findings"]}


def verdicts(found: dict[str, tuple[str, str]]) -> dict[str, str]:
    return {rule: verdict for rule, (verdict, _) in found.items()}


async def test_the_sdk_snippet_server() -> None:
    """examples/snippets/servers/elicitation.py: a form, `ctx.elicit_url`, and -32042."""
    booking = json.dumps({"date": "2024-12-25", "time": "19:00", "party_size": 2})
    with serving(example("python_sdk/snippets/elicitation.py"), HERE) as url:
        found = check(
            url,
            *("--tool", "book_table", "--args", booking),
            *("--tool", "secure_payment", "--tool", "connect_service"),
        )
    seen = verdicts(found)
    # mcp 2.3's ctx.elicit_url asks only whether `elicitation` is declared (python-sdk #2965)
    assert seen["S-01"] == "fail", found["S-01"]
    assert "url-mode elicitation to a client that did not declare it" in found["S-01"][1]
    assert "secure_payment" in found["S-01"][1]
    # UrlElicitationRequiredError becomes -32042 at 2026-07-28 too, where it does not exist (M-03)
    assert seen["S-24"] == "fail" and "2026-07-28" in found["S-24"][1], found["S-24"]
    assert "connect_service" in found["S-24"][1]
    for rule in ("S-02", "S-03", "S-10", "S-11", "S-12", "S-13", "S-20", "S-21"):
        assert seen[rule] == "pass", (rule, found[rule])
    assert sorted(r for r, v in seen.items() if v == "fail") == ["S-01", "S-24"]


@pytest.mark.parametrize("module", ["server", "server_lowlevel"])
async def test_the_sdk_legacy_elicitation_story(module: str) -> None:
    """examples/stories/legacy_elicitation: `register_user` (form) and `link_account` (URL)."""
    with serving(story(module), UPSTREAM / "python_sdk") as url:
        found = check(url)
    seen = verdicts(found)
    assert seen["S-01"] == "fail" and "link_account" in found["S-01"][1], found["S-01"]
    # f"link-{provider}-{request_id}": request ids start again in every session
    assert seen["S-20"] == "fail" and "sent to two client sessions" in found["S-20"][1], found["S-20"]
    assert seen["S-23"] == "pass", found["S-23"]
    for rule in ("S-02", "S-03", "S-10", "S-11", "S-12", "S-21"):
        assert seen[rule] == "pass", (rule, found[rule])
    if module == "server":  # ctx.elicit validates the answer with the pydantic model
        assert seen["S-13"] == "pass", found["S-13"]
        assert sorted(r for r, v in seen.items() if v == "fail") == ["S-01", "S-20"]
    else:  # the low-level server uses answer.content as it came: a SHOULD, so a warn
        assert seen["S-13"] == "warn" and "registered 12345" in found["S-13"][1], found["S-13"]
        assert sorted(r for r, v in seen.items() if v == "fail") == ["S-01", "S-20"]


async def test_the_fastmcp_example() -> None:
    """FastMCP's examples/elicitation.py: `greet` (a bare str) and `survey` (a dataclass)."""
    pytest.importorskip("fastmcp", reason="the fastmcp extra is not installed")
    with serving(example("fastmcp/elicitation.py"), HERE) as url:
        found = check(url)
    seen = verdicts(found)
    # FastMCP's ctx.elicit sends a form to a client that declared only URL mode
    assert seen["S-01"] == "fail", found["S-01"]
    assert "form-mode elicitation to a client that did not declare it" in found["S-01"][1]
    for rule in ("S-02", "S-03", "S-10", "S-11", "S-12", "S-13"):
        assert seen[rule] == "pass", (rule, found[rule])
    assert seen["S-20"] == seen["S-24"] == "not-observed"
    assert sorted(r for r, v in seen.items() if v == "fail") == ["S-01"]
