"""Browser tests: real Chromium (Debian's package) driven by Playwright, at a phone's size.

Playwright never downloads a browser here: it launches `/usr/bin/chromium` (or
$CHROMIUM_PATH). Where no Chromium exists these tests skip with the reason, except under
CI=true, where a missing browser is a failure.
"""

import os
import shutil

import pytest

PHONE = {"width": 390, "height": 844}

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    for candidate in (
        os.environ.get("CHROMIUM_PATH"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is required in CI (apt-get install chromium)")
        pytest.skip("No Chromium found (install Debian's chromium or set CHROMIUM_PATH)")
    # Playwright's sync API runs an event loop in this thread; the test's ORM calls are
    # ordinary synchronous code, so tell Django that is intended.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_phone(browser):
    """Open a fresh phone-sized browser context (its own cookies); call it for each phone."""
    contexts = []

    def _open():
        context = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield _open
    for context in contexts:
        context.close()


@pytest.fixture
def phone(new_phone):
    return new_phone()


@pytest.fixture
def speak(live_server):
    """Give a page the language cookie the switcher sets."""
    from django.conf import settings

    def _speak(page, code: str) -> None:
        page.context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": code, "url": live_server.url}]
        )

    return _speak


@pytest.fixture
def login(live_server):
    """Log a page in through the real login form."""

    def _login(page, username: str, password: str):
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")

    return _login
