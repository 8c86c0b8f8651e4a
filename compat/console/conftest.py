"""Fixtures for the console's browser tests (scripts/console-test starts the server).

One dispatchd and one Chromium (Debian's, through Playwright's executable_path; never a
downloaded browser) for the whole run; each test gets a fresh browser context.
Environment (from scripts/console-test): DISPATCH_URL, DISPATCH_ADMIN_EMAIL,
DISPATCH_ADMIN_PASSWORD, CONSOLE_ARTIFACTS (where screenshots go).
"""
import json
import os
import pathlib
import urllib.request
import uuid

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

BASE = os.environ["DISPATCH_URL"]
ADMIN_EMAIL = os.environ["DISPATCH_ADMIN_EMAIL"]
ADMIN_PASSWORD = os.environ["DISPATCH_ADMIN_PASSWORD"]
ARTIFACTS = pathlib.Path(os.environ.get("CONSOLE_ARTIFACTS", "console-artifacts"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class API:
    """The server's /v1 API for setting up data, as the admin or another user."""

    def __init__(self, email=ADMIN_EMAIL, password=ADMIN_PASSWORD, user_agent="console-test"):
        self.user_agent = user_agent
        self.token = self.call("POST", "/v1/auth/login", {"email": email, "password": password})["access_token"]

    def call(self, method, path, body=None, expect=None):
        request = urllib.request.Request(BASE + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", "User-Agent": self.user_agent})
        if getattr(self, "token", None):
            request.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(request) as response:
            assert expect is None or response.status == expect, (method, path, response.status)
            text = response.read()
            return json.loads(text) if text else None

    def create_user(self, name, user_type="realtor", password="correct horse battery"):
        email = f"{uuid.uuid4().hex[:10]}@example.com"
        user = self.call("POST", "/v1/users", {"email": email, "name": name, "user_type": user_type, "password": password})
        user["password"] = password
        return user


@pytest.fixture(scope="session")
def api():
    return API()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


def sign_in(page, email=ADMIN_EMAIL, password=ADMIN_PASSWORD):
    page.goto(BASE + "/console/sign-in")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("load")


@pytest.fixture
def context(browser):
    context = browser.new_context(base_url=BASE)
    yield context
    context.close()


@pytest.fixture(scope="session")
def admin_state(browser):
    """The admin signs in once (each sign-in runs the real KDF, about a second); tests reuse
    the cookie in fresh contexts. Tests that sign out sign in themselves (`signed_in_page`)."""
    context = browser.new_context(base_url=BASE)
    page = context.new_page()
    sign_in(page)
    page.wait_for_url("**/console")
    state = context.storage_state()
    context.close()
    return state


@pytest.fixture
def admin_page(browser, admin_state):
    context = browser.new_context(base_url=BASE, storage_state=admin_state)
    page = context.new_page()
    page.goto(BASE + "/console/people")
    page.wait_for_load_state("load")  # the page's module script has run
    assert page.url.endswith("/console/people"), page.url
    yield page
    context.close()


@pytest.fixture
def signed_in_page(context):
    """A page with a sign-in of its own, for tests that end it."""
    page = context.new_page()
    sign_in(page)
    page.wait_for_url("**/console")
    return page


_axe = Axe()


@pytest.fixture
def check_page():
    """Runs axe-core on the page in light and dark (0 violations required) and keeps a
    screenshot of each as a test artifact."""

    def check(page, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            results = _axe.run(page)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{scheme}.png"), full_page=True)
            assert results.violations_count == 0, f"{name} ({scheme}):\n" + results.generate_report()
        page.emulate_media(color_scheme="light")

    return check
