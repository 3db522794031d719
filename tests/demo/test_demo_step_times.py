"""The demo's step headers each say how long their own step took, so they add up to the whole."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ELICITKIT = Path(sys.executable).parent / "elicitkit"


def test_the_step_times_add_up_to_at_most_the_whole_run(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LANG")}
    done = subprocess.run(
        [str(ELICITKIT), "demo", "--script", "--data-dir", str(tmp_path), "--locale", "en"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=clean,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    steps = [float(s) for s in re.findall(r"^\[\d+/\d+\] .* \((\d+\.\d) s\)$", done.stdout, re.MULTILINE)]
    whole = re.search(r"All \d+ steps behaved as expected, in (\d+\.\d) s\.", done.stdout)
    assert whole is not None and len(steps) == 10, done.stdout
    # Each is rounded to a tenth: the sum may exceed the whole by half a tenth per step at most.
    assert sum(steps) <= float(whole.group(1)) + 0.05 * len(steps), (steps, whole.group(1))
