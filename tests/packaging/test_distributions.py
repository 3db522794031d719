"""The sdist and the wheel a release uploads: PyPI accepts them, and they hold what they should.

The wheel is the package and nothing else: every file of `src/elicitkit` (the code, `py.typed`,
the compiled message catalogs, the templates and static files the pages load), no tests, no
bytecode, no stray files. The sdist is the repository as git sees it: no ignored files.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from venvs import ROOT

PACKAGE = ROOT / "src" / "elicitkit"


def _package_files() -> set[str]:
    """Every file of the package in the source tree, as the wheel names it (bytecode aside)."""
    return {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_twine_check_strict_passes_for_the_wheel_and_the_sdist(sdist: Path, wheel: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("PASSED") == 2, run.stdout


def test_the_wheel_holds_the_package_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = wheel.name.split("-py3")[0] + ".dist-info/"
    package = {n for n in names if n.startswith("elicitkit/")}
    outside = sorted(n for n in names if n not in package and not n.startswith(dist_info))
    assert not outside, f"the wheel holds files outside the package: {outside}"
    assert package == _package_files(), (
        f"missing from the wheel: {sorted(_package_files() - package)}; "
        f"not in src/elicitkit: {sorted(package - _package_files())}"
    )


def test_the_wheel_ships_types_catalogs_templates_and_static_files(wheel: Path) -> None:
    """What the package reads at run time, named here so a packaging change cannot drop it quietly."""
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "elicitkit/py.typed" in names
    catalogs = sorted(PACKAGE.glob("i18n/locale/*/LC_MESSAGES/elicitkit.po"))
    assert len(catalogs) >= 2, catalogs  # English and Chinese at least
    for po in catalogs:
        mo = po.with_suffix(".mo").relative_to(PACKAGE.parent).as_posix()
        assert mo in names, f"{mo} is not in the wheel"
    for folder in ("server/_web/templates", "server/_web/static", "client/web_templates"):
        shipped = [n for n in names if n.startswith(f"elicitkit/{folder}/")]
        assert shipped, f"elicitkit/{folder} is not in the wheel"
    assert not [n for n in names if n.startswith(("tests/", "elicitkit/tests/")) or "conftest" in n]


def test_the_sdist_holds_the_project_and_no_ignored_files(sdist: Path) -> None:
    top = sdist.name.removesuffix(".tar.gz") + "/"
    with tarfile.open(sdist) as archive:
        files = [m.name.removeprefix(top) for m in archive.getmembers() if m.isfile()]
    needed = ("PKG-INFO", "pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "src/elicitkit/py.typed")
    for name in needed:
        assert name in files, f"{name} is not in the sdist"
    ignored = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        input="\n".join(f for f in files if f != "PKG-INFO"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ignored.returncode in (0, 1), ignored.stderr  # 1: none of them is ignored
    assert not ignored.stdout.split(), f"the sdist holds files git ignores: {ignored.stdout.split()}"
