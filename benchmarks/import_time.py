"""Import cost: `import elicitkit.client, elicitkit.server` against the SDK's own
`import mcp.client, mcp.server.mcpserver`, what any program on the SDK pays anyway.

Each sample is a fresh interpreter that times only the import statement (interpreter start-up
is left out: it is the same for both); the two kinds of process alternate, so a busy moment
of the machine falls on both alike, and each side's figure is the median of its samples.
Bytecode is on, as in any installed package: the warm-up writes the `.pyc` files (even where
PYTHONDONTWRITEBYTECODE is set) so that no sample compiles source.
elicitkit's import includes the SDK's, so the ratio is 1 + elicitkit's own share.

Run: `.venv/bin/python benchmarks/import_time.py` (about a minute). `import_cpu_ratio` is the
same ratio in CPU time, which a busy machine disturbs less. `run()` returns the figures.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

ELICITKIT = "elicitkit.client, elicitkit.server"
SDK = "mcp.client, mcp.server.mcpserver"

_TIMED = (
    "import time; t, c = time.perf_counter(), time.process_time(); import {modules}; "
    "print(time.perf_counter() - t, time.process_time() - c)"
)


def import_seconds(modules: str) -> tuple[float, float]:
    """Seconds (wall clock, CPU) one fresh interpreter takes to run `import <modules>`."""
    done = subprocess.run(
        [sys.executable, "-c", _TIMED.format(modules=modules)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"},
    )
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def run(samples: int = 21, warmup: int = 1) -> dict[str, float]:
    for _ in range(warmup):  # the first import after a change also writes .pyc files
        import_seconds(ELICITKIT)
        import_seconds(SDK)
    ours: list[tuple[float, float]] = []
    sdk: list[tuple[float, float]] = []
    for i in range(samples):
        pair = [(ours, ELICITKIT), (sdk, SDK)]
        for into, modules in pair if i % 2 == 0 else pair[::-1]:
            into.append(import_seconds(modules))
    ours_ms, sdk_ms = (statistics.median(w for w, _ in side) * 1000 for side in (ours, sdk))
    ours_cpu, sdk_cpu = (statistics.median(c for _, c in side) * 1000 for side in (ours, sdk))
    return {
        "import_ratio": ours_ms / sdk_ms,
        "import_elicitkit_ms": ours_ms,
        "import_sdk_ms": sdk_ms,
        "import_cpu_ratio": ours_cpu / sdk_cpu,  # CPU time: less disturbed by a busy machine
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<22} {value:10.3f}")
