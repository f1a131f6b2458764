"""Pages that need a person (issue 40 point 3; docs/observations.md "Pages that need a person"),
Qt-free: the markers vendors document for their bot checks and CAPTCHA widgets, and the
one-time-code field of a two-factor prompt, read by the observation script in the page's main
frame (`DETECT_JS`, an expression), decoded here into the observation's `needs_person`.

A widget counts only while it is shown and unsolved: a reCAPTCHA, hCaptcha or Turnstile whose
response field holds a token was solved (the page has not moved on yet); an invisible reCAPTCHA
(`data-size="invisible"`, v3's badge) asks nothing of a person. The page's own words (the
widget's form, else the page's first text) travel as untrusted website content.
"""

from __future__ import annotations

import json
from typing import Any

from bridge_protocol import NeedsPerson

WORDS = 200  # characters of the page's own words, at most

# (kind, vendor, CSS selector of the documented marker, response field of a solved widget)
RULES: tuple[tuple[str, str, str, str], ...] = (
    # Cloudflare's interstitial ("Just a moment..."): its form, its running marker, its script
    (
        "bot_check",
        "cloudflare",
        '#challenge-form,#cf-challenge-running,#challenge-running,.cf-browser-verification,'
        'script[src*="/cdn-cgi/challenge-platform/"]',
        "",
    ),
    ("captcha", "turnstile", '.cf-turnstile,iframe[src*="challenges.cloudflare.com"]',
     "cf-turnstile-response"),
    ("captcha", "recaptcha", '.g-recaptcha:not([data-size="invisible"]),'
     'iframe[src*="/recaptcha/api2/anchor"],iframe[src*="/recaptcha/enterprise/anchor"]',
     "g-recaptcha-response"),
    ("captcha", "hcaptcha", '.h-captcha:not([data-size="invisible"]),'
     'iframe[src*="hcaptcha.com"][src*="frame=checkbox"]', "h-captcha-response"),
    ("captcha", "arkose", '#FunCaptcha,iframe[src*="arkoselabs.com"],'
     'iframe[src*="funcaptcha.com"]', ""),
    ("captcha", "geetest", ".geetest_captcha,.geetest_holder,.geetest_panel", ""),
    ("captcha", "aws_waf", "awswaf-captcha,#captcha-container awswaf-captcha", ""),
    ("bot_check", "datadome", 'iframe[src*="captcha-delivery.com"]', ""),
    ("bot_check", "perimeterx", "#px-captcha", ""),
    # a field for a code from an authenticator, SMS or e-mail (HTML's autofill token)
    ("two_factor", "one_time_code", 'input[autocomplete~="one-time-code"]:not([type=hidden])', ""),
)  # fmt: skip

# An expression: null, or [kind, vendor, the page's words]. Scripts count by their presence
# (an interstitial's); anything else only when it has a box and is not hidden.
DETECT_JS = (
    "(function(R,W){function shown(e){if(e.tagName==='SCRIPT')return true;"
    "var r=e.getBoundingClientRect(),s=getComputedStyle(e);"
    "return r.width>0&&r.height>0&&s.visibility!=='hidden'&&s.display!=='none';}"
    "function words(e){var c=e.tagName==='SCRIPT'?null:e.closest('form')||e.parentElement;"
    "var t=((c&&c.innerText)||'').replace(/\\s+/g,' ').trim();"
    "if(!t)t=((document.body&&document.body.innerText)||'').replace(/\\s+/g,' ').trim();"
    "t=t||document.title||'';return t.length>W?t.slice(0,W-1)+'\\u2026':t;}"
    "for(var i=0;i<R.length;i++){var m;"
    "try{m=document.querySelectorAll(R[i][2]);}catch(x){continue;}"
    "for(var j=0;j<m.length;j++){if(!shown(m[j]))continue;"
    "if(R[i][3]){var f=document.querySelector('[name=\"'+R[i][3]+'\"]');if(f&&f.value)continue;}"
    "return [R[i][0],R[i][1],words(m[j])];}}return null;})"
    f"({json.dumps([list(r) for r in RULES])},{WORDS})"
)


def needs_person(value: Any) -> NeedsPerson | None:
    """The script's answer as the observation's field; None for anything else."""
    if not isinstance(value, list) or len(value) != 3 or not all(isinstance(v, str) for v in value):
        return None
    kind, vendor, text = value
    if kind not in ("bot_check", "captcha", "two_factor"):
        return None
    return NeedsPerson(
        kind=kind,
        vendor=vendor,
        text=text[:WORDS],
        trust="untrusted_website_content",
    )
