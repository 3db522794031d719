"""Every example in the guides (`PAGES`) runs, and prints what the page says, in a fresh venv
with exactly what the `Needs` line above it installs.

See `docblocks` for how a fence says what kind of example it is and how a `Needs` line covers
it; a page's REPL sessions under one `Needs` line are one session. Every runnable block of
every page in docs/ is run here or by `test_install_lines` (`STANDALONE`), or is a `fragment`
whose prose says why it is not run. The client guide's scripts
talk to `http://127.0.0.1:8000/mcp`, the address `python examples/quickstart/server.py`
serves; here that server runs on a free port and the scripts are pointed at it. The server
guide's scripts start what they need themselves (servers in process, pages on 127.0.0.1, the
demo authorization server and provider); the security and deployment pages cite tests as
proof, and `test_cited_tests_exist` keeps those citations pointing at real tests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from docblocks import Block, Needs, blocks, commands, extras_named
from docvenvs import Venvs
from support.quickstart_server import quickstart_server
from test_install_lines import STANDALONE

ROOT = Path(__file__).resolve().parents[2]
PAGES = (
    "schema.md",
    "client-guide.md",
    "server-guide.md",
    "security.md",
    "deployment.md",
    "bridge.md",
    "check.md",
    "hosts.md",
    "frameworks.md",
    "deployment-redis.md",
)
QUICKSTART_URL = "http://127.0.0.1:8000/mcp"
KNOWN = {"pycon", "python", "console", "json", "text", "toml", ""}
RUNNABLE = {"pycon", "python", "console"}
DRIVER = Path(__file__).with_name("doctest_driver.py")
_INSTALL = re.compile(r"pip install ([^`\n]*)")


def _runs(block: Block) -> bool:
    return block.lang in RUNNABLE and "fragment" not in block.words


def _cases(lang: str) -> list[pytest.param]:  # type: ignore[valid-type]
    return [
        pytest.param(page, block, id=f"{page}:{block.line}")
        for page in PAGES
        for block in blocks(page)
        if block.lang == lang and _runs(block)
    ]


def _python(venvs: Venvs, page: str, block: Block) -> Path:
    """The interpreter of a fresh venv with exactly what the block's `Needs` line installs."""
    assert block.needs is not None, f"docs/{page} {block.where}: no `Needs` line above this example"
    return venvs.python(block.needs.extras, *block.needs.others)


def _sessions() -> list[pytest.param]:  # type: ignore[valid-type]
    """Each page's REPL sessions, grouped by the `Needs` line that covers them, in page order."""
    cases = []
    for page in PAGES:
        groups: dict[Needs | None, list[Block]] = {}
        for block in blocks(page):
            if block.lang == "pycon" and _runs(block):
                groups.setdefault(block.needs, []).append(block)
        for needs, group in groups.items():
            cases.append(pytest.param(page, group, id=f"{page}:{needs.line if needs else group[0].line}"))
    return cases


def _files(page: str, where: Path) -> None:
    """Write the page's `file=NAME` blocks into `where`, for its commands and scripts."""
    for block in blocks(page):
        if "file" in block.options:
            (where / block.options["file"]).write_text(block.body, encoding="utf-8")


def _env(python: Path) -> dict[str, str]:
    """The environment of a reader who activated the venv of `python` (and not the project's)."""
    drop = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM", "VIRTUAL_ENV", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    ours = str(Path(sys.executable).parent)
    path = [part for part in env.get("PATH", "").split(os.pathsep) if part and part != ours]
    env["PATH"] = os.pathsep.join([str(python.parent), *path])
    env["VIRTUAL_ENV"] = str(python.parent.parent)
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
        if block.lang == "json" and "fragment" not in block.words:
            json.loads(block.body)


