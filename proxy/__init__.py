"""Profile proxy listeners: HTTP relay, CONNECT tunnels, upstream auth, managed-provider
usernames and failure diagnostics (spec 1 §1 "Profile proxy listeners", §4 Proxies, §7 rule 5).

`proxy.geolocation` (imported on its own) looks up a session's exit location through its upstream
(spec 1 §4 proxy-location).

May import bridge_protocol, trio and h11; never the agent (which supplies a lookup callable).
"""

from .auth import Upstream, basic_authorization, managed_username
from .diagnostics import Diagnostics, authority_of_url
from .listeners import ProxyListeners

__all__ = [
    "Diagnostics",
    "ProxyListeners",
    "Upstream",
    "authority_of_url",
    "basic_authorization",
    "managed_username",
]
