"""With CI set (CI sets CI=true), a test that would be skipped fails with the skip's reason.

CI installs every extra and peer, so there a skip can only mean something is missing; without
CI a skip stays a skip, and an expected failure (xfail) stays one either way. Each run here is
pytest on a small test folder that carries this suite's own conftest.py. A module skipped as a
whole (`importorskip`, `pytest.skip(allow_module_level=True)`) is a collection error in CI,
which stops the run as an import error would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SKIPPING = """
import pytest


def test_runs():
    pass


@pytest.mark.skip(reason="no llama in the marker")
def test_marked():
    pass


@pytest.mark.skipif(True, reason="no llama in the condition")
def test_conditional():
    pass


def test_called():
    pytest.skip("no llama in the call")


@pytest.fixture
def llama():
    pytest.skip("no llama in the fixture")


def test_fixture(llama):
    pass


@pytest.mark.xfail(reason="a known llama", strict=True)
def test_expected_failure():
    assert False
"""

MODULE = """
import pytest

pytest.importorskip("no_such_llama_module", reason="no llama module")


def test_never_collected():
    pass
"""


def run(folder: Path, ci: str | None) -> tuple[dict[str, int], str]:
    """The outcome counts of pytest's summary line, and its whole output."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    done = subprocess.run(
        # a module that fails to collect stops the run before any test; here every outcome is wanted
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "--continue-on-collection-errors"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = done.stdout.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}, done.stdout


def make(tmp_path: Path) -> Path:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    (tmp_path / "test_module.py").write_text(MODULE)
    return tmp_path


def test_in_ci_every_kind_of_skip_fails_with_its_reason(tmp_path: Path) -> None:
    counts, out = run(make(tmp_path), ci="true")
    # a skip while setting up (a marker, a fixture) is an error of the test, as a failing fixture is
    assert counts == {"failed": 1, "errors": 4, "passed": 1, "xfailed": 1}, out
    for reason in ("marker", "condition", "call", "fixture"):
        line = rf"(FAILED|ERROR) test_skipping.py::\S+ - .*no llama in the {reason}"
        assert re.search(line, out), (reason, out)
    assert re.search(r"ERROR test_module.py - .*no llama module", out), out


def test_outside_ci_a_skip_stays_a_skip(tmp_path: Path) -> None:
    folder = make(tmp_path)
    for ci in (None, "", "false"):
        counts, out = run(folder, ci=ci)
        assert counts == {"passed": 1, "skipped": 5, "xfailed": 1}, (ci, out)
