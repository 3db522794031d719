"""`elicitkit url inspect`: the report for people and for scripts, and its exit status."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from elicitkit.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("url", "exit_code"),
    [("https://example.com/", 0), ("https://example.com:8443/", 1), ("javascript:alert(1)", 2)],
)
def test_the_exit_status_is_the_verdict(url: str, exit_code: int) -> None:
    assert runner.invoke(app, ["url", "inspect", url]).exit_code == exit_code
    assert runner.invoke(app, ["url", "inspect", "--json", url]).exit_code == exit_code


def test_json_output() -> None:
    result = runner.invoke(app, ["url", "inspect", "--json", "https://good.com@evil.com/"])
    data = json.loads(result.stdout)
    assert data["verdict"] == "block"
    assert (data["domain"], data["host"]) == ("evil.com", "evil.com")
    assert [w["code"] for w in data["warnings"]] == ["userinfo"]
    assert set(data["warnings"][0]) >= {"code", "message"}


def test_readable_output_names_the_site_and_every_warning() -> None:
    result = runner.invoke(app, ["url", "inspect", "https://login.microsoft.com.evil.io:8443/"])
    assert result.exit_code == 1
    assert "https://login.microsoft.com.evil.io:8443/" in result.stdout
    assert "Site     evil.io" in result.stdout
    assert "WARN" in result.stdout
    assert "domain-in-subdomain" in result.stdout
    assert "unusual-port" in result.stdout


def test_the_domain_is_highlighted() -> None:
    result = runner.invoke(
        app, ["url", "inspect", "https://login.example.co.uk/"], env={"FORCE_COLOR": "1", "TERM": "xterm"}
    )
    assert result.exit_code == 0
    # The registrable domain alone carries the highlight style (bold, black on yellow).
    assert "\x1b[1;30;43mexample.co.uk\x1b[0m" in result.stdout
    assert "\x1b[1;30;43mlogin" not in result.stdout
    assert "\x1b]8;" not in result.stdout  # C-24: drawn as text, never as a clickable hyperlink


def test_hidden_characters_are_shown_not_sent_to_the_terminal() -> None:
    result = runner.invoke(app, ["url", "inspect", "https://evil.com/\u202emoc.lapyap\x1b[2J"])
    assert result.exit_code == 2
    assert "\u202e" not in result.stdout and "\x1b" not in result.stdout
    assert "\\u202e" in result.stdout and "\\u001b" in result.stdout


def test_allow_http() -> None:
    assert runner.invoke(app, ["url", "inspect", "http://example.com/"]).exit_code == 2
    assert runner.invoke(app, ["url", "inspect", "--allow-http", "http://example.com/"]).exit_code == 1


def test_help_documents_the_exit_status() -> None:
    result = runner.invoke(app, ["url", "inspect", "--help"])
    assert result.exit_code == 0
    assert "0 ok, 1 warn, 2 block" in result.stdout
