"""The doc tests' fresh venvs: the wheel is built once per session, and each set of extras gets
one venv shared by every page and module that names it (see `docvenvs`)."""

from __future__ import annotations

import pytest
from docvenvs import Venvs, build_wheel


@pytest.fixture(scope="session")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> Venvs:
    return Venvs(build_wheel(tmp_path_factory.mktemp("dist")), tmp_path_factory.mktemp("venvs"))
