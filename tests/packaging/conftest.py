from __future__ import annotations

from pathlib import Path

import pytest
from venvs import build_distributions, make_venv


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sdist and the wheel, built once for the session."""
    return build_distributions(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def sdist(distributions: tuple[Path, Path]) -> Path:
    return distributions[0]


@pytest.fixture(scope="session")
def wheel(distributions: tuple[Path, Path]) -> Path:
    return distributions[1]


@pytest.fixture(scope="session")
def base_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with `pip install elicitkit` (the built wheel, no extras)."""
    return make_venv(tmp_path_factory.mktemp("base") / "venv", str(wheel))
