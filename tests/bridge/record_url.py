"""A stand-in for the person's browser, set as $BROWSER: `record_url.py FILE URL` appends URL to FILE.

The bridge opens pages through the standard library's `webbrowser`, which runs $BROWSER; the
test reads the file and opens each URL in Chromium, as the person's browser would.
"""

import sys

with open(sys.argv[1], "a", encoding="utf-8") as urls:
    urls.write(sys.argv[2] + "\n")
