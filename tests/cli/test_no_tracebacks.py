"""Bad input to any `elicitkit` command ends in a sentence and exit 2 (a usage error), never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ELICITKIT = Path(sys.executable).with_name("elicitkit")
NOWHERE = "http://127.0.0.1:9/mcp"


def cases(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """Each bad command line, and words its sentence must contain."""
    (tmp / "broken_module.py").write_text("raise ValueError('broken at import')\n")
    (tmp / "a_file").write_text("")
    return {
        "schema show, a module that fails": (["schema", "show", "broken_module:Form"], "broken at import"),
        "check --json into no folder": (
            ["check", "--json", str(tmp / "no" / "r.json"), NOWHERE],
            "not a folder",
        ),
        "check --timeout 0": (["check", "--timeout", "0", NOWHERE], "above 0"),
        "check --args not JSON": (["check", "--tool", "t", "--args", "{", NOWHERE], "not JSON"),
        "demo --data-dir under a file": (
            ["demo", "--script", "--data-dir", str(tmp / "a_file" / "d")],
            "cannot use",
        ),
        "client --answers a folder": (["client", "--call", "t", "--answers", str(tmp), NOWHERE], "--answers"),
        "client --header without a colon": (["client", "--header", "oops", NOWHERE], "'Name: value'"),
        "client --locale unknown": (["client", "--locale", "xx", "--call", "t", NOWHERE], "zh_CN"),
    }


@pytest.mark.parametrize(
    "name",
    [
        "schema show, a module that fails",
        "check --json into no folder",
        "check --timeout 0",
        "check --args not JSON",
        "demo --data-dir under a file",
        "client --answers a folder",
        "client --header without a colon",
        "client --locale unknown",
    ],
)
def test_bad_input_ends_in_a_sentence(name: str, tmp_path: Path) -> None:
    args, words = cases(tmp_path)[name]
    done = subprocess.run(
        [str(ELICITKIT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)  # a usage error, said as one
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert words in " ".join(done.stderr.split()), done.stderr
