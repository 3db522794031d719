"""The README's examples run as copied, each in a fresh venv with exactly the extras its section
names (`pip install ...` in the section), and the install lines of the README and the docs
name extras that exist and bring what their modules import.

The wheel is built once per session and each set of extras gets one venv, shared with the
guides' examples (`venvs` in conftest.py, see `docvenvs`).
The server example binds port 8000 as printed; here it gets a free port instead, the one
change made to the copied text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from docblocks import extras_named, installs_named
from docvenvs import ROOT, Venvs
from packaging.requirements import Requirement
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXTRAS = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def _python_blocks() -> list[tuple[str, frozenset[str] | None]]:
    """The README's python blocks, each with the extras its section names."""
    return [
        (m.group(1), extras_named(README, m.start()))
        for m in re.finditer(r"^```python\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    ]


@pytest.fixture(scope="module")
def readme_server(venvs: Venvs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The README's server block, run with `python server.py` in a venv with its section's extras."""
    source, extras = _python_blocks()[0]
    assert extras is not None, "the README's server section names no `pip install`"
    python = venvs.python(extras)
    port = free_port()
    where = tmp_path_factory.mktemp("server")
    assert "port=8000" in source
    (where / "server.py").write_text(source.replace("port=8000", f"port={port}"), encoding="utf-8")
    log = where / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(python), "server.py"], cwd=where, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp", log, within=60)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def test_every_readme_python_block_names_its_install() -> None:
    blocks = _python_blocks()
    assert len(blocks) == 2
    for source, extras in blocks:
        assert extras is not None, f"no `pip install` in the section of:\n{source[:200]}"
        assert extras <= EXTRAS, sorted(extras - EXTRAS)


async def test_the_readme_server_serves_and_books(readme_server: str) -> None:
    ui = ScriptedUI(AcceptedElicitation({"day": "2026-12-24", "party": 4}))
    async with ElicitationConfig(ui).connect(readme_server) as client:
        result = await client.call_tool("book", {})
    assert result.content[0].text == "Booked a table for 4 on 2026-12-24."  # type: ignore[union-attr]


def test_the_readme_client_asks_in_the_terminal(readme_server: str, venvs: Venvs, tmp_path: Path) -> None:
    source, extras = _python_blocks()[1]
    assert extras is not None
    python = venvs.python(extras)
    script = tmp_path / "client.py"
    script.write_text(source.replace("http://127.0.0.1:8000/mcp", readme_server), encoding="utf-8")
    env = {"TERM": "xterm", "HOME": os.environ.get("HOME", "/tmp"), "PATH": "/usr/bin:/bin"}
    child = pexpect.spawn(
        str(python),
        [str(script)],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 100),
    )
    try:
        child.expect("Which day, and for how many")
        child.expect("▶")  # the first field waits for its answer
        child.sendcontrol("c")  # the person cancels the form
        child.expect("Nothing booked: the person chose cancel.")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_the_base_install_adds_what_the_readme_says(venvs: Venvs) -> None:
    """`pip install elicitkit`: the distributions it adds to what the SDK (`mcp`) brings."""
    python = venvs.python(frozenset())
    probe = (
        "import json, importlib.metadata as m\n"
        "print(json.dumps({d.metadata['Name'].lower().replace('_', '-'): d.requires or [] "
        "for d in m.distributions()}))"
    )
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    installed: dict[str, list[str]] = json.loads(out.stdout)
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, frozenset[str]]] = [("mcp", frozenset())]
    while todo:  # what `mcp` pulls in, following the extras its requirements ask for
        name, extras = todo.pop()
        if (name, extras) in seen or name not in installed:
            continue
        seen.add((name, extras))
        for line in installed[name]:
            req = Requirement(line)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in {"", *extras}):
                todo.append((req.name.lower().replace("_", "-"), frozenset(req.extras)))
    added = set(installed) - {name for name, _ in seen} - {"pip", "setuptools"}
    said = re.search(r"pip install elicitkit +# .*?the SDK plus (\d+) packages", README)
    assert said, "the README's Install section no longer says how many packages the core adds"
    assert int(said.group(1)) == len(added), sorted(added)


def test_install_lines_name_only_extras_that_exist() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for group in re.findall(r"elicitkit\[([^\]]*)\]", text):
            named = {e.strip() for e in group.split(",")} - {"...", ""}
            assert named <= EXTRAS, f"{page.name} names extras that do not exist: {sorted(named - EXTRAS)}"


def test_the_fastmcp_extra_alone_brings_what_elicitkit_fastmcp_imports(venvs: Venvs) -> None:
    python = venvs.python(frozenset({"fastmcp"}))
    done = subprocess.run(
        [str(python), "-c", "import elicitkit.fastmcp"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_extras_named_reads_the_last_install_of_the_section() -> None:
    text = "# A\npip install 'elicitkit[web]'\n## B\npip install elicitkit\n"
    text += "`pip install 'elicitkit[a,b]'`\nX\n## C\nY"
    assert extras_named(text, text.index("X")) == {"a", "b"}
    assert extras_named(text, text.index("Y")) is None
    assert extras_named(text, text.index("## B")) == {"web"}


#: Pages whose python blocks are whole programs that end by themselves; each runs in a venv
#: with what its section's `pip install` names. (The README's two run above, as a server and
#: a terminal client.)
STANDALONE = ("docs/upstream.md",)


def _standalone_blocks() -> list[pytest.param]:  # type: ignore[valid-type]
    cases = []
    for page in STANDALONE:
        text = (ROOT / page).read_text(encoding="utf-8")
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
            line = text.count("\n", 0, m.start()) + 1
            cases.append(pytest.param(page, m.group(1), installs_named(text, m.start()), id=f"{page}:{line}"))
    return cases


@pytest.mark.parametrize(("page", "source", "installs"), _standalone_blocks())
def test_standalone_examples_run_with_what_their_section_installs(
    page: str,
    source: str,
    installs: tuple[frozenset[str], tuple[str, ...]] | None,
    venvs: Venvs,
    tmp_path: Path,
) -> None:
    assert installs is not None, f"{page}: the example's section names no `pip install`"
    extras, others = installs
    python = venvs.python(extras, *others) if extras or not others else venvs.bare(*others)
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [str(python), str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{page} example failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


_REQUIREMENTS = re.compile(r"[\w.-]+\[[\w,.-]+\](?: [\w.-]+(?:\[[\w,.-]+\])?)*")


def _framework_installs() -> list[pytest.param]:  # type: ignore[valid-type]
    """Each install the table of docs/frameworks.md names (a backticked list of requirements)."""
    text = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
    cases = []
    for row in re.findall(r"^\| ([^|]+) \| ([^|]+) \|", text, re.MULTILINE):
        for chunk in re.findall(r"`([^`]+)`", row[1]):
            if _REQUIREMENTS.fullmatch(chunk):
                cases.append(pytest.param(chunk, id=f"{row[0].strip()}: {chunk}"))
    return cases


@pytest.mark.parametrize("install", _framework_installs())
def test_the_frameworks_install_lines_resolve(install: str, venvs: Venvs) -> None:
    """pip can resolve each line (a dry run: nothing is installed), elicitkit being this tree's wheel."""
    wheel = venvs.wheel.as_uri()
    args = [f"{word} @ {wheel}" if word.startswith("elicitkit[") else word for word in install.split()]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"pip install {install} does not resolve:\n{done.stderr[-3000:]}"
