"""The pages a URL-mode link opens: landing and identity check, consent, entry, done, refusal."""

from elicitkit.server.web.flows import Flow, HandOffFlow
from elicitkit.server.web.login import OAuthLogin
from elicitkit.server.web.site import BrowserSession, Site

__all__ = ["BrowserSession", "Flow", "HandOffFlow", "OAuthLogin", "Site"]
