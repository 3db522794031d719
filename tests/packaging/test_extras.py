"""Each optional feature names its extra when that extra is missing, and the extras table is
whole: `all` brings every extra, `dev` brings `all`, and each one's requirements resolve."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from venvs import ROOT, run_in

from elicitkit.extras import MissingExtraError, needs

HERE = Path(__file__).resolve().parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS: dict[str, list[str]] = PYPROJECT["project"]["optional-dependencies"]
FEATURES = sorted(set(EXTRAS) - {"all", "dev"})
PROBED = {"redis", "sqlite", "oauth", "terminal", "web", "cli"}  # the features probe_features.py tries

EXPECTED = {
    "redis_store": "redis",
    "open_redis": "redis",
    "open_redis_bus": "redis",
    "sqlite_store": "sqlite",
    "open_sqlite": "sqlite",
    "url_mode_default_store": "sqlite",
    "oauth_connection": "oauth",
    "oauth_login": "oauth",
    "url_mode": "web",
    "web_ui": "web",
    "terminal_ui": "terminal",
}


def sentence(extra: str) -> str:
    return f"install it with: pip install 'elicitkit[{extra}]'"


def test_a_missing_extra_is_named_by_every_feature_that_needs_it(base_python: Path) -> None:
    outcomes = json.loads(run_in(base_python, HERE / "probe_missing.py"))
    for feature, extra in EXPECTED.items():
        outcome = outcomes[feature]
        assert outcome is not None, f"{feature} worked without elicitkit[{extra}]"
        assert outcome["type"] == "MissingExtraError" and outcome["import_error"], outcome
        assert outcome["message"].endswith(sentence(extra)), outcome
    assert outcomes["memory_store"] is None  # the in-memory store and bus need nothing optional


def test_the_command_without_its_extra_says_which_to_install(base_python: Path) -> None:
    command = base_python.parent / "elicitkit"
    run = subprocess.run([str(command), "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip().endswith(sentence("cli")), run.stderr
    assert "Traceback" not in run.stderr


def test_needs_names_the_extra_and_leaves_other_import_errors_alone() -> None:
    with (
        pytest.raises(MissingExtraError, match=r"'no_such_lib'.*pip install 'elicitkit\[redis\]'$") as caught,
        needs("redis"),
    ):
        import no_such_lib.sub  # type: ignore[import-not-found]  # noqa: F401
    assert isinstance(caught.value, ImportError) and caught.value.name == "no_such_lib"
    with pytest.raises(ModuleNotFoundError) as own, needs("redis"):
        import elicitkit.no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert not isinstance(own.value, MissingExtraError)
    with pytest.raises(ImportError) as other, needs("redis"):
        from elicitkit.schema import no_such_name  # type: ignore[attr-defined]  # noqa: F401
    assert not isinstance(other.value, MissingExtraError)


def _names(requirements: list[str]) -> set[str]:
    """Extras named by `elicitkit[...]` self-references among `requirements`."""
    found: set[str] = set()
    for line in requirements:
        req = Requirement(line)
        if req.name == "elicitkit":
            found |= req.extras
    return found


def _brings(extra: str) -> set[str]:
    """The distributions `elicitkit[extra]` installs, through the extras it names."""
    found: set[str] = set()
    for line in EXTRAS[extra]:
        req = Requirement(line)
        found |= set().union(*map(_brings, req.extras)) if req.name == "elicitkit" else {req.name}
    return found


def test_all_brings_every_extra_and_dev_brings_all() -> None:
    assert FEATURES, EXTRAS
    assert _names(EXTRAS["all"]) == set(FEATURES)
    assert "all" in _names(EXTRAS["dev"])
    for extra in FEATURES:
        assert _names(EXTRAS[extra]) <= set(FEATURES) - {extra}, extra


@pytest.mark.parametrize("extra", FEATURES)
def test_each_extra_is_installed_in_the_dev_environment(extra: str) -> None:
    """The dev install took `[all]`, so every extra's requirements resolved and are there."""
    for line in EXTRAS[extra]:
        req = Requirement(line)
        if req.name == "elicitkit":
            continue
        version = importlib.metadata.version(req.name)
        assert req.specifier.contains(version, prereleases=True), (extra, line, version)


def test_the_wheel_ships_the_license(wheel: Path) -> None:
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    text = zipfile.ZipFile(wheel).read(license_file).decode()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the elicitkit authors" in text
    assert (ROOT / "LICENSE").read_text() == text
    assert sys.version_info >= (3, 11)


@pytest.mark.parametrize("extra", FEATURES)
def test_each_extra_alone_installs_and_brings_its_features(
    extra: str, base_python: Path, wheel: Path, tmp_path: Path
) -> None:
    """`pip install 'elicitkit[<extra>]'` on a copy of the base install: its features work, no other."""
    venv = tmp_path / "venv"
    shutil.copytree(base_python.parent.parent, venv, symlinks=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "-q", f"{wheel}[{extra}]"], check=True, capture_output=True, timeout=600)
    # The features it names, and any whose requirements ended up installed too, directly or
    # through another package (fastmcp brings platformdirs, all the SQLite store needs); an
    # extra the probe does not know only installs.
    listed = subprocess.run(
        [*pip, "list", "--format=json"], check=True, capture_output=True, text=True, timeout=120
    )
    installed = {canonicalize_name(d["name"]) for d in json.loads(listed.stdout)}
    expected = {
        feature for feature in PROBED if {canonicalize_name(name) for name in _brings(feature)} <= installed
    }
    assert {feature for feature in PROBED if _brings(feature) <= _brings(extra)} <= expected
    assert set(json.loads(run_in(python, HERE / "probe_features.py"))) == expected


def test_the_readme_lists_every_extra() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| Extra | Brings | For |") :].split("\n\n", 1)[0]
    listed = {row.split("`")[1] for row in table.splitlines()[2:]}
    assert listed == set(EXTRAS) - {"dev"}
