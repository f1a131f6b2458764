"""Follow browser commands (spec §1), Qt-free: whether a browser operation selects its session
for the browser window's next view.

When the app is inactive, an operation selects its session, so the window shows it when the user
next looks; the window is never raised or activated for it. The setting Follow browser commands
(default on) turns this off. While the app is active the user is working in it, and their own
selection stands. API results never depend on this.
"""

from __future__ import annotations


def selects_for_view(*, follow_browser_commands: bool, app_active: bool) -> bool:
    return follow_browser_commands and not app_active


def raises_window() -> bool:
    """A browser operation never brings the app forward."""
    return False
