"""`Elicitation`: what a tool awaits to ask the person behind the client a question.

    server = MCPServer("bookings")
    elicit = Elicitation(server)

    @server.tool()
    async def book(city: str, ctx: Context) -> str:
        match await elicit.form(ctx, f"When do you want to go to {city}?", Trip):
            case AcceptedElicitation(data=trip):
                return f"Booked {city} on {trip.day}"
            case Declined() | Cancelled():
                return "Nothing booked"

With `url_mode=UrlMode(...)` the same object mounts URL mode's pages on the server and makes
its flows, for what must not pass through the client (the one way to wire URL mode):

    elicit = Elicitation(server, url_mode=UrlMode(browser=OAuthLogin(issuer)))
    api_key = elicit.secret("weather-api-key", title="Weather API key", message="...")
    calendar = elicit.oauth("calendar", service="Calendar", issuer=..., client_id=...)

The same tool works on both protocol revisions: on 2025-11-25 the question is a live
`elicitation/create` tied to the tool call; on 2026-07-28 it is returned in an
`InputRequiredResult` and the tool runs again, from the top, with the answer (so code before
a question must be safe to run again). Every answer is checked strictly before the tool sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, overload

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequestFormParams

from elicitkit.results import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
)
from elicitkit.server import _forms
from elicitkit.server._ask import ask
from elicitkit.server._capabilities import Mode, declared_modes
from elicitkit.server._errors import ElicitationError, UrlModeError
from elicitkit.server._rounds import RoundsMiddleware
from elicitkit.server._secret import Secret, SecretValidator
from elicitkit.server._tasks import Tasks, TasksMiddleware, serve_tasks
from elicitkit.server._url_mode import UrlMode, Wait, require_mcp_server

if TYPE_CHECKING:
    from elicitkit.server._oauth import OAuthConnection

T = TypeVar("T")

_DECLINED = DeclinedElicitation()
_CANCELLED = CancelledElicitation()


class Elicitation:
    """Asks questions on behalf of the tools, prompts and resources of one `MCPServer`.

    Creating it installs a small middleware on `server` that carries questions and answers
    across 2026-07-28 rounds, and mounts `url_mode`'s pages when one is given; `timeout` is the
    default for every question (None: no limit). With `tasks=Tasks({...})` the tools it names
    also run as 2025-11-25 tasks, their state in `url_mode`'s store unless `Tasks` has its own.
    """

    # The flow classes `secret()` and `oauth()` make: a framework's own `Elicitation` (FastMCP's)
    # names its subclasses here, typed for its `Context`. None: `OAuthConnection`, loaded when
    # first used (it needs the `oauth` extra).
    secret_class: ClassVar[type[Secret]] = Secret
    oauth_class: ClassVar[type[OAuthConnection] | None] = None

    def __init__(
        self,
        server: MCPServer[Any],
        *,
        timeout: float | None = None,
        url_mode: UrlMode | None = None,
        tasks: Tasks | None = None,
    ) -> None:
        require_mcp_server(server, "Elicitation")
        self.server = server
        self.timeout = timeout
        self.url_mode = url_mode
        """URL mode for this server's tools (pages, store, vault); None until one is given."""
        self.tasks = tasks
        """The tools that run as tasks (2025-11-25 `tools/call` with `task`); None: no tasks."""
        if url_mode is not None:  # first: its rounds count timeouts by its clock
            url_mode._mount(server)  # pyright: ignore[reportPrivateUsage]  # one way to wire it
        if not any(isinstance(m, RoundsMiddleware) for m in server.middleware):
            server.middleware.append(RoundsMiddleware(server))
        if tasks is not None:
            serve_tasks(server, self.task_middleware())

    def task_middleware(self) -> TasksMiddleware:
        """The SDK server middleware that speaks the 2025-11-25 task wire for `tasks`, which keep
        their state where URL mode keeps its records (its store, bus, users and keys).

        `Elicitation(server, tasks=...)` installs it; a framework's `Elicitation` (elicitkit.fastmcp's)
        puts it in its own chain and runs `tasks.running()` in its lifespan.

        Raises:
            ElicitationError: this `Elicitation` was created without `tasks=`.
        """
        tasks = self.tasks
        if tasks is None:
            raise ElicitationError("This Elicitation runs no tasks: create it with tasks=Tasks({...}).")
        url_mode = self.url_mode
        if url_mode is not None:
            tasks.attach(store=url_mode.store, bus=url_mode.bus, users=url_mode.users, keys=url_mode.keys)
        else:
            tasks.attach()
        return TasksMiddleware(tasks)

    def secret(
        self,
        name: str,
        *,
        title: str,
        message: str,
        description: str | None = None,
        validator: SecretValidator | None = None,
        wait: Wait | None = None,
    ) -> Secret:
        """A URL-mode `Secret` (API key, password) for this server's tools: `await secret.get(ctx)`.

        Raises:
            UrlModeError: this `Elicitation` was created without `url_mode=`.
        """
        if self.url_mode is None:
            raise UrlModeError(
                "Secrets are asked for in URL mode, and this Elicitation has none: create it with "
                "Elicitation(server, url_mode=UrlMode(...))."
            )
        return self.secret_class(
            self.url_mode,
            name,
            title=title,
            message=message,
            description=description,
            validator=validator,
            wait=wait,
        )

    def oauth(self, name: str, **options: Any) -> OAuthConnection:
        """A URL-mode `OAuthConnection` (the user's account at a third party): `await conn.token(ctx)`.

        `options` are `OAuthConnection`'s: `service`, `client_id`, the provider's `issuer` or
        endpoints, `scopes`, ... (needs the `oauth` extra).

        Raises:
            UrlModeError: this `Elicitation` was created without `url_mode=`.
        """
        if self.url_mode is None:
            raise UrlModeError(
                "Third-party accounts are connected in URL mode, and this Elicitation has none: create "
                "it with Elicitation(server, url_mode=UrlMode(...))."
            )
        connection = self.oauth_class
        if connection is None:
            from elicitkit.server._oauth import OAuthConnection

            connection = OAuthConnection
        return connection(self.url_mode, name, **options)

    def sdk_context(self, ctx: Any) -> Context[Any, Any]:
        """`ctx` as the SDK `Context` the questions are asked in: a framework's `Elicitation`
        (elicitkit.fastmcp's) turns its own tool context into it."""
        return self.url_mode.sdk_context(ctx) if self.url_mode is not None else ctx

    def supports(self, ctx: Context[Any, Any], mode: Mode = "form") -> bool:
        """Whether the client behind `ctx` declared `mode` for this request (`{}` means form only)."""
        return mode in declared_modes(self.sdk_context(ctx))

    @overload
    async def form(
        self,
        ctx: Context[Any, Any],
        message: str,
        schema: type[T],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see ask()
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[T]: ...

    @overload
    async def form(
        self,
        ctx: Context[Any, Any],
        message: str,
        schema: Mapping[str, Any],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see ask()
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[dict[str, Any]]: ...

    async def form(
        self,
        ctx: Context[Any, Any],
        message: str,
        schema: type[Any] | Mapping[str, Any],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see ask()
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[Any]:
        """Ask a form-mode question and return exactly one of `AcceptedElicitation`,
        `DeclinedElicitation`, `CancelledElicitation`.

        `schema` is a pydantic model, dataclass or TypedDict (the answer comes back as one), or
        a raw `requestedSchema` dict (the answer comes back as a dict). `key` names the question
        in 2026-07-28 `inputRequests` (default: its place in the run); `timeout` overrides the
        default for this question. `allow_sensitive` maps a field that merely looks sensitive
        to the reason it is not (S-11: real secrets belong in URL mode, see `Secret`).

        Raises:
            ModeNotDeclaredError: the client did not declare form mode; nothing was sent (S-01).
            NotInRequestError: `ctx` is not handling a tools/call, prompts/get or resources/read (S-02).
            SchemaRefusedError: the schema breaks the form-mode rules; nothing was sent.
            InvalidAnswerError: the answer does not match the schema; names the fields (S-13).
            ElicitationTimeoutError: no answer within the timeout.
        """
        ctx = self.sdk_context(ctx)
        form: _forms.Form[Any] = (
            _forms.for_schema(schema) if isinstance(schema, Mapping) else _forms.for_type(schema)
        )
        form.check(message, allow_sensitive)
        params = ElicitRequestFormParams(message=message, requested_schema=form.schema)
        result = await ask(ctx, params, key=key, timeout=self.timeout if timeout is None else timeout)
        if result.action == "accept":
            return AcceptedElicitation(form.read(result.content))
        return _DECLINED if result.action == "decline" else _CANCELLED
