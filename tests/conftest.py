"""Fixtures every test folder may use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where screenshot tests write their pictures.

    A temporary folder by default, so a test run leaves the checkout clean; set
    ELICITKIT_SCREENSHOTS=docs/images to refresh the pictures the docs show.
    """
    chosen = os.environ.get("ELICITKIT_SCREENSHOTS")
    folder = Path(chosen).resolve() if chosen else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder
