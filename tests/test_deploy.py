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
            [sys.executable, "-c", "import gc, bourre_site.wsgi; print(gc.get_freeze_count())"],
            cwd=ROOT,
            env=_clean_env(extra),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        # Its long-lived objects are frozen out of the collector's way (bourre_site.heap).
        assert int(result.stdout.split()[-1]) > 10_000
