"""The page /authorize sends a person to: sign in (and, at a provider, consent), then go back.

The SDK's authorization handler validates the request and hands it to `Authority.authorize`,
which parks it and sends the browser here. Only a POST carrying this browser's CSRF token for
this very request can approve it; the person may also decline, which the client hears as
`access_denied`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from elicitkit.i18n import negotiate, translator

from ._authority import Authority, SignInRequest
from ._pages import Csrf, render
from ._people import check_password


def _field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


@dataclass
class SignInPage:
    """GET shows the form for a waiting request; POST signs in and answers the client."""

    authority: Authority
    passwords: dict[str, str]
    service_name: str
    csrf: Csrf
    scope_descriptions: dict[str, str] = field(default_factory=dict)
    consent: bool = False

    def routes(self) -> list[Route]:
        return [
            Route("/login", self.show, methods=["GET"]),
            Route("/login", self.submit, methods=["POST"]),
        ]

    async def show(self, request: Request) -> Response:
        sign_in = self.authority.sign_in_request(request.query_params.get("request", ""))
        if sign_in is None:
            return self._gone(request)
        browser_id = self.csrf.browser_id(request)
        response = self._form(request, sign_in, self.csrf.token(browser_id, sign_in.id))
        self.csrf.remember(response, browser_id)
        return response

    async def submit(self, request: Request) -> Response:
        form = await request.form()
        request_id = _field(form, "request")
        if not self.csrf.check(request, _field(form, "csrf_token"), request_id):
            _ = translator(negotiate(request.headers.get("accept-language"))).gettext
            return render(
                "message.html",
                403,
                request=request,
                service_name=self.service_name,
                title=_("This form cannot be accepted"),
                message=_(
                    "The form was not sent from this sign-in page in this browser. "
                    "Go back to the application and start again."
                ),
            )
        sign_in = self.authority.sign_in_request(request_id)
        if sign_in is None:
            return self._gone(request)
        if _field(form, "decision") == "deny":
            return RedirectResponse(self.authority.deny(sign_in), status_code=303)
        username = _field(form, "username").strip()
        if not check_password(self.passwords, username, _field(form, "password")):
            _ = translator(negotiate(request.headers.get("accept-language"))).gettext
            error = _("That user name and password do not match. Try again, or cancel.")
            return self._form(
                request, sign_in, _field(form, "csrf_token"), error=error, username=username, status=401
            )
        return RedirectResponse(self.authority.approve(sign_in, username), status_code=303)

    def _form(
        self,
        request: Request,
        sign_in: SignInRequest,
        csrf_token: str,
        *,
        error: str = "",
        username: str = "",
        status: int = 200,
    ) -> Response:
        client = sign_in.client
        return render(
            "login.html",
            status,
            request=request,
            service_name=self.service_name,
            client_name=client.client_name or client.client_id,
            return_to=urlsplit(str(sign_in.params.redirect_uri)).netloc,
            consent=self.consent,
            scopes=[self.scope_descriptions.get(scope, scope) for scope in sign_in.scopes],
            people=sorted(self.passwords.items()),
            request_id=sign_in.id,
            csrf_token=csrf_token,
            error=error,
            username=username,
        )

    def _gone(self, request: Request) -> Response:
        _ = translator(negotiate(request.headers.get("accept-language"))).gettext
        return render(
            "message.html",
            400,
            request=request,
            service_name=self.service_name,
            title=_("This sign-in link is no longer valid"),
            message=_("It is unknown, already used, or too old. Go back to the application and start again."),
        )
