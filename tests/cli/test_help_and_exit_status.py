"""Every `elicitkit` command's help reads well at 80 columns, and `url inspect` tells a mistyped
command line apart from a blocked URL by its exit status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ELICITKIT = Path(sys.executable).with_name("elicitkit")
COMMANDS = [
    [],
    ["demo"],
    ["client"],
    ["check"],
    ["bridge"],
    ["schema"],
    ["schema", "lint"],
    ["schema", "check"],
    ["schema", "show"],
    ["url"],
    ["url", "inspect"],
    ["keys"],
    ["keys", "new"],
    ["keys", "rotate"],
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run(
        [str(ELICITKIT), *args], capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "elicitkit")
def test_help_fits_80_columns_and_shows_no_python_types(command: list[str]) -> None:
    done = run(*command, "--help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and lines[0].startswith("Usage: elicitkit"), done.stdout
    assert max(len(line) for line in lines) <= 80, done.stdout
    assert not re.search(r"<(bool|str|int|float|path|list\[\w+\])>", done.stdout), done.stdout
    assert "Traceback" not in done.stderr


def test_url_inspect_exit_status_tells_a_block_from_a_usage_error() -> None:
    blocked = run("url", "inspect", "https://paypal.com@evil.example.net/login")
    assert blocked.returncode == 2 and "BLOCK" in blocked.stdout
    for mistyped in (["url", "inspect"], ["url", "inspect", "--bogus", "x"], ["url", "inspct", "x"]):
        done = run(*mistyped)
        assert done.returncode == 64, (mistyped, done.returncode, done.stderr)
        assert "Usage: elicitkit url" in done.stderr and "Traceback" not in done.stderr
    helped = " ".join(run("url", "inspect", "--help").stdout.split())
    assert "0 ok, 1 warn, 2 block, 64 a usage error" in helped
