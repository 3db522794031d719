"""Importing a file that is not in a package (an example, a benchmark) without editing `sys.path`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: `examples/`, `benchmarks/`, `src/` are below it."""


def load(path: Path, name: str | None = None) -> ModuleType:
    """The module in `path`, imported once under `name` (default: `script_<stem>`)."""
    name = name or f"script_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
