"""What the console refuses: no page without a session, no form without the session's CSRF
token (and nothing changes), no realtor, and stored markup shown as text, never run."""
import re

from conftest import BASE, sign_in


def test_no_console_page_without_a_session(context):
    page = context.new_page()
    for path in ("/console/people", "/console/server", "/console/audit"):
        page.goto(BASE + path)
        assert page.url.endswith("/console/sign-in"), path
    assert not any(cookie["name"] == "dispatch_console" for cookie in context.cookies())


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(admin_page, api):
    target = api.create_user("Carl Csrf")
    person = f"/console/people/{target['id']}"
    admin_page.goto(BASE + person)
    token = admin_page.locator("input[name=csrf]").first.input_value()
    # The browser's own cookies (a signed-in session), a form without the token: as a foreign page would send it.
    for form in ({}, {"csrf": "not-the-token"}):
        response = admin_page.request.post(BASE + person + "/deactivate", form=form, max_redirects=0)
        assert response.status == 403
        assert "nothing was changed" in response.text()
    assert api.call("GET", f"/v1/users/{target['id']}")["deactivated_at"] is None
    # The same request with the page's token does it.
    response = admin_page.request.post(BASE + person + "/deactivate", form={"csrf": token}, max_redirects=0)
    assert response.status == 303
    assert api.call("GET", f"/v1/users/{target['id']}")["deactivated_at"] is not None


def test_a_realtor_is_refused_with_a_clear_page(context, api, check_page):
    realtor = api.create_user("Rita Realtor")
    page = context.new_page()
    sign_in(page, realtor["email"], realtor["password"])
    assert page.get_by_role("heading", name="Administrators only").is_visible()
    assert "the console is for administrators" in page.locator("main").inner_text()
    check_page(page, "refused")
    page.goto(BASE + "/console/people")
    assert page.url.endswith("/console/sign-in")


def test_a_stored_script_is_shown_as_text_and_never_runs(admin_page, api):
    payload = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    api.create_user("Mallory " + payload)
    dialogs = []
    admin_page.on("dialog", lambda dialog: dialogs.append(dialog))
    admin_page.goto(BASE + "/console/people?q=Mallory")
    link = admin_page.get_by_role("link", name=re.compile("Mallory"))
    assert payload in link.inner_text()
    link.click()
    assert admin_page.get_by_role("heading", level=1).inner_text() == "Mallory " + payload
    assert admin_page.evaluate("window.__pwned") is None
    assert admin_page.locator("main script, main img").count() == 0
    assert not dialogs
