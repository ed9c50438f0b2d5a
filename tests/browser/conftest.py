"""Browser tests: real Chromium (Debian's package) driven by Playwright, at a phone's size.

Playwright never downloads a browser here: it launches `/usr/bin/chromium` (or
$CHROMIUM_PATH). Where no Chromium exists these tests skip with the reason, except under
CI=true, where a missing browser is a failure.
"""

import os
import shutil
import threading
import time

import pytest
from django.core.signals import request_finished, request_started

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


class _InFlight:
    """Requests the live server has started and not yet finished. Closing a browser
    context aborts its polls on the client side only: the server thread may still be
    inside the view, and on SQLite it shares the test's in-memory connection, so the
    database flush that ends the test must wait for it (a flush racing a poll once
    failed CI with "couldn't be flushed")."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def started(self, **kwargs) -> None:
        with self.lock:
            self.count += 1

    def finished(self, **kwargs) -> None:
        with self.lock:
            self.count -= 1

    def wait_idle(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.count > 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.count <= 0, f"{self.count} request(s) still running after the test"


@pytest.fixture
def server_settles():
    """Count the live server's requests; at teardown (after the browser contexts that
    depend on this fixture have closed) wait until none is running."""
    in_flight = _InFlight()
    request_started.connect(in_flight.started, weak=False)
    request_finished.connect(in_flight.finished, weak=False)
    try:
        yield in_flight
        in_flight.wait_idle()
    finally:
        request_started.disconnect(in_flight.started)
        request_finished.disconnect(in_flight.finished)


@pytest.fixture
def new_phone(browser, server_settles):
    """Open a fresh phone-sized browser context (its own cookies); call it for each phone.
    The contexts close at teardown, and then server_settles waits for the live server."""
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
