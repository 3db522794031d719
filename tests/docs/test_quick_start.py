"""The README's quick start holds on a fresh clone: `scripts/demo` sets up only what the demo
needs (no test tools, no google-adk venv, no npm peers, no conformance harness), reaches its
first step, and the README's apt line names every system package the scripts install."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: What only the test suite uses: none of it may reach the demo's venv.
TEST_TOOLING = ("pytest", "playwright", "hypothesis", "ruff", "mypy", "pexpect", "google.adk", "pydantic_ai")


def _apt_packages() -> set[str]:
    """Every package an `apt-get install` line of the README names."""
    names: set[str] = set()
    for line in re.findall(r"apt-get install ([^\n#`]+)", README):
        names |= {word for word in line.split() if not word.startswith("-")}
    return names


def test_the_readme_apt_line_names_every_package_the_scripts_install() -> None:
    setup = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    installed = {name for group in re.findall(r"need\+=\(([^)]*)\)", setup) for name in group.split()}
    assert installed, "scripts/setup installs no system packages any more: update this test"
    missing = installed - _apt_packages()
    assert not missing, f"scripts/setup installs {sorted(missing)}, which the README's apt line does not name"


def _fresh_clone(where: Path) -> Path:
    """The repository's files as a fresh clone has them (this tree's versions, nothing built)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=60,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = where / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return where


def test_scripts_demo_on_a_fresh_clone_installs_the_demo_only_and_plays(tmp_path: Path) -> None:
    clone = _fresh_clone(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the demo's store and vault key
    started = time.monotonic()
    first_step = None
    demo = subprocess.Popen(
        ["scripts/demo", "--script"],
        cwd=clone,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert demo.stdout is not None
    lines = []
    try:
        for line in demo.stdout:
            lines.append(line)
            if first_step is None and line.startswith("[1/"):
                first_step = time.monotonic() - started
        demo.wait(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    transcript = "".join(lines)
    assert demo.returncode == 0, transcript[-3000:]
    assert first_step is not None, transcript[-3000:]
    # Only the demo's venv: nothing for the tests.
    assert not (clone / ".venv-adk").exists()
    assert not (clone / ".conformance").exists()
    assert not list(clone.glob("tests/peers/*/node_modules"))
    assert "npm" not in transcript and "conformance" not in transcript.lower()
    python = clone / ".venv" / "bin" / "python"
    probe = (
        "import importlib.util, json\n"
        f"print(json.dumps([m for m in {TEST_TOOLING!r} if importlib.util.find_spec(m.split('.')[0]) "
        "and (m == m.split('.')[0] or importlib.util.find_spec(m))]))"
    )
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert found.stdout.strip() == "[]", f"the demo's venv has test tooling: {found.stdout}"
    # The figure the README states is measured on a quiet machine; this bound leaves room for CI.
    assert first_step < 240, f"the first step took {first_step:.0f} s"
