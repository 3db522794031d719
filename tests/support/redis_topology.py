"""Replicated and sharded Redis for tests, from Debian's `redis-server`, all on 127.0.0.1:

- `SentinelGroup`: one primary, one replica and three Sentinels (quorum 2) watching them, with
  a short down-after so a killed primary is failed over in a second or two.
- `ClusterNodes`: three primaries with the 16,384 slots split between them (`redis-cli --cluster
  create`), no replicas.

Both can add an ACL user (`user`, `password`) that the tests' URLs log in as.

    from support.redis_topology import ClusterNodes, SentinelGroup, redis_cluster, sentinel_group
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.redis_server import REDIS_SERVER, RedisServer, TLSFiles
from support.server_process import free_port

REDIS_CLI = str(Path(REDIS_SERVER).with_name("redis-cli"))
SERVICE = "elicitkit"
USER, PASSWORD = "elicitkit", "elicitkit-pw"
ADMIN_PASSWORD = "admin-pw"
# The data nodes' ACL: the tests' user may do what the store and bus need (see
# docs/deployment-redis.md); the `default` user stays for replication and Sentinel (admin password).
_ACL = ["--user", USER, "on", f">{PASSWORD}", "~*", "&*", "+@all", "--requirepass", ADMIN_PASSWORD]


def _ask(port: int, *command: str, password: str | None = ADMIN_PASSWORD, tls: TLSFiles | None = None) -> str:
    args = [REDIS_CLI, "-h", "127.0.0.1", "-p", str(port), "--no-auth-warning", *_cli_tls(tls)]
    if password:
        args += ["-a", password]
    done = subprocess.run([*args, *command], capture_output=True, text=True, timeout=10, check=False)
    return done.stdout


def _cli_tls(tls: TLSFiles | None) -> list[str]:
    if tls is None:
        return []
    return ["--tls", "--cacert", tls.ca, "--cert", tls.client_cert, "--key", tls.client_key]


class SentinelGroup:
    """A primary, a replica, three Sentinels; `kill_primary()` crashes whichever is primary now."""

    def __init__(self, *, down_after_ms: int = 600, tls: TLSFiles | None = None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="elicitkit-sentinel-"))
        self.tls = tls
        first = free_port()
        auth = [*_ACL, "--masterauth", ADMIN_PASSWORD, *(["--tls-replication", "yes"] if tls else [])]
        self.nodes = [
            RedisServer(self.folder / "a", port=first, args=auth, tls=tls),
            RedisServer(self.folder / "b", args=[*auth, "--replicaof", "127.0.0.1", str(first)], tls=tls),
        ]
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.down_after_ms = down_after_ms
        self.sentinels: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"{'rediss' if self.tls else 'redis'}+sentinel://{USER}:{PASSWORD}@{hosts}/{SERVICE}/0"

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        self.nodes[1].wait_in_sync(self.nodes[0])
        primary = self.nodes[0].port
        for index, port in enumerate(self.sentinel_ports):
            config = self.folder / f"sentinel-{index}.conf"
            listen = f"port {port}\n"
            if self.tls:
                listen = (
                    f"port 0\ntls-port {port}\ntls-replication yes\n"
                    f"tls-cert-file {self.tls.folder / 'server.crt'}\n"
                    f"tls-key-file {self.tls.folder / 'server.key'}\n"
                    f"tls-ca-cert-file {self.tls.ca}\ntls-auth-clients yes\n"
                    # its own connections to the nodes present the same certificate as a client
                    f"tls-client-cert-file {self.tls.client_cert}\n"
                    f"tls-client-key-file {self.tls.client_key}\n"
                )
            config.write_text(
                f"{listen}bind 127.0.0.1\ndir {self.folder}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 2\n"
                f"sentinel auth-pass {SERVICE} {ADMIN_PASSWORD}\n"
                f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}\n"
                f"sentinel failover-timeout {SERVICE} 4000\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            log = self.folder / f"sentinel-{index}.log"
            self.sentinels.append(
                subprocess.Popen(
                    [REDIS_SERVER, str(config), "--sentinel", "--logfile", str(log)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        # Ready means able to fail over: each Sentinel sees the replica, and knows the other two
        # (they find each other by hello messages every 2 s; before that no quorum can form).
        self._wait(lambda: all(self._sentinel_ready(port) for port in self.sentinel_ports), within=60)

    def _sentinel_ready(self, port: int) -> bool:
        replicas = _ask(port, "SENTINEL", "REPLICAS", SERVICE, password=None, tls=self.tls)
        peers = _ask(port, "SENTINEL", "SENTINELS", SERVICE, password=None, tls=self.tls)
        others = len(self.sentinel_ports) - 1
        return "flags" in replicas and "s_down" not in replicas and peers.split().count("runid") == others

    def primary_port(self) -> int:
        reply = _ask(
            self.sentinel_ports[0],
            "SENTINEL",
            "GET-MASTER-ADDR-BY-NAME",
            SERVICE,
            password=None,
            tls=self.tls,
        )
        return int(reply.split()[1])

    def kill_primary(self) -> RedisServer:
        """Crash the current primary (SIGKILL); the Sentinels promote the replica."""
        port = self.primary_port()
        (node,) = [n for n in self.nodes if n.port == port]
        node.kill()
        return node

    def wait_failover(self, old_port: int, within: float = 30.0) -> int:
        self._wait(lambda: self.primary_port() != old_port, within)
        new = self.primary_port()
        self._wait(lambda: "role:master" in _ask(new, "INFO", "replication", tls=self.tls), within)
        return new

    @staticmethod
    def _wait(check, within: float = 20.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + within
        while True:
            try:
                if check():
                    return
            except (OSError, ValueError, IndexError, subprocess.SubprocessError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the Sentinel group did not reach the expected state in time")
            time.sleep(0.05)

    def close(self) -> None:
        for process in self.sentinels:
            process.kill()
            process.wait(10)
        for node in self.nodes:
            node.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> SentinelGroup:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ClusterNodes:
    """Three primaries forming one Cluster (slots split evenly), with the tests' ACL user; with
    `tls`, every node speaks only TLS (clients, and the cluster bus between nodes)."""

    def __init__(self, tls: TLSFiles | None = None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="elicitkit-cluster-"))
        self.tls = tls
        self.nodes = []
        for index in range(3):
            args = [
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000",
                "--cluster-port", str(free_port()),
                *_ACL,
                "--masterauth", ADMIN_PASSWORD,
                *(["--tls-cluster", "yes", "--tls-replication", "yes"] if tls else []),
            ]  # fmt: skip
            self.nodes.append(RedisServer(self.folder / f"n{index}", args=args, tls=tls))

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"{'rediss' if self.tls else 'redis'}+cluster://{USER}:{PASSWORD}@{hosts}"

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        created = subprocess.run(
            [REDIS_CLI, "--no-auth-warning", "-a", ADMIN_PASSWORD, *_cli_tls(self.tls), "--cluster", "create",
             *addresses, "--cluster-yes"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{created.stdout}\n{created.stderr}")
        SentinelGroup._wait(
            lambda: all(
                "cluster_state:ok" in _ask(node.port, "CLUSTER", "INFO", tls=self.tls) for node in self.nodes
            )
        )

    def close(self) -> None:
        for node in self.nodes:
            node.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ClusterNodes:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[ClusterNodes]:
    """One 3-primary Cluster for the session (each test uses its own key prefix)."""
    if not Path(REDIS_CLI).exists():
        pytest.skip(f"{REDIS_CLI} is missing (Debian's redis-tools, installed with redis-server)")
    with ClusterNodes() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def shared_sentinels() -> Iterator[SentinelGroup]:
    """One Sentinel group for the session's tests that do not fail it over."""
    with SentinelGroup() as group:
        yield group


@pytest.fixture
def sentinel_group() -> Iterator[SentinelGroup]:
    """A Sentinel group of its own, for a test that kills its primary."""
    with SentinelGroup() as group:
        yield group