@pytest.mark.timeout(900)  # the first example of a set of extras makes its venv
@pytest.mark.parametrize(("page", "group"), _sessions())
def test_pycon_sessions(page: str, group: list[Block], tmp_path: Path, venvs: Venvs) -> None:
    """The REPL sessions under one `Needs` line, in order, sharing one namespace as a reader's
    REPL would, in a venv with exactly what that line installs."""
    python = _python(venvs, page, group[0])
    _files(page, tmp_path)
    done = subprocess.run(
        [str(python), str(DRIVER)],
        input=json.dumps([[f"docs/{page}", block.line, block.body] for block in group]),
        cwd=tmp_path,
        env=_env(python),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"docs/{page}:\n{done.stdout[-6000:]}{done.stderr[-3000:]}"


@pytest.mark.timeout(900)  # the first example of a set of extras makes its venv
@pytest.mark.parametrize(("page", "block"), _cases("console"))
def test_console(page: str, block: Block, tmp_path: Path, venvs: Venvs) -> None:
    python = _python(venvs, page, block)
    _files(page, tmp_path)
    script = ["set +e", "status=0"]
    pairs = commands(block)
    for i, (command, _) in enumerate(pairs):
        # `(exit $status)` hands the last command's status on, so `echo $?` shows it.
        script += [f"echo '@@@ {i}'", "(exit $status)", f"{{ {command}\n}} 2>&1", "status=$?"]
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=tmp_path,
        env=_env(python),
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


@pytest.mark.timeout(900)  # the first example of a set of extras makes its venv
@pytest.mark.parametrize(("page", "block"), _cases("python"))
def test_python(
    page: str, block: Block, tmp_path: Path, venvs: Venvs, request: pytest.FixtureRequest
) -> None:
    python = _python(venvs, page, block)
    _files(page, tmp_path)
    source = block.body
    if QUICKSTART_URL in source:
        source = source.replace(QUICKSTART_URL, request.getfixturevalue("quickstart"))
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [str(python), str(script)],
        cwd=tmp_path,
        env=_env(python),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, f"docs/{page} {block.where} failed:\n{done.stdout}\n{done.stderr}"
    if block.output is not None:
        assert _norm(done.stdout) == _norm(block.output), f"docs/{page} {block.where} printed\n{done.stdout}"


def _prose_around(page: str, block: Block) -> str:
    """The paragraph just before a block's fence and the one just after it: what a reader sees."""
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    start = block.line - 1
    end = start + 1
    while end < len(lines) and not lines[end].startswith("```"):
        end += 1
    before = "\n".join(lines[:start]).rstrip().rsplit("\n\n", 1)[-1]
    after = "\n".join(lines[end + 1 :]).lstrip("\n").split("\n\n", 1)[0]
    return f"{before}\n{after}"


def test_every_runnable_example_in_docs_is_run_or_says_why() -> None:
    """A python, pycon or console block on any page in docs/ is run (here or by `STANDALONE`
    in test_install_lines), or is a `fragment` whose neighbouring prose tells the reader why."""
    standalone = {Path(page).name for page in STANDALONE}
    for page in sorted(p.name for p in (ROOT / "docs").glob("*.md")):
        for block in blocks(page):
            if block.lang not in RUNNABLE:
                continue
            where = f"docs/{page} {block.where}"
            if "fragment" in block.words:
                prose = _prose_around(page, block).lower()
                assert "fragment" in prose or "not run" in prose, (
                    f"{where}: a fragment, but the prose next to it does not say why it is not run"
                )
            elif page in standalone:
                assert block.lang == "python", f"{where}: test_install_lines runs only python blocks there"
            else:
                assert page in PAGES, f"{where}: a runnable example no test runs; add the page to PAGES"
                assert block.needs is not None, f"{where}: no `Needs` line above this example"
            if "needs" in block.options:
                said = [
                    extras_named(f"pip install {m}", 12 + len(m))
                    for m in _INSTALL.findall(_prose_around(page, block))
                ]
                assert block.needs is not None and block.needs.extras in said, (
                    f"{where}: `needs={block.options['needs']}`, but the prose next to it does not say "
                    f'`pip install "elicitkit[{block.options["needs"]}]"`'
                )


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
