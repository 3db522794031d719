"""Run every benchmark and print the figures against the targets of issues 8 and 16.

    .venv/bin/python benchmarks/run.py [--json PATH] [--quick] [--check] [--all]

Each benchmark module runs in a fresh process of its own (one's threads, servers and memory do
not disturb the next), one after another. The table shows each figure, its target and whether
it is met; `--json PATH` writes the figures as one JSON object of numbers; `--quick` runs tiny
sizes (a smoke run: the figures are not meaningful); `--check` exits 1 when a target is missed;
`--all` also prints the supporting figures (raw rates, medians, the parts of a latency).
A benchmark that fails prints its error and the run exits 1 without writing the JSON.
docs/performance.md explains what each figure measures.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# module -> (full-size arguments, quick arguments) of its run()
BENCHMARKS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "roundtrip": ({}, {"rounds": 10, "warmup": 2, "budget": 5.0}),
    "validate": ({}, {"seconds": 0.05}),
    "store_flow": ({}, {"rounds": 2, "seconds": 0.05}),
    "completion": ({}, {"flows": 10, "warmup": 2}),
    "pending_memory": ({}, {"n": 300}),
    "landing": ({}, {"rounds": 2, "per_round": 20}),
    "hostile": ({}, {"seconds": 1.0}),
    "import_time": ({}, {"samples": 1, "warmup": 0}),
    "postgres": ({}, {"rounds": 2, "seconds": 0.05, "flows": 10, "warmup": 2}),
}

KEYS = [
    "form_roundtrip_ratio",
    "validate_ratio",
    "sqlite_flow_ratio",
    "redis_flow_ratio",
    "completion_p99_ms_local",
    "completion_p99_ms_replicas",
    "redis_pubsub_p99_ms",
    "pending_10k_bytes_each",
    "landing_rps_ratio",
    "hostile_loop_lag_ms",
    "hostile_prompts_shown",
    "import_ratio",
    "postgres_flow_ratio",
    "completion_p99_ms_postgres",
]


@dataclass(frozen=True)
class Target:
    text: str
    met: Callable[[float, dict[str, float]], bool]


def replica_limit(figures: dict[str, float]) -> float:
    """Issue 8: the replica completion p99 may be at most 3 bare pub/sub round trips plus 5 ms."""
    return 3 * figures["redis_pubsub_p99_ms"] + 5


TARGETS: dict[str, Target] = {
    "form_roundtrip_ratio": Target("<= 1.10", lambda v, f: v <= 1.10),
    "validate_ratio": Target(">= 10", lambda v, f: v >= 10),
    "sqlite_flow_ratio": Target(">= 0.5", lambda v, f: v >= 0.5),
    "redis_flow_ratio": Target(">= 0.5", lambda v, f: v >= 0.5),
    "completion_p99_ms_replicas": Target("<= 3 x pubsub + 5", lambda v, f: v <= replica_limit(f)),
    "pending_10k_bytes_each": Target("<= 4096", lambda v, f: v <= 4096),
    "landing_rps_ratio": Target(">= 0.5", lambda v, f: v >= 0.5),
    "hostile_loop_lag_ms": Target("<= 50", lambda v, f: v <= 50),
    "hostile_prompts_shown": Target("<= rate limit", lambda v, f: v <= f["hostile_prompts_allowed"]),
    "import_ratio": Target("<= 1.15", lambda v, f: v <= 1.15),
    "postgres_flow_ratio": Target(">= 0.5", lambda v, f: v >= 0.5),
}


def run_one(module: str, quick: bool) -> dict[str, float]:
    """Run one benchmark module's `run()` in a fresh process; its figures."""
    full, small = BENCHMARKS[module]
    kwargs = small if quick else full
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import importlib; "
        "figures = importlib.import_module(sys.argv[2]).run(**json.loads(sys.argv[3])); "
        "print('\\n' + json.dumps(figures))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(HERE), module, json.dumps(kwargs)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark {module} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: float(value) for name, value in figures.items()}


def table(figures: dict[str, float]) -> tuple[str, bool]:
    """The printed table, and whether every target is met."""
    lines = [f"{'name':<28} {'value':>12}  {'target':<20} {'result'}"]
    all_met = True
    for name in KEYS:
        value = figures[name]
        target = TARGETS.get(name)
        if target is None:
            verdict, text = "-", "(reference)"
        else:
            met = target.met(value, figures)
            all_met &= met
            verdict = "pass" if met else "FAIL"
            text = target.text
            if name == "completion_p99_ms_replicas":
                text = f"<= {replica_limit(figures):.2f} (3xpubsub+5)"
        lines.append(f"{name:<28} {value:>12.3f}  {text:<20} {verdict}")
    return "\n".join(lines), all_met


def main() -> int:
    parser = argparse.ArgumentParser(description="Run every elicitkit benchmark.")
    parser.add_argument("--json", type=Path, help="write the figures to this file as a JSON object")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not a measurement")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--all", action="store_true", help="also print every supporting figure")
    args = parser.parse_args()
    started = time.monotonic()
    figures: dict[str, float] = {}
    failed = False
    for module in BENCHMARKS:
        began = time.monotonic()
        try:
            figures.update(run_one(module, args.quick))
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
            print(exc, file=sys.stderr)
            failed = True
            continue
        print(f"  {module}: {time.monotonic() - began:.1f} s", file=sys.stderr)
    if failed:
        print("some benchmarks failed; no figures written", file=sys.stderr)
        return 1
    text, all_met = table(figures)
    print(text)
    if args.all:
        print("\nsupporting figures:")
        for name, value in figures.items():
            if name not in KEYS:
                print(f"  {name:<46} {value:>12.3f}")
    print(f"\ntotal {time.monotonic() - started:.0f} s{' (quick: not a measurement)' if args.quick else ''}")
    if args.json is not None:
        chosen = {name: figures[name] for name in KEYS}
        assert all(math.isfinite(value) for value in chosen.values()), chosen
        args.json.write_text(json.dumps(chosen, indent=2) + "\n")
    return 1 if args.check and not all_met else 0


if __name__ == "__main__":
    sys.exit(main())
