"""The errors a tool author meets: typed, and a sentence saying what went wrong and what to do."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY

from elicitkit.schema import LintFinding, ValidationProblem
from elicitkit.server import (
    ElicitationError,
    ElicitationTimeoutError,
    InvalidAnswerError,
    ModeNotDeclaredError,
    SchemaRefusedError,
)


def test_mode_not_declared_is_also_the_missing_capability_protocol_error() -> None:
    error = ModeNotDeclaredError("url")
    assert isinstance(error, ElicitationError) and isinstance(error, MCPError)
    assert error.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    assert error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    assert str(error).startswith("The client did not declare url-mode elicitation")
    assert str(error).endswith(".")


def test_invalid_answer_names_every_field_once_and_reaches_the_model_as_a_tool_error() -> None:
    error = InvalidAnswerError(
        [
            ValidationProblem("age", "wrong-type", "'age' must be an integer, not a string."),
            ValidationProblem("age", "too-small", "'age' must be at least 0"),
            ValidationProblem("zip", "missing", "'zip' is required."),
            ValidationProblem(None, "not-an-object", "The answer must be an object."),
        ]
    )
    assert isinstance(error, ToolError)
    assert error.fields == ("age", "zip")
    assert str(error) == (
        "The answer to the form was rejected: 'age' must be an integer, not a string. "
        "'age' must be at least 0. 'zip' is required. The answer must be an object. "
        "Ask again, or tell the user what to fix."
    )


def test_schema_refused_points_at_the_problem() -> None:
    finding = LintFinding("/properties/password", "error", "sensitive", "Ask for passwords with URL mode.")
    error = SchemaRefusedError([finding])
    assert isinstance(error, ValueError)
    assert "/properties/password: Ask for passwords with URL mode." in str(error)


def test_timeout_says_how_long_it_waited() -> None:
    error = ElicitationTimeoutError(2.5)
    assert isinstance(error, ToolError)
    assert (
        str(error)
        == "No answer to the question arrived within 2.5 seconds; ask again, or go on without the answer."
    )


def test_a_bad_argument_is_a_configuration_error_that_says_what_would_work() -> None:
    """Also a `ValueError`, as a bad argument was before; never a bare built-in."""
    from redis.asyncio import RedisCluster

    from elicitkit.errors import ConfigurationError
    from elicitkit.server import Elicitation, KeyRing, PostgresStore, RedisStore

    ring = KeyRing.from_string(KeyRing.generate())
    cluster = RedisCluster(host="127.0.0.1", port=1)  # connects on first use only
    for bad, says in [
        (lambda: Elicitation(object()), "takes the SDK's MCPServer"),  # type: ignore[arg-type]
        (lambda: PostgresStore("postgresql://127.0.0.1:1/db", prefix="1 table"), "letters, digits"),
        (lambda: RedisStore(cluster, replicas_ack=1), "leave it out for a Cluster"),
        (lambda: ring.seal(b"x", b"", purpose="Any Purpose"), "short lowercase label"),
    ]:
        try:
            bad()
        except ConfigurationError as error:
            assert isinstance(error, ValueError) and says in str(error) and str(error).endswith(".")
        else:
            raise AssertionError(f"no error: {says}")


def test_a_token_verifier_given_an_issuer_that_does_not_parse_says_so() -> None:
    """A malformed issuer URL is the verifier's own error, not `urlsplit`'s bare ValueError."""
    from elicitkit.server import JWTVerifier, TokenVerifierError

    for issuer in ["http://[::1", "https://auth.example.com:port"]:
        try:
            JWTVerifier(issuer, resource="https://mcp.example.com/mcp")
        except TokenVerifierError as error:
            assert issuer in str(error)
        else:
            raise AssertionError(f"no error for {issuer}")
