"""The production configuration passes Django's deployment checklist."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION_ENV = {
    "DJANGO_SECRET_KEY": "x" * 20 + "a-long-random-production-secret-key-1234567890",
    "DJANGO_ALLOWED_HOSTS": "bourre.example.com",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
    "DJANGO_STATIC_MANIFEST": "1",
}


def _check(extra_env: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_values():
    result = _check(PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_flags_debug_and_dev_secret():
    result = _check({"DJANGO_DEBUG": "1"})
    assert result.returncode != 0
    assert "security.W018" in result.stderr + result.stdout  # DEBUG on
    assert "security.W009" in result.stderr + result.stdout  # weak secret key


def _clean_env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(extra)
    return env


def test_without_a_secret_key_production_refuses_to_start():
    # Management commands (migrate, check, runserver...) refuse through the system check.
    result = _check({"DJANGO_ALLOWED_HOSTS": "bourre.example.com"})
    assert result.returncode != 0
    assert "bourre.E001" in result.stderr and "DJANGO_SECRET_KEY is not set" in result.stderr
    # The WSGI application (gunicorn) refuses to load.
    wsgi = subprocess.run(
        [sys.executable, "-c", "import bourre_site.wsgi"],
        cwd=ROOT,
        env=_clean_env({}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert wsgi.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in wsgi.stderr


def test_with_a_secret_key_or_in_debug_the_application_loads():
    for extra in (
        {"DJANGO_SECRET_KEY": PRODUCTION_ENV["DJANGO_SECRET_KEY"]},
        {"DJANGO_DEBUG": "1"},
    ):
        result = subprocess.run(
            [sys.executable, "-c", "import bourre_site.wsgi"],
            cwd=ROOT,
            env=_clean_env(extra),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr


def _database_options(extra: dict) -> dict:
    """The database OPTIONS the settings make for this environment (the cursor class by
    its name)."""
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "o = dict(settings.DATABASES['default'].get('OPTIONS', {})); "
        "f = o.pop('cursor_factory', None); o['cursor_factory'] = f and f.__name__; print(o)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=_clean_env(
            {"DJANGO_SETTINGS_MODULE": "bourre_site.settings", "DJANGO_DEBUG": "1", **extra}
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    import ast

    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


def test_behind_pgbouncer_no_server_side_cursors_and_no_persistent_connections():
    """A transaction pooler: Django's defaults for the options, and neither server-side
    cursors nor persistent connections of our own. (Prepared statements, which issue #20
    kept per connection, went in issue #31: under 10 % of a record POST.)"""
    url = {"DATABASE_URL": "postgres://bourre@db:5432/bourre"}
    assert _database_options(url) == {"cursor_factory": None}
    assert _database_options({**url, "DJANGO_PGBOUNCER": "1"}) == {"cursor_factory": None}
    sqlite = _database_options({"DATABASE_URL": "sqlite:///x.sqlite3"})
    assert "server_side_binding" not in sqlite and sqlite["cursor_factory"] is None
