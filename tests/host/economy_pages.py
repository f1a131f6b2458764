"""Small real-world pages of the observation economy tests (issue 11 point 8), added to the
fixture site's pages under /econ/: a sign-in form and a menu of `href="#"` links, where the
header and the destinations are most of an observation's bytes."""

from __future__ import annotations

from .site import PAGES

SIGNIN = "/econ/account/signin"
LINKS = "/econ/menu/links?lang=en"

# (name, href, destination relative to the page as the wire form sends it)
MENU: list[tuple[str, str, str]] = [
    ("Home", "#", "#"),
    ("Products", "#", "#"),
    ("Pricing", "#", "#"),
    ("Blog", "#", "#"),
    ("Contact", "#contact", "#contact"),
    ("Page 2", "?lang=en&page=2", "?lang=en&page=2"),
    ("Sitemap", "sitemap", "sitemap"),
    ("Sign in", "../account/signin", "../account/signin"),
    ("Start", "/", "/"),
    ("Elsewhere", "https://example.org/about", "https://example.org/about"),
    ("Mail us", "mailto:team@example.org", "mailto:team@example.org"),
]

PAGES.update(
    {
        SIGNIN.partition("?")[0]: (
            "<!doctype html><html><head><meta charset=utf-8><title>Sign in</title></head><body>"
            "<main><h1>Sign in</h1><form onsubmit='return false'>"
            "<label>Email <input type=email name=email required></label>"
            "<label>Password <input type=password name=password required></label>"
            "<label><input type=checkbox name=remember> Remember me</label>"
            "<button type=submit>Sign in</button></form>"
            "<p><a href='forgot'>Forgot password?</a> <a href='#'>Help</a></p></main></body></html>"
        ),
        LINKS.partition("?")[0]: (
            "<!doctype html><html><head><meta charset=utf-8><title>Menu</title></head><body>"
            "<nav><ul>"
            + "".join(f"<li><a href='{href}'>{name}</a></li>" for name, href, _ in MENU)
            + "</ul></nav><p id=contact>Write to us.</p></body></html>"
        ),
    }
)
