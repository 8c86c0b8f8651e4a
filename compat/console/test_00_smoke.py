"""Runs first: Debian's Chromium starts under Playwright and renders the console. A Chromium
update that breaks the driver fails here, loudly, before the real tests."""
from conftest import BASE


def test_chromium_starts_and_renders_the_sign_in_page(browser, context):
    assert browser.version.split(".")[0].isdigit()
    page = context.new_page()
    response = page.goto(BASE + "/console")
    assert response.ok
    assert page.url.endswith("/console/sign-in")
    assert page.title() == "Sign in · Dispatch console"
    assert page.get_by_role("button", name="Sign in").is_visible()
