"""A real `redis-server` for tests and benchmarks: started on a free 127.0.0.1 port in a temp
folder, restartable on the same port and folder, stopped at the end.

Persistence is the one docs/deployment-redis.md recommends: `appendonly yes` with
`appendfsync always`, so every write is in the append-only file on disk before Redis
acknowledges it, and a crash (even SIGKILL) right after loses nothing acknowledged.

    from support.redis_server import RedisServer, redis_server   # the class, and a pytest fixture

Tests import it from the `support` package (pytest puts `tests/` on the path through `tests/conftest.py`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from support.server_process import free_port

REDIS_SERVER = os.environ.get("ELICITKIT_REDIS_SERVER", "/usr/bin/redis-server")

PERSISTENCE = ("--appendonly", "yes", "--appendfsync", "always", "--save", "")


class RedisServer:
    """One redis-server process: `start()`, `stop()`, `kill()` (SIGKILL), `restart()`."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        port: int | None = None,
        password: str | None = None,
        tls: TLSFiles | None = None,
        args: Sequence[str] = (),
    ) -> None:
        if not Path(REDIS_SERVER).exists():
            raise RuntimeError(
                f"{REDIS_SERVER} is missing, and these tests need a real Redis; run scripts/setup "
                "(it installs Debian's redis-server) and try again."
            )
        self._own_folder = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="elicitkit-redis-")) if folder is None else folder
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.port = port or free_port()
        self.password = password
        self.tls = tls
        self.args = list(args)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"{'rediss' if self.tls else 'redis'}://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        ports = ["--port", str(self.port)]
        if self.tls:
            ports = ["--port", "0", "--tls-port", str(self.port), *self.tls.server_args()]
        args = [
            REDIS_SERVER,
            *ports,
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--daemonize", "no",
            "--logfile", str(self.folder / "redis.log"),
            *PERSISTENCE,
            *self.args,
        ]  # fmt: skip
        if self.password:
            args += ["--requirepass", self.password]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log_file = self.folder / "redis.log"
                log = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
                raise RuntimeError(f"redis-server exited at start (code {self.process.returncode}):\n{log}")
            if self._ready():
                return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not answer on 127.0.0.1:{self.port} within {timeout:g}s")

    def _ready(self) -> bool:
        """True once the server answers PING with PONG (or NOAUTH: up, wants a password)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as raw:
                sock = (
                    raw
                    if self.tls is None
                    else self.tls.client_context().wrap_socket(raw, server_hostname="127.0.0.1")
                )
                sock.sendall(b"PING\r\n")
                reply = sock.recv(64)
        except OSError:
            return False
        return reply.startswith((b"+PONG", b"-NOAUTH"))

    def info(self, section: str = "replication") -> dict[str, str]:
        """`INFO <section>` as a dict, asked as an operator would (redis-cli INFO replication),
        logged in with the server's password (or its `--requirepass`)."""
        password = self.password
        if password is None and "--requirepass" in self.args:
            password = self.args[self.args.index("--requirepass") + 1]
        commands = ([("AUTH", password)] if password else []) + [("INFO", section)]
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as raw:
            sock = (
                raw
                if self.tls is None
                else self.tls.client_context().wrap_socket(raw, server_hostname="127.0.0.1")
            )
            sock.sendall(b"".join(_resp(*command) for command in commands))
            reader = sock.makefile("rb")
            for _ in commands[:-1]:
                if not reader.readline().startswith(b"+OK"):
                    raise OSError(f"redis-server on {self.port} refused the password")
            header = reader.readline()
            if not header.startswith(b"$"):
                raise OSError(f"INFO on {self.port} answered {header!r}")
            body = reader.read(int(header[1:]) + 2).decode()
        return dict(line.split(":", 1) for line in body.splitlines() if ":" in line)

    def wait_in_sync(self, primary: RedisServer, within: float = 60.0) -> None:
        """Wait until this replica of `primary` is in sync, as an operator checks before relying
        on it: its own `INFO replication` says the link is up with no sync in progress (the
        initial copy is loaded), and the primary lists it `state=online`, so a `WAIT` on the
        primary counts it. A replica that has only connected (`connected_slaves:1`) may still be
        copying, and a write then waits for it in vain."""
        deadline = time.monotonic() + within
        mine: dict[str, str] = {}
        theirs: dict[str, str] = {}
        while True:
            with contextlib.suppress(OSError):  # not answering yet: asked again
                mine, theirs = self.info(), primary.info()
            online = any(
                key.startswith("slave") and f"port={self.port}," in value and "state=online" in value
                for key, value in theirs.items()
            )
            if (
                mine.get("master_link_status") == "up"
                and mine.get("master_sync_in_progress") == "0"
                and online
            ):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the replica on {self.port} was not in sync with {primary.port} within {within:g}s: "
                    f"replica {mine}, primary {theirs}"
                )
            time.sleep(0.05)

    def stop(self) -> None:
        """A clean shutdown (SIGTERM: Redis flushes the append-only file and exits)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """A crash: SIGKILL, no chance to flush anything more."""
        self._end(signal.SIGKILL)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open and nothing answers, as with a
        hung host or a network that drops packets; `resume()` thaws it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def _end(self, sig: signal.Signals) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

    def restart(self, *, down_for: float = 0.0, crash: bool = False) -> None:
        """Stop (or crash) and start again on the same port and folder, after `down_for` seconds."""
        self.kill() if crash else self.stop()
        time.sleep(down_for)
        self.start()

    def close(self) -> None:
        self.kill()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _resp(*words: str) -> bytes:
    """One command as RESP, what redis-cli sends."""
    encoded = [word.encode() for word in words]
    return f"*{len(encoded)}\r\n".encode() + b"".join(
        b"$%d\r\n%s\r\n" % (len(word), word) for word in encoded
    )


class TLSFiles:
    """A throwaway CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files."""

    def __init__(self, folder: Path) -> None:
        import datetime
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        folder.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.UTC)

        def issue(name: str, issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None, **kw: bool):  # type: ignore[no-untyped-def]
            key = ec.generate_private_key(ec.SECP256R1())
            subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
            issuer_name, issuer_key = issuer if issuer else (subject, key)
            builder = (
                x509.CertificateBuilder()
                .subject_name(subject)
                .issuer_name(issuer_name)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=kw.get("ca", False), path_length=None), critical=True)
            )
            if kw.get("server"):
                san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
                builder = builder.add_extension(san, critical=False)
            cert = builder.sign(issuer_key, hashes.SHA256())
            (folder / f"{name}.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
            (folder / f"{name}.key").write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
            return subject, key

        ca = issue("ca", None, ca=True)
        issue("server", ca, server=True)
        issue("client", ca)
        self.folder = folder
        self.ca = str(folder / "ca.crt")
        self.client_cert = str(folder / "client.crt")
        self.client_key = str(folder / "client.key")

    def server_args(self) -> list[str]:
        return [
            "--tls-cert-file", str(self.folder / "server.crt"),
            "--tls-key-file", str(self.folder / "server.key"),
            "--tls-ca-cert-file", self.ca,
            "--tls-auth-clients", "yes",
        ]  # fmt: skip

    def client_options(self) -> dict[str, Any]:
        """What a client passes to `open_store` / `open_bus` to reach this server."""
        return {"ssl_ca_certs": self.ca, "ssl_certfile": self.client_cert, "ssl_keyfile": self.client_key}

    def client_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.ca)
        context.load_cert_chain(self.client_cert, self.client_key)
        return context


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh redis-server for one test, with the documented persistence settings."""
    server = RedisServer(tmp_path / "redis")
    with server:
        yield server
