"""One way to do each thing: `Elicitation` offers the URL flows, and there is one `ElicitationError`."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import MCPServer

import elicitkit.client
import elicitkit.server
from elicitkit.errors import ElicitationError
from elicitkit.server import (
    Elicitation,
    FlowContext,
    KeyRing,
    McpUsers,
    MemoryStore,
    OAuthConnection,
    Secret,
    UrlMode,
    UrlModeError,
)


def url_mode() -> UrlMode:
    return UrlMode(
        users=McpUsers.single_user_local(),
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        public_url="http://127.0.0.1:8000",
    )


def test_elicitation_makes_the_url_flows_on_its_url_mode() -> None:
    mode = url_mode()
    elicit = Elicitation(MCPServer("flows"), url_mode=mode)
    key = elicit.secret("weather-key", title="Weather API key", message="The forecast needs it.")
    calendar = elicit.oauth(
        "calendar",
        service="Demo Calendar",
        client_id="flows-client",
        client_secret="s3cret",
        authorization_endpoint="https://calendar.example.net/oauth/authorize",
        token_endpoint="https://calendar.example.net/oauth/token",
        scopes=["events.read"],
    )
    assert isinstance(key, Secret) and key.url_mode is mode
    assert isinstance(calendar, OAuthConnection) and calendar.url_mode is mode
    assert calendar.redirect_uri == "http://127.0.0.1:8000/elicit/callback/calendar"


def test_a_flow_receives_a_narrow_context_not_the_url_mode() -> None:
    """What `UrlMode.add` gives a flow: the store, vault, site, identity and `ask` it works with."""
    mode = url_mode()
    key = Secret(mode, "weather-key", title="Weather API key", message="The forecast needs it.")
    context = key.context
    assert isinstance(context, FlowContext)
    assert (context.store, context.vault, context.site, context.users) == (
        mode.store,
        mode.vault,
        mode.site,
        mode.users,
    )
    assert context.ask == mode.ask
    assert mode.flows["weather-key"] is key
    with pytest.raises(UrlModeError, match="exists already"):
        Secret(mode, "weather-key", title="Again", message="A second flow with the same name.")


def test_without_url_mode_the_flows_say_how_to_get_one() -> None:
    elicit = Elicitation(MCPServer("forms only"))
    with pytest.raises(UrlModeError, match=r"Elicitation\(server, url_mode=UrlMode"):
        elicit.oauth("calendar", service="Demo Calendar", client_id="x")
    with pytest.raises(UrlModeError, match=r"Elicitation\(server, url_mode=UrlMode"):
        elicit.secret("weather-key", title="Weather API key", message="The forecast needs it.")


def test_one_elicitation_error_for_both_sides() -> None:
    assert elicitkit.client.ElicitationError is elicitkit.server.ElicitationError is ElicitationError
    assert issubclass(elicitkit.client.ElicitationCancelledError, ElicitationError)
    assert issubclass(elicitkit.server.InvalidAnswerError, ElicitationError)
