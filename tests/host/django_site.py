"""A real Django project for the host tests that drive Django admin (issue 36 points 4 and 6).

`running_django(folder, models=..., admin=...)` writes a project with one app, `shop`, whose
`models.py` and `admin.py` are the caller's, migrates it into a sqlite database, creates a
superuser, optionally runs a setup script in `manage.py shell`, and serves it with
`manage.py runserver --noreload` on a free loopback port until the block ends (the server's
process group is stopped then). Tests read the application's own state from `Django.db`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.host.appserver import app_server
from tests.ports import free_port

ADMIN_USER = "ada"
ADMIN_PASSWORD = "correct horse battery"

SETTINGS = """
from pathlib import Path
BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = "test-only-not-secret"
DEBUG = True  # runserver serves the admin's scripts (RelatedObjectLookups.js) only then
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles", "shop",
]
MIDDLEWARE = [
    # sends Cross-Origin-Opener-Policy: same-origin (SECURE_CROSS_ORIGIN_OPENER_POLICY's default)
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "proj.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [], "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
"""

URLS = """
from django.contrib import admin
from django.urls import path
urlpatterns = [path("admin/", admin.site.urls)]
"""

MANAGE = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "proj.settings")
from django.core.management import execute_from_command_line
execute_from_command_line(sys.argv)
"""


@dataclass
class Django:
    base: str
    db: Path


def _manage(folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)


def write_project(folder: Path, *, models: str, admin: str, setup: str = "") -> None:
    """The project in `folder`, migrated, with the superuser and what `setup` (Python run in
    `manage.py shell`) adds."""
    files = {
        "manage.py": MANAGE,
        "proj/__init__.py": "",
        "proj/settings.py": SETTINGS,
        "proj/urls.py": URLS,
        "shop/__init__.py": "",
        "shop/models.py": models,
        "shop/admin.py": admin,
        "shop/migrations/__init__.py": "",
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    _manage(folder, "makemigrations", "shop")
    _manage(folder, "migrate")
    _manage(
        folder,
        "createsuperuser",
        "--noinput",
        f"--username={ADMIN_USER}",
        "--email=ada@example.org",
        env={"DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD},
    )
    if setup:
        _manage(folder, "shell", "-c", textwrap.dedent(setup))


@contextmanager
def running_django(folder: Path, *, models: str, admin: str, setup: str = "") -> Iterator[Django]:
    """The project written into `folder` and served by `manage.py runserver` until the block
    ends."""
    write_project(folder, models=models, admin=admin, setup=setup)
    base = f"http://127.0.0.1:{free_port()}"
    command = [sys.executable, "manage.py", "runserver", "--noreload", base[len("http://") :]]
    with app_server(command, folder, f"{base}/admin/login/", log="runserver.log"):
        yield Django(base, folder / "db.sqlite3")
