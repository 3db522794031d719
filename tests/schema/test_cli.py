"""`elicitkit schema lint|check|show`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from elicitkit.cli import app

runner = CliRunner()
GOOD = {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]}
BAD = {
    "type": "object",
    "properties": {
        "address": {"type": "object", "properties": {}},
        "help": {"type": "string", "description": "See https://example.com"},
    },
}


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_lint_clean_schema_exits_0(tmp_path: Path) -> None:
    result = runner.invoke(app, ["schema", "lint", write(tmp_path, "s.json", GOOD)])
    assert result.exit_code == 0, result.output
    assert "No problems found." in result.output


def test_lint_errors_exit_1_and_json_lists_findings(tmp_path: Path) -> None:
    result = runner.invoke(app, ["schema", "lint", "--json", write(tmp_path, "s.json", BAD)])
    assert result.exit_code == 1
    findings = json.loads(result.output)
    assert [set(f) for f in findings] == [{"pointer", "severity", "code", "message"}] * 2
    assert [(f["pointer"], f["severity"], f["code"]) for f in findings] == [
        ("/properties/address", "error", "nested-object"),
        ("/properties/help/description", "warning", "url-in-text"),
    ]


def test_lint_warnings_alone_exit_0() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "title": "www.example.com"}}}
    result = runner.invoke(app, ["schema", "lint", "-"], input=json.dumps(schema))
    assert result.exit_code == 0
    assert "warning /properties/a/title  [url-in-text]" in result.output
    assert "0 error(s), 1 warning(s)." in result.output


def test_lint_reads_a_whole_request_with_its_message() -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Go to https://x.example", "requestedSchema": GOOD},
    }
    result = runner.invoke(app, ["schema", "lint", "--json", "-"], input=json.dumps(request))
    assert result.exit_code == 0
    assert [(f["pointer"], f["code"]) for f in json.loads(result.output)] == [("", "url-in-text")]


def test_lint_allow_sensitive(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", {"type": "object", "properties": {"pin": {"type": "string"}}})
    assert runner.invoke(app, ["schema", "lint", path]).exit_code == 1
    allowed = runner.invoke(app, ["schema", "lint", path, "--allow-sensitive", "pin=a map pin label"])
    assert allowed.exit_code == 0, allowed.output


@pytest.mark.parametrize("content", ["{not json", None])
def test_unreadable_input_exits_2(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    result = runner.invoke(app, ["schema", "lint", str(path)])
    assert result.exit_code == 2
    assert "error:" in result.output


def test_check_valid_and_invalid(tmp_path: Path) -> None:
    schema = write(tmp_path, "s.json", GOOD)
    ok = runner.invoke(app, ["schema", "check", schema, write(tmp_path, "ok.json", {"name": "Ada"})])
    assert ok.exit_code == 0 and "The answer is valid." in ok.output
    bad = runner.invoke(
        app, ["schema", "check", "--json", schema, write(tmp_path, "bad.json", {"name": 5, "x": 1})]
    )
    assert bad.exit_code == 1
    assert [(p["field"], p["code"]) for p in json.loads(bad.output)] == [
        ("name", "wrong-type"),
        ("x", "unknown-field"),
    ]
    text = runner.invoke(app, ["schema", "check", schema, "-"], input="[]")
    assert text.exit_code == 1 and "(answer)  [not-an-object]" in text.output


def test_show_prints_the_built_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "forms_for_cli_test.py").write_text(
        "from pydantic import BaseModel, Field\n"
        "class Contact(BaseModel):\n"
        "    name: str = Field(description='Your full name')\n"
        "    age: int = Field(default=30, ge=18)\n"
        "class Bad(BaseModel):\n"
        "    tags: list[str]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = runner.invoke(app, ["schema", "show", "forms_for_cli_test:Contact"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "age": {"type": "integer", "minimum": 18, "default": 30},
        },
        "required": ["name"],
    }
    refused = runner.invoke(app, ["schema", "show", "forms_for_cli_test:Bad"])
    assert refused.exit_code == 1 and "Field 'tags'" in refused.output
    missing = runner.invoke(app, ["schema", "show", "forms_for_cli_test:Nope"])
    assert missing.exit_code == 2
    assert runner.invoke(app, ["schema", "show", "no-colon"]).exit_code == 2


def test_allow_sensitive_without_a_reason_is_a_usage_error(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"token": {"type": "string"}}}')
    result = CliRunner().invoke(app, ["schema", "lint", str(schema), "--allow-sensitive", "token"])
    assert result.exit_code == 2
    assert "FIELD=REASON" in result.output
    waived = CliRunner().invoke(
        app, ["schema", "lint", str(schema), "--allow-sensitive", "token=a raffle ticket"]
    )
    assert waived.exit_code == 0
