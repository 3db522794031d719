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


# Under `pytest -n N --dist loadfile` (scripts/test) each test file runs whole in one worker (its
# module fixtures and servers start once, its tests keep their order), and so does each folder
# below, whose session fixtures build something costly (a wheel, fresh venvs): it is built once.
_ONE_WORKER_FOLDERS = ("docs", "packaging")


def _work_unit(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "tests" and parts[1] in _ONE_WORKER_FOLDERS else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadfile`, with the folders above as one unit each."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class _Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _work_unit(nodeid)

    return _Scheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker, the folders above come first: they are the longest units, so they
    start at once rather than last. A plain run keeps pytest's order."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: _work_unit(item.nodeid) == item.nodeid.split("::", 1)[0])
