"""A stand-in for the person's browser at a sign-in, set as $BROWSER: `follow_url.py URL` opens URL
and follows its redirects, as a browser does when the authorization server approves at once
(the conformance harness's does), so the last one lands on the bridge's callback."""

import sys
import urllib.request

with urllib.request.urlopen(sys.argv[1], timeout=30) as page:
    page.read()
