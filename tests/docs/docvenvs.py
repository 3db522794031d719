"""Fresh virtualenvs with elicitkit and exactly the extras a doc section names.

The wheel is built once per test session; each distinct set of extras gets one venv, shared by
every block that names the same set. Venvs are made `--without-pip` and filled by this
interpreter's pip (`pip --python`), which is faster than bootstrapping pip into each.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("elicitkit-*.whl")
    return wheel


def requirement(wheel: Path, extras: frozenset[str]) -> str:
    """`elicitkit[extras]` spelled as pip takes it for a local wheel."""
    return f"elicitkit[{','.join(sorted(extras))}] @ {wheel.as_uri()}" if extras else str(wheel)


def make_venv(where: Path, *requirements: str) -> Path:
    """A fresh venv at `where` with `requirements` installed; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    done = subprocess.run(
        [*pip, "install", "-q", "--no-compile", *requirements], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"pip install {' '.join(requirements)} failed:\n{done.stderr[-3000:]}"
    return python


class Venvs:
    """One venv per set of extras, made on first use."""

    def __init__(self, wheel: Path, where: Path) -> None:
        self.wheel = wheel
        self.where = where
        self._made: dict[frozenset[str], Path] = {}

    def python(self, extras: frozenset[str], *others: str) -> Path:
        key = extras | {f"+{other}" for other in others}
        if key not in self._made:
            name = "-".join(sorted(key)).replace("+", "plus-").replace("[", "_").replace("]", "") or "core"
            self._made[key] = make_venv(self.where / name, requirement(self.wheel, extras), *others)
        return self._made[key]

    def bare(self, *requirements: str) -> Path:
        """A venv with `requirements` and no elicitkit (an upstream project's reproduction)."""
        key = frozenset(f"-{r}" for r in requirements)
        if key not in self._made:
            name = "bare-" + re.sub(r"\W+", "_", "-".join(sorted(requirements)))
            self._made[key] = make_venv(self.where / name, *requirements)
        return self._made[key]
