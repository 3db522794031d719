"""Every example in the guides (`PAGES`) runs, and prints what the page says.

See `docblocks` for how a fence says what kind of example it is. The client guide's scripts
talk to `http://127.0.0.1:8000/mcp`, the address `python examples/quickstart/server.py`
serves; here that server runs on a free port and the scripts are pointed at it. The server
guide's scripts start what they need themselves (servers in process, pages on 127.0.0.1, the
demo authorization server and provider); the security and deployment pages cite tests as
proof, and `test_cited_tests_exist` keeps those citations pointing at real tests.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from docblocks import Block, blocks, commands
from support.quickstart_server import quickstart_server

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("schema.md", "client-guide.md", "server-guide.md", "security.md", "deployment.md")
QUICKSTART_URL = "http://127.0.0.1:8000/mcp"
KNOWN = {"pycon", "python", "console", "json", "text", "toml"}


def _cases(lang: str) -> list[pytest.param]:  # type: ignore[valid-type]
    return [
        pytest.param(page, block, id=f"{page}:{block.line}")
        for page in PAGES
        for block in blocks(page)
        if block.lang == lang
    ]


def _files(page: str, where: Path) -> None:
    """Write the page's `file=NAME` blocks into `where`, for its commands and scripts."""
    for block in blocks(page):
        if "file" in block.options:
            (where / block.options["file"]).write_text(block.body, encoding="utf-8")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    env["PYTHONPATH"] = "."
    return env


def _norm(text: str) -> str:
    """`text` without trailing spaces and surrounding blank lines, for comparing."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_every_block_is_of_a_known_kind(page: str) -> None:
    found = blocks(page)
    assert found, f"docs/{page} has no examples"
    for block in found:
        assert block.lang in KNOWN, f"docs/{page} {block.where}: unknown block language {block.lang!r}"
        if block.lang == "json":
            json.loads(block.body)


@pytest.mark.parametrize("page", [p for p in PAGES if any(b.lang == "pycon" for b in blocks(p))])
def test_pycon_sessions(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's REPL sessions, in order, sharing one namespace as a reader's REPL would."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    _files(page, tmp_path)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {"__name__": "__doc_session__"}
    report: list[str] = []
    for block in blocks(page):
        if block.lang != "pycon":
            continue
        test = parser.get_doctest(block.body, globs, f"docs/{page}", f"docs/{page}", block.line)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # a DocTest copies its globals; the next block goes on from these
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0
    assert failed == 0, "".join(report)


@pytest.mark.parametrize(("page", "block"), _cases("console"))
def test_console(page: str, block: Block, tmp_path: Path) -> None:
    _files(page, tmp_path)
    script = ["set +e", "status=0"]
    pairs = commands(block)
    for i, (command, _) in enumerate(pairs):
        # `(exit $status)` hands the last command's status on, so `echo $?` shows it.
        script += [f"echo '@@@ {i}'", "(exit $status)", f"{{ {command}\n}} 2>&1", "status=$?"]
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    chunks = done.stdout.split("@@@ ")[1:]
    assert len(chunks) == len(pairs), done.stdout + done.stderr
    for (command, expected), chunk in zip(pairs, chunks, strict=True):
        actual = chunk.split("\n", 1)[1] if "\n" in chunk else ""
        assert _norm(actual) == _norm(expected), f"docs/{page} {block.where}: `{command}` printed\n{actual}"


@pytest.fixture(scope="module")
def quickstart() -> Iterator[str]:
    """examples/quickstart/server.py on a free port, shared by the module's examples."""
    with quickstart_server() as url:
        yield url


@pytest.mark.parametrize(("page", "block"), _cases("python"))
def test_python(page: str, block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    _files(page, tmp_path)
    source = block.body
    if QUICKSTART_URL in source:
        source = source.replace(QUICKSTART_URL, request.getfixturevalue("quickstart"))
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, f"docs/{page} {block.where} failed:\n{done.stdout}\n{done.stderr}"
    if block.output is not None:
        assert _norm(done.stdout) == _norm(block.output), f"docs/{page} {block.where} printed\n{done.stdout}"


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES)
def test_links_and_images_resolve(page: str) -> None:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", prose, flags=re.MULTILINE)}
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if target.startswith(("http://", "https://")):
            continue
        path, _, fragment = target.partition("#")
        if path:
            assert (ROOT / "docs" / path).exists(), f"docs/{page} links to missing {path}"
        else:
            assert fragment in anchors, f"docs/{page} links to #{fragment}, no such heading"


_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?")


@pytest.mark.parametrize("page", ["server-guide.md", "security.md", "deployment.md"])
def test_cited_tests_exist(page: str) -> None:
    """Every `tests/...py::test_name` a page cites as proof is a test file with that test in it."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    for path, name in _TEST_REF.findall(text):
        source = ROOT / path
        assert source.is_file(), f"docs/{page} cites missing {path}"
        if name:
            assert re.search(rf"^(async )?def {name}\(", source.read_text(encoding="utf-8"), re.MULTILINE), (
                f"docs/{page} cites {path}::{name}, which is not there"
            )
