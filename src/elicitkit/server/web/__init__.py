"""The pages a URL-mode link opens: landing and identity check, consent, entry, done, refusal."""

from elicitkit.server.web.login import OAuthLogin
from elicitkit.server.web.site import BrowserSession, Flow, Site

__all__ = ["BrowserSession", "Flow", "OAuthLogin", "Site"]
