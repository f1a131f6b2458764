"""Pages that wait for a person (issue 40 point 3), each with its vendor's documented markup:
Cloudflare's interstitial (its form and its challenge-platform script path), Turnstile's,
reCAPTCHA's and hCaptcha's containers, reCAPTCHA's anchor frame (served from the vendor's path
here), Arkose's, DataDome's frame, PerimeterX's, a one-time-code field; and pages that must not
count: a solved reCAPTCHA (its response field holds a token), an invisible one, a hidden
widget, a plain sign-in form. Each: path -> (page, expected [kind, vendor] or None)."""

from __future__ import annotations

FORM = "<form action=/done><p>{words}</p>{widget}<button>Continue</button></form>"


def _page(title: str, body: str) -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"


PAGES: dict[str, tuple[str, list[str] | None]] = {
    "/person/cloudflare": (
        _page(
            "Just a moment...",
            "<h1>example.test</h1><p>Verifying you are human. This may take a few seconds.</p>"
            "<form id=challenge-form action='/?__cf_chl_f_tk=x' method=POST></form>"
            "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=1'>"
            "</script>",
        ),
        ["bot_check", "cloudflare"],
    ),
    "/person/turnstile": (
        _page("Sign up", FORM.format(
            words="Confirm you are a person to sign up.",
            widget="<div class=cf-turnstile data-sitekey=1x00000000000000000000AA "
            "style='width:300px;height:65px'></div>",
        )),
        ["captcha", "turnstile"],
    ),
    "/person/recaptcha": (
        _page("Contact", FORM.format(
            words="Please tick the box before sending your message.",
            widget="<div class=g-recaptcha data-sitekey=6Lc style='width:304px;height:78px'>"
            "<iframe title=reCAPTCHA src='/recaptcha/api2/anchor?ar=1&k=6Lc' width=304 "
            "height=78></iframe></div><textarea name=g-recaptcha-response hidden></textarea>",
        )),
        ["captcha", "recaptcha"],
    ),
    "/person/recaptcha-solved": (
        _page("Contact", FORM.format(
            words="Please tick the box before sending your message.",
            widget="<div class=g-recaptcha style='width:304px;height:78px'></div>"
            "<textarea name=g-recaptcha-response hidden>03AFcWeA-token</textarea>",
        )),
        None,
    ),
    "/person/recaptcha-invisible": (
        _page("Contact", FORM.format(
            words="Send us a message.",
            widget="<div class=g-recaptcha data-size=invisible style='width:1px;height:1px'>"
            "</div>",
        )),
        None,
    ),
    "/person/hcaptcha": (
        _page("Log in", FORM.format(
            words="Solve the challenge to log in.",
            widget="<div class=h-captcha data-sitekey=10000000-ffff style='width:303px;"
            "height:78px'></div><textarea name=h-captcha-response hidden></textarea>",
        )),
        ["captcha", "hcaptcha"],
    ),
    "/person/arkose": (
        _page("Verify", FORM.format(
            words="Verify your account.",
            widget="<div id=FunCaptcha style='width:300px;height:200px'></div>",
        )),
        ["captcha", "arkose"],
    ),
    "/person/datadome": (
        _page("example.test", "<iframe src='/captcha-delivery.com/captcha/?initialCid=x' "
              "width=500 height=400 title='DataDome CAPTCHA'></iframe>"),
        ["bot_check", "datadome"],
    ),
    "/person/perimeterx": (
        _page("Access to this page has been denied", "<p>Press &amp; Hold to confirm you are "
              "a human (and not a bot).</p><div id=px-captcha style='width:300px;height:90px'>"
              "</div>"),
        ["bot_check", "perimeterx"],
    ),
    "/person/two-factor": (
        _page("Two-step verification", FORM.format(
            words="Enter the 6-digit code from your authenticator app.",
            widget="<label>Code <input name=otp inputmode=numeric "
            "autocomplete=one-time-code></label>",
        )),
        ["two_factor", "one_time_code"],
    ),
    "/person/hidden-widget": (
        _page("Settings", FORM.format(
            words="Your settings.",
            widget="<div class=h-captcha style='display:none;width:303px;height:78px'></div>",
        )),
        None,
    ),
    "/person/sign-in": (
        _page("Sign in", FORM.format(
            words="Sign in to continue.",
            widget="<label>Email <input name=email autocomplete=username></label>"
            "<label>Password <input type=password name=pw></label>",
        )),
        None,
    ),
}  # fmt: skip
