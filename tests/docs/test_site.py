"""The documentation site builds with no warnings, and its API reference lists every public name.

A public module is one whose dotted path has no part starting with `_` (the `elicitkit`
command and the demo are programs, not library API); its public names are its `__all__`.
A name re-exported by several public modules counts as listed where any of them lists the same
object (`AcceptedElicitation` is `elicitkit.results`' and `elicitkit.client`'s).
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

import elicitkit

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ("elicitkit.cli", "elicitkit.demo", "elicitkit.__main__")

pytestmark = pytest.mark.timeout(600)  # about 12 s of CPU; a busy machine stretches it


def public_modules() -> list[ModuleType]:
    names = ["elicitkit"]
    for info in pkgutil.walk_packages(elicitkit.__path__, "elicitkit."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if any(info.name == program or info.name.startswith(f"{program}.") for program in PROGRAMS):
            continue  # `elicitkit.cli` is a program; `elicitkit.client` is library API
        names.append(info.name)
    return [importlib.import_module(name) for name in sorted(names)]


def public_names() -> list[tuple[str, str]]:
    return [(module.__name__, name) for module in public_modules() for name in getattr(module, "__all__", ())]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The anchors of the built API reference (one per documented object, by dotted path)."""
    site = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=540,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout}{build.stderr}"
    pages = (site / "reference").rglob("*.html")
    return {anchor for page in pages for anchor in re.findall(r'id="(elicitkit[\w.]*)"', page.read_text())}


def listed(module: str, name: str, anchors: set[str]) -> bool:
    """Whether `module.name` is documented, under its own module or a public module re-exporting it."""
    if f"{module}.{name}" in anchors:
        return True
    obj = getattr(importlib.import_module(module), name)
    return any(
        f"{other.__name__}.{name}" in anchors and getattr(other, name, None) is obj
        for other in _modules_listing(name)
    )


@cache
def _modules_listing(name: str) -> tuple[ModuleType, ...]:
    return tuple(m for m in public_modules() if name in getattr(m, "__all__", ()))


def test_every_public_module_with_names_has_a_reference_page() -> None:
    """Each package whose names a user imports is documented on a page of its own."""
    pages = {p.stem for p in (ROOT / "docs" / "reference").glob("*.md")} - {"index"}
    packages = {
        m.__name__.removeprefix("elicitkit.")
        for m in public_modules()
        if getattr(m, "__all__", None) and hasattr(m, "__path__")
    }
    assert packages <= pages, f"add docs/reference/<module>.md for: {sorted(packages - pages)}"


def test_the_site_builds_strictly_and_lists_every_public_name(reference: set[str]) -> None:
    names = public_names()
    assert len(names) > 100, names  # the walk found the library, not an empty package
    missing = [f"{module}.{name}" for module, name in names if not listed(module, name, reference)]
    assert not missing, f"public names missing from the API reference (docs/reference/): {missing}"


def public_objects() -> dict[int, tuple[str, object]]:
    """Each public object once (by identity), under the first public module that lists it."""
    found: dict[int, tuple[str, object]] = {}
    for module, name in public_names():
        obj = getattr(importlib.import_module(module), name)
        found.setdefault(id(obj), (f"{module}.{name}", obj))
    return found


def _undocumented(obj: object) -> bool:
    return not (inspect.getdoc(obj) or "").strip()


def test_every_public_class_function_and_method_says_what_it_is_for() -> None:
    """A public class or function, and each public method or property a public class defines,
    has a docstring: the reference shows it, and a reader learns the API from it. (Methods a
    class inherits are documented where they are defined; a dataclass's generated methods and
    an enum's members need none.)"""
    missing = []
    for path, obj in public_objects().values():
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if obj.__module__.split(".")[0] != "elicitkit":
            continue  # a name re-exported from the SDK or the standard library
        if _undocumented(obj) or (inspect.isclass(obj) and obj.__doc__ is None):
            missing.append(path)
        if not inspect.isclass(obj):
            continue
        for attribute, value in vars(obj).items():
            if attribute.startswith("_"):
                continue
            function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if (inspect.isfunction(function) or isinstance(value, property)) and not (
                function.__doc__ or ""
            ).strip():
                missing.append(f"{path}.{attribute}")
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"
