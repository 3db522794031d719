from __future__ import annotations

from pathlib import Path

import pytest
from venvs import build_wheel, make_venv


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def base_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with `pip install elicitkit` (the built wheel, no extras)."""
    return make_venv(tmp_path_factory.mktemp("base") / "venv", str(wheel))
