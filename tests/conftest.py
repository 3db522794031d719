"""Fixtures and hooks every test folder shares."""

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


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _skip_fails(report: pytest.CollectReport | pytest.TestReport) -> None:
    """In CI a skip is a failure: there every peer and extra is installed, so a skip means one is missing."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, where every test must run (CI is set): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
    report: pytest.TestReport = yield
    if report.skipped and not hasattr(report, "wasxfail") and _in_ci():  # an xfail stays an xfail
        _skip_fails(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport:
    report: pytest.CollectReport = yield  # a module-level pytest.skip or importorskip
    if report.skipped and _in_ci():
        _skip_fails(report)
    return report


# Folders whose session fixtures build something costly (a wheel, fresh venvs) run in one xdist
# worker each, so they build it once; every other file stays whole in one worker (its module
# fixtures and servers are started once, and its tests keep their order).
_ONE_WORKER_FOLDERS = ("docs", "packaging")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups tests for `pytest -n N --dist loadgroup` (scripts/test); without xdist it changes nothing."""
    tests = Path(__file__).parent
    for item in items:
        if any(m.name == "xdist_group" for m in item.iter_markers()):
            continue
        where = item.path.relative_to(tests)
        group = where.parts[0] if where.parts[0] in _ONE_WORKER_FOLDERS else where.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))
