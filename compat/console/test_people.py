"""People, driven as an office admin would: find someone, add someone, change a role,
deactivate and reactivate, reset a password, sign a device out, revoke an API key."""
import re

from playwright.sync_api import expect

from conftest import API, BASE


def test_search_with_the_keyboard_and_page_through(admin_page, check_page):
    # scripts/console-test seeded 40 demo people (realtorN@demo.dispatch.local, adminN@…).
    admin_page.keyboard.press("/")
    assert admin_page.evaluate("document.activeElement.id") == "q"
    admin_page.keyboard.type("demo.dispatch.local")
    admin_page.keyboard.press("Enter")
    rows = admin_page.locator("tbody tr")
    expect(rows).to_have_count(25)
    first_page = [row.split("\t")[0] for row in rows.all_inner_texts()]
    assert first_page == sorted(first_page, key=str.lower)
    check_page(admin_page, "people")
    admin_page.get_by_role("link", name="Next page").click()
    expect(rows).to_have_count(15)
    second_page = [row.split("\t")[0] for row in rows.all_inner_texts()]
    assert second_page[0].lower() >= first_page[-1].lower()
    assert admin_page.get_by_role("link", name="Next page").count() == 0
    admin_page.get_by_role("link", name="First page").click()
    expect(rows).to_have_count(25)


def test_add_a_person_by_email_invitation(admin_page, api):
    # The invitation is the form's first choice: an account without a password, and its mail queued.
    admin_page.get_by_label("Name", exact=True).fill("Ivo Invited")
    admin_page.get_by_label("Email", exact=True).fill("ivo.invited@example.com")
    assert admin_page.get_by_role("radio", name=re.compile("E-mail an invitation")).is_checked()
    admin_page.get_by_role("button", name="Add person").click()
    assert admin_page.get_by_role("heading", level=1).inner_text() == "Ivo Invited"
    assert admin_page.get_by_role("status").inner_text().startswith("Invitation e-mailed")
    person_id = admin_page.url.split("/console/people/")[1].split("?")[0]
    assert api.call("GET", f"/v1/users/{person_id}")["email"] == "ivo.invited@example.com"


def test_add_a_person_with_a_generated_password(admin_page, check_page):
    admin_page.get_by_label("Name", exact=True).fill("Nina New")
    admin_page.get_by_label("Email", exact=True).fill("nina.new@example.com")
    admin_page.get_by_role("radio", name="Set a password now").check()
    admin_page.get_by_role("button", name="Add person").click()
    assert admin_page.get_by_role("heading", name="Nina New can now sign in").is_visible()
    password = admin_page.locator("#password").inner_text()
    check_page(admin_page, "person-created")
    API("nina.new@example.com", password)  # the shown password signs in
    admin_page.get_by_role("link", name="Done").click()
    assert admin_page.get_by_role("heading", level=1).inner_text() == "Nina New"


def test_change_role_deactivate_reactivate_and_reset_password(admin_page, api, check_page):
    person = api.create_user("Rob Roles")
    API(person["email"], person["password"], user_agent="Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1")
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    check_page(admin_page, "person")

    admin_page.get_by_role("button", name="Make admin").click()
    assert admin_page.get_by_role("status").inner_text() == "Role changed."
    assert api.call("GET", f"/v1/users/{person['id']}")["user_type"] == "admin"
    admin_page.get_by_role("button", name="Make realtor").click()

    # The confirmation dialog: Esc closes it and nothing happens; confirming deactivates.
    admin_page.get_by_role("button", name="Deactivate").click()
    dialog = admin_page.get_by_role("dialog")
    assert dialog.is_visible()
    admin_page.keyboard.press("Escape")
    assert dialog.count() == 0
    assert admin_page.evaluate("document.activeElement.textContent") == "Deactivate"
    assert api.call("GET", f"/v1/users/{person['id']}")["deactivated_at"] is None
    admin_page.get_by_role("button", name="Deactivate").click()
    admin_page.get_by_role("dialog").get_by_role("button", name="Deactivate").click()
    assert "deactivated" in admin_page.get_by_role("status").inner_text()
    assert api.call("GET", f"/v1/users/{person['id']}")["deactivated_at"] is not None
    admin_page.get_by_role("button", name="Reactivate").click()
    assert admin_page.get_by_role("status").inner_text() == "Person reactivated."

    device = API(person["email"], person["password"])
    admin_page.reload()
    admin_page.get_by_role("button", name="Reset password").click()
    admin_page.get_by_role("dialog").get_by_role("button", name="Reset password").click()
    new_password = admin_page.locator("#password").inner_text()
    API(person["email"], new_password)
    try:
        device.call("GET", "/v1/me")
        raise AssertionError("the old session still works after a password reset")
    except Exception as error:  # urllib raises HTTPError 401
        assert "401" in str(error)


def test_revoke_a_session_and_an_api_key(admin_page, api):
    person = api.create_user("Sam Sessions")
    phone = API(person["email"], person["password"], user_agent="Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1")
    phone.call("POST", "/v1/api-keys", {"name": "Zapier sync"}, expect=201)
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    assert "Safari on iPhone" in admin_page.locator("main").inner_text()
    admin_page.get_by_role("button", name=re.compile("Revoke the session on Safari on iPhone")).click()
    admin_page.get_by_role("dialog").get_by_role("button").filter(has_text=re.compile("Revoke")).click()
    assert admin_page.get_by_role("status").inner_text() == "Session revoked."
    assert "Safari on iPhone" not in admin_page.locator("main").inner_text()

    assert "Zapier sync" in admin_page.locator("main").inner_text()
    admin_page.get_by_role("button", name="Revoke the API key Zapier sync").click()
    admin_page.get_by_role("dialog").get_by_role("button").filter(has_text=re.compile("Revoke")).click()
    assert admin_page.get_by_role("status").inner_text() == "API key revoked."
    assert "Zapier sync" not in admin_page.locator("main").inner_text()
