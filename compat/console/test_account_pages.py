"""The account pages: where an invitation's, a recovery's or an address change's link lands
when no app redirect is configured, opened by a person on a computer, with the mail read from
the test relay (scripts/console-test runs scripts/smtp_capture.py and names it in
DISPATCH_SMTP_DIR). Opening a link spends nothing; the page's button does."""
import html
import os
import re
import sys
import uuid

from conftest import API, BASE

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts"))
from smtp_capture import plain_text, wait_for_messages  # noqa: E402

SMTP_DIR = os.environ["DISPATCH_SMTP_DIR"]


def link_to(recipient, count=1):
    """The verify link of the `count`-th mail to `recipient` (waits for it)."""
    messages = wait_for_messages(SMTP_DIR, count, timeout=20, to=recipient)
    assert len(messages) >= count, f"no mail #{count} to {recipient}"
    text = html.unescape(plain_text(messages[count - 1]))
    found = re.search(r"(https?://\S+/auth/v1/verify\?\S+)", text)
    assert found, text
    return found.group(1)


def choose_password(page, password, again=None):
    page.get_by_label("New password", exact=True).fill(password)
    page.get_by_label("New password again").fill(again or password)
    page.get_by_role("button", name="Set password").click()


def test_an_invitation_opened_on_a_computer_chooses_a_password(admin_page, browser):
    email = f"invited-{uuid.uuid4().hex[:8]}@example.com"
    admin_page.get_by_label("Name", exact=True).fill("Ines Invited")
    admin_page.get_by_label("Email", exact=True).fill(email)
    admin_page.get_by_role("button", name="Add person").click()
    link = link_to(email)

    # Without JavaScript (axe, which needs it, checks these pages in the next test).
    context = browser.new_context(base_url=BASE, java_script_enabled=False)
    page = context.new_page()
    page.goto(link)
    assert "/account/verify?" in page.url, page.url
    assert page.get_by_role("heading", level=1).inner_text() == "Welcome to Dispatch: choose your password"
    page.reload()  # opening it again spends nothing
    choose_password(page, "first password 1", again="another password 2")
    assert "differ" in page.get_by_role("alert").inner_text()
    password = f"pw-{uuid.uuid4().hex}"
    choose_password(page, password)
    assert page.get_by_role("heading", level=1).inner_text() == "Password set"
    assert email in page.get_by_role("status").inner_text()
    API(email, password)  # signs in with the chosen password

    page.goto(link)  # spent by the POST
    assert page.get_by_role("heading", level=1).inner_text() == "This link has been used or has expired"
    assert "new invitation" in page.get_by_role("alert").inner_text()
    context.close()


def test_a_recovery_and_an_address_change_opened_on_a_computer(api, browser, check_page):
    person = api.create_user("Rhea Recovers")
    anonymous = API.__new__(API)
    anonymous.user_agent = "console-test"
    anonymous.call("POST", "/v1/auth/recover", {"email": person["email"]})
    context = browser.new_context(base_url=BASE)
    page = context.new_page()
    page.goto(link_to(person["email"]))
    assert page.get_by_role("heading", level=1).inner_text() == "Choose a new password"
    check_page(page, "account-recovery")
    password = f"pw-{uuid.uuid4().hex}"
    choose_password(page, password)
    assert page.get_by_role("heading", level=1).inner_text() == "Password set"
    check_page(page, "account-done")
    API(person["email"], password)

    # Another person (one mail per address per minute): their new address, confirmed on a computer.
    person = api.create_user("Mo Moves")
    phone = API(person["email"], person["password"])
    moved = f"moved-{uuid.uuid4().hex[:8]}@example.com"
    phone.call("POST", "/v1/me/email", {"email": moved, "current_password": person["password"]}, expect=202)
    page.goto(link_to(moved))
    assert page.get_by_role("heading", level=1).inner_text() == "Confirm your new e-mail address"
    check_page(page, "account-email-change")
    assert api.call("GET", f"/v1/users/{person['id']}")["email"] == person["email"]  # nothing moved by opening it
    page.get_by_role("button", name="Confirm the new address").click()
    assert page.get_by_role("heading", level=1).inner_text() == "E-mail address changed"
    assert api.call("GET", f"/v1/users/{person['id']}")["email"] == moved
    context.close()
