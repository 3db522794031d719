"""A real PostgreSQL for tests and benchmarks: Debian's `initdb` and `postgres` from
/usr/lib/postgresql/*/bin, run in a temp folder on a free 127.0.0.1 port, restartable, removed
at the end.

PostgreSQL refuses to run as root, so as root (CI) the folder is handed to the `postgres` user
and the processes run as that user (`subprocess.Popen(user=...)`, so the pid is postgres's own
and `kill()` is a real crash); as anyone else they run as that user. The cluster is made once
per test session (initdb is the slow part) and copied for each server.

    from support.postgres_server import PostgresServer, postgres_server   # the class, and a pytest fixture
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.server_process import free_port

PASSWORD = "elicitkit-pw"
USER = "elicitkit"


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


BIN = _bin_dir()
MISSING = (
    "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres); scripts/setup installs "
    "Debian's postgresql package"
)


def _run_as() -> str | None:
    """The user to run PostgreSQL as: `postgres` when we are root, else ourselves."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root, and there is no postgres user to run PostgreSQL as") from None
    return "postgres"


def _hand_over(path: Path, user: str | None) -> None:
    if user is None:
        return
    entry = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)
    os.chown(path, entry.pw_uid, entry.pw_gid)


_template: Path | None = None


def _template_cluster() -> Path:
    """An initdb'd data folder, made once per process and copied for every server."""
    global _template
    if _template is not None and _template.exists():
        return _template
    assert BIN is not None, MISSING
    user = _run_as()
    folder = Path(tempfile.mkdtemp(prefix="elicitkit-pgtemplate-"))
    folder.chmod(0o755)
    _hand_over(folder, user)
    pwfile = folder / "pw"
    pwfile.write_text(PASSWORD)
    _hand_over(pwfile, user)
    subprocess.run(
        [
            str(BIN / "initdb"),
            "-D",
            str(folder / "data"),
            "-U",
            USER,
            f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "--encoding=UTF8",
            "--no-instructions",
            "--no-sync",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        user=user,
        cwd=folder,
    )
    pwfile.unlink()
    _template = folder
    return folder


class PostgresServer:
    """One PostgreSQL server: `start()`, `stop()` (fast shutdown), `kill()` (SIGKILL), `restart()`."""

    def __init__(self, *, port: int | None = None) -> None:
        if BIN is None:
            raise RuntimeError(MISSING + ", and these tests need it.")
        self.user = _run_as()
        self.folder = Path(tempfile.mkdtemp(prefix="elicitkit-pg-"))
        self.folder.chmod(0o755)
        shutil.copytree(_template_cluster() / "data", self.folder / "data", symlinks=True)
        (self.folder / "data").chmod(0o700)
        _hand_over(self.folder, self.user)
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/postgres"

    def start(self, timeout: float = 30.0) -> None:
        assert BIN is not None
        args = [
            str(BIN / "postgres"),
            "-D", str(self.folder / "data"),
            "-p", str(self.port),
            "-c", "listen_addresses=127.0.0.1",
            "-c", f"unix_socket_directories={self.folder}",
            "-c", "max_connections=200",
            "-c", "shared_buffers=32MB",
            "-c", "fsync=on",
            "-c", "synchronous_commit=on",
            "-c", "logging_collector=off",
        ]  # fmt: skip
        log = open(self.folder / "postgres.log", "ab")  # noqa: SIM115 - the child keeps it
        with log:
            self.process = subprocess.Popen(args, stdout=log, stderr=log, user=self.user, cwd=self.folder)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                text = (self.folder / "postgres.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"postgres exited at start (code {self.process.returncode}):\n{text}")
            ready = subprocess.run(
                [str(BIN / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)], check=False
            )
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"postgres did not answer on 127.0.0.1:{self.port} within {timeout:g}s")

    def stop(self) -> None:
        """A fast shutdown (SIGINT): connections are cut, committed work is flushed."""
        self._end(signal.SIGINT)

    def kill(self) -> None:
        """A crash: SIGKILL of the postmaster and its children; recovery replays the WAL at start."""
        process = self.process
        if process is not None and process.poll() is None:
            for pid in _children(process.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self._end(signal.SIGKILL)

    def pause(self) -> None:
        """Freeze the server and its backends (SIGSTOP): connections stay open and nothing
        answers, as with a hung host; `resume()` thaws them."""
        self._signal_all(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_all(signal.SIGCONT)

    def _signal_all(self, sig: signal.Signals) -> None:
        assert self.process is not None
        for pid in [self.process.pid, *_children(self.process.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _end(self, sig: signal.Signals) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

    def restart(self, *, down_for: float = 0.0, crash: bool = False) -> None:
        self.kill() if crash else self.stop()
        time.sleep(down_for)
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _children(parent: int) -> list[int]:
    """The pids whose parent is `parent` (from /proc: no procps needed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(entry.name))
    return found


def require_postgres() -> None:
    if BIN is None:
        pytest.skip(MISSING)


@pytest.fixture(scope="session")
def shared_postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL for the session's tests that only need a database (each its own tables)."""
    require_postgres()
    with PostgresServer() as server:
        yield server


@pytest.fixture
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL of its own, for a test that stops or crashes it."""
    require_postgres()
    with PostgresServer() as server:
        yield server
