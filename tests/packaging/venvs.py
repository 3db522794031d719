"""The built sdist and wheel, and a fresh virtualenv with the wheel installed, shared by the packaging tests.

Both are built once per session, the wheel from the sdist as for a release (no build isolation:
the dev venv has hatchling). The wheel is installed without extras into a venv made
`--without-pip`, driven by the dev venv's pip, which keeps using the machine's pip cache.
Counting needs no second install: what `mcp` installs by itself is the closure of its
requirements inside that same venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]

#: The optional stacks a base install must neither install nor import.
HEAVY = ("redis", "aiosqlite", "authlib", "prompt_toolkit", "rich", "typer", "playwright")


def build_distributions(out: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from that sdist, as `python -m build` makes them for a release."""
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (sdist,) = out.glob("elicitkit-*.tar.gz")
    (wheel,) = out.glob("elicitkit-*.whl")
    return sdist, wheel


def make_venv(where: Path, *requirements: str) -> Path:
    """A fresh venv at `where` with `requirements` installed; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "-q", *requirements], check=True, capture_output=True, timeout=600)
    return python


def distributions(python: Path) -> dict[str, list[str]]:
    """Every distribution installed in the venv of `python`, by canonical name, with its requirements."""
    probe = (
        "import json, importlib.metadata as m\n"
        "print(json.dumps({d.metadata['Name']: d.requires or [] for d in m.distributions()}))"
    )
    out = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True, timeout=60)
    return {canonicalize_name(name): requires for name, requires in json.loads(out.stdout).items()}


def closure(installed: dict[str, list[str]], root: str) -> set[str]:
    """The distributions `root` pulls in (itself included), following extras and markers."""
    found: set[str] = set()
    todo: list[tuple[str, frozenset[str]]] = [(canonicalize_name(root), frozenset())]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen or name not in installed:
            continue
        seen.add((name, extras))
        found.add(name)
        for line in installed[name]:
            req = Requirement(line)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in {"", *extras}):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return found


def run_in(python: Path, script: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [str(python), str(script), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        cwd=script.parent,
    )
    return out.stdout
