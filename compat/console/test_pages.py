"""Server and Audit log, the layout's keyboard and no-script behaviour, and sign-out."""
from conftest import BASE, sign_in


def test_server_page_answers_is_this_server_healthy(admin_page, check_page):
    admin_page.get_by_role("link", name="Server").click()
    main = admin_page.locator("main").inner_text()
    assert "reachable" in main and "0022" in main and "up to date" in main
    assert admin_page.locator("figure.chart svg").count() == 5
    assert admin_page.get_by_role("link", name="Server").get_attribute("aria-current") == "page"
    check_page(admin_page, "server")


def test_audit_log_lists_console_actions_with_a_filter(admin_page, api, check_page):
    person = api.create_user("Audrey Audit")
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    admin_page.get_by_role("button", name="Make admin").click()
    admin_page.get_by_role("link", name="Audit log").click()
    admin_page.get_by_label("Action").select_option("person.role")
    admin_page.get_by_role("button", name="Filter").click()
    rows = admin_page.locator("tbody tr").all_inner_texts()
    assert rows and all("person.role" in row for row in rows)
    assert any(person["email"] + " is now admin" in row for row in rows)
    check_page(admin_page, "audit")
    admin_page.get_by_label("Who (email)").fill("nobody@example.com")
    admin_page.get_by_role("button", name="Filter").click()
    assert "No console actions match." in admin_page.locator("main").inner_text()


def test_keyboard_skip_link_and_visible_focus(admin_page):
    admin_page.keyboard.press("Tab")
    focused = admin_page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to content"
    outline = admin_page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"


def test_everything_works_without_javascript(browser, api, check_page):
    context = browser.new_context(base_url=BASE, java_script_enabled=False)
    page = context.new_page()
    sign_in(page)
    person = api.create_user("Nora NoScript")
    page.goto(BASE + f"/console/people/{person['id']}")
    page.get_by_role("button", name="Deactivate").click()  # no dialog without script: submits at once
    assert "deactivated" in page.get_by_role("status").inner_text()
    assert api.call("GET", f"/v1/users/{person['id']}")["deactivated_at"] is not None
    context.close()


def test_sign_out_ends_the_session(signed_in_page, check_page):
    page = signed_in_page
    page.get_by_role("button", name="Sign out").click()
    assert page.url.endswith("/console/sign-in")
    check_page(page, "sign-in")
    page.goto(BASE + "/console/people")
    assert page.url.endswith("/console/sign-in")
