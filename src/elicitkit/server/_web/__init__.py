"""The pages a URL-mode link opens: landing and identity check, consent, entry, done, refusal."""

from elicitkit.server._web.flows import Flow, HandOffFlow
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server._web.site import BrowserSession, Site

__all__ = ["BrowserSession", "Flow", "HandOffFlow", "OAuthLogin", "Site"]
