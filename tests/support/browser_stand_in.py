"""A stand-in for the person's browser, set as $BROWSER: `browser_stand_in.py RECORD URL`.

Like a real browser's launcher it starts the browser and returns at once; the "browser" is a
process that keeps URL in its arguments while it lives (as a real one does), appends
"PID URL" to RECORD, and stays until it is stopped (or ten minutes pass). A test reads every
process's arguments meanwhile, then stops it by that PID.
"""

import os
import subprocess
import sys
import time

if __name__ == "__main__":
    if sys.argv[1] == "--browser":
        record, url = sys.argv[2], sys.argv[3]
        with open(record, "a", encoding="utf-8") as opened:
            opened.write(f"{os.getpid()} {url}\n")
        time.sleep(600)
    else:
        subprocess.Popen(
            [sys.executable, __file__, "--browser", sys.argv[1], sys.argv[2]],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
