"""`elicitkit check` as a person runs it: exit codes, the table, `--json`, stdio and HTTP targets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.quickstart_server import quickstart_server
from support.server_process import free_port, stop, wait_until_serving

ELICITKIT = Path(sys.executable).with_name("elicitkit")
SERVER = Path(__file__).with_name("faulty_server.py")
IDS = ["S-01", "S-02", "S-03", "S-10", "S-11", "S-12", "S-13", "S-20", "S-21", "S-23", "S-24", "S-34", "S-35"]
IDS += ["T-01", "T-03", "T-04", "T-05", "T-06", "T-07", "T-08", "T-09", "T-40"]


def check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ELICITKIT), "check", "--timeout", "5", *args], capture_output=True, text=True, timeout=300
    )


def test_the_quickstart_server_has_no_failure(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    with quickstart_server() as url:
        done = check(url, "--json", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert set(report) == {"target", "protocol_versions", "findings"}
    assert report["target"] == url
    assert report["protocol_versions"] == ["2025-11-25", "2026-07-28"]
    assert [f["id"] for f in report["findings"]] == IDS
    verdicts = {f["id"]: f["verdict"] for f in report["findings"]}
    assert "fail" not in verdicts.values()
    for rule in ("S-01", "S-02", "S-03", "S-10", "S-11", "S-12", "S-13"):
        assert verdicts[rule] == "pass", report
    assert all(set(f) == {"id", "verdict", "evidence"} and f["evidence"] for f in report["findings"])
    # the table for a person, grouped by area, and the progress on stderr
    assert "Form mode" in done.stdout and "URL mode" in done.stdout and "S-13" in done.stdout
    assert "tool book" in done.stderr and "2026-07-28" in done.stderr


def test_a_stdio_server_that_breaks_a_rule_exits_1_with_the_evidence() -> None:
    done = check("--json", "-", "--tool", "book", "--args", "{}", "--", sys.executable, str(SERVER), "S-01")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    failed = {f["id"]: f["evidence"] for f in report["findings"] if f["verdict"] == "fail"}
    assert list(failed) == ["S-01"]
    assert '"mode":"form"' in failed["S-01"] and "did not declare" in failed["S-01"]
    assert report["target"].endswith("faulty_server.py S-01")
    # only the named tool was called
    assert "tool connect" not in done.stderr and "tool book" in done.stderr
    verdicts = {f["id"]: f["verdict"] for f in report["findings"]}
    assert verdicts["S-20"] == "not-observed" and verdicts["S-10"] == "pass"


def test_a_server_that_asks_for_a_password_in_a_form_fails_s11_and_exits_1() -> None:
    """A field keyed `password`, titled "Password": a broken MUST with evidence, not a word match."""
    done = check("--tool", "book", "--args", "{}", "--", sys.executable, str(SERVER), "S-11")
    assert done.returncode == 1, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("│ S-11"))
    assert "fail" in row, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    done = check("--json", "-", "--tool", "book", "--args", "{}", "--", sys.executable, str(SERVER), "S-11")
    failed = {f["id"]: f["evidence"] for f in json.loads(done.stdout)["findings"] if f["verdict"] == "fail"}
    assert list(failed) == ["S-11"]
    assert "/properties/password: its key 'password' names a credential ('password')" in failed["S-11"]


def test_an_unreachable_target_exits_2_with_a_sentence() -> None:
    done = check(f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 2
    assert "Could not connect to http://127.0.0.1:" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_command_that_is_not_an_mcp_server_exits_2_with_a_sentence() -> None:
    done = check("--", sys.executable, "-c", "print('hello')")
    assert done.returncode == 2
    assert "Could not connect to" in done.stderr and "Traceback" not in done.stderr


def test_an_unknown_tool_exits_2() -> None:
    done = check("--tool", "nope", "--", sys.executable, str(SERVER), "good")
    assert done.returncode == 2
    assert "lists no tool named nope" in done.stderr


def test_a_server_that_dies_midway_still_gets_a_report() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SERVER), "dies", str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(server, f"http://127.0.0.1:{port}/mcp")
        done = check(f"http://127.0.0.1:{port}/mcp")
    finally:
        stop(server)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stopped early" in done.stdout and "Traceback" not in done.stdout + done.stderr
    assert "S-01" in done.stdout and "not-observed" in done.stdout


def test_a_bare_word_is_never_run_and_both_forms_are_shown(tmp_path: Path) -> None:
    made = tmp_path / "made"
    for words in (["touch", str(made)], ["touch"]):
        done = check(*words)
        assert done.returncode == 2, done.stderr
        assert not made.exists()
        said = " ".join(done.stderr.split())
        assert "http(s)://" in said and "after --" in said and "stdio:COMMAND" in said, said
        assert "Traceback" not in done.stderr


def test_a_url_without_its_scheme_is_named() -> None:
    for text in ("localhost:8000/mcp", "127.0.0.1:8000/mcp", "mcp.example.com/mcp"):
        done = check(text)
        assert done.returncode == 2
        said = " ".join(done.stderr.replace("│", " ").split())
        assert f"{text!r} is a URL without its scheme; did you mean http://{text} ?" in said, said


def test_a_command_runs_in_the_stdio_form_too() -> None:
    done = check("--json", "-", "--tool", "book", f"stdio:{sys.executable} {SERVER} S-01")
    assert done.returncode == 1, done.stderr
    failed = [f["id"] for f in json.loads(done.stdout)["findings"] if f["verdict"] == "fail"]
    assert failed == ["S-01"]


def test_words_before_the_dashes_are_refused(tmp_path: Path) -> None:
    done = check("http://127.0.0.1:9/mcp", "--", sys.executable, str(SERVER), "good")
    assert done.returncode == 2
    assert "comes before --" in " ".join(done.stderr.split())


def test_an_endpoint_that_answers_404_is_named_with_its_status() -> None:
    with quickstart_server() as url:
        wrong = url.rsplit("/", 1)[0] + "/not-mcp"
        done = check(wrong)
    assert done.returncode == 2
    assert f"Could not connect to {wrong}: it answered HTTP 404" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
