"""The README's code is real: each block compiles, and it matches the quickstart files it quotes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def statements(code: str) -> set[str]:
    return {line.strip() for line in code.splitlines() if line.strip() and not line.startswith("#")}


def test_every_python_block_compiles() -> None:
    assert len(BLOCKS) == 2
    for block in BLOCKS:
        compile(block, "README.md", "exec")


def test_the_server_block_is_the_quickstart_server() -> None:
    """The same server; the file takes its port from the command line, the README's is 8000."""
    server = statements((ROOT / "examples" / "quickstart" / "server.py").read_text())
    readme = statements(BLOCKS[0])
    assert 'server.run("streamable-http", host="127.0.0.1", port=8000)' in readme
    assert {s for s in readme if not s.startswith("server.run(")} <= server


def test_the_commands_it_names_exist() -> None:
    for script in re.findall(r"^    (scripts/\w+)", README, re.M):
        assert (ROOT / script).exists(), script
