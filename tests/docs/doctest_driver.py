"""Run REPL sessions as one doctest in this interpreter (a doc venv's), as a reader's REPL would.

Reads a JSON list of `[name, line, text]` on stdin; the sessions run in order and share one
namespace. Prints doctest's report and exits 1 when an example fails (2 when none ran).
Imports only the standard library: it runs in venvs that have elicitkit and its extras only.
"""

import doctest
import json
import sys


def main() -> int:
    sessions = json.load(sys.stdin)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {"__name__": "__doc_session__"}
    for name, line, text in sessions:
        test = parser.get_doctest(text, globs, name, name, line)
        runner.run(test, out=sys.stdout.write, clear_globs=False)
        globs = test.globs  # a DocTest copies its globals; the next session goes on from these
    failed, attempted = runner.summarize(verbose=False)
    return 2 if attempted == 0 else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
