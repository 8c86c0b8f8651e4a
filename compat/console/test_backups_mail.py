"""The Backups and Mail pages, and a person's recent failed requests, driven in the browser:
back up now then verify shows "verified"; the download asks for the password again and
refuses a wrong one; a test mail reaches the test relay; a dead invitation is shown and "Send
a new one" delivers a fresh one (scripts/console-test runs the relay with --reject-once
bounce-once- and MAIL_MAX_ATTEMPTS=1, so the first mail to such an address dies at once)."""
import os
import re
import sys
import time
import urllib.error
import uuid

from conftest import ADMIN_EMAIL, ADMIN_PASSWORD, API, BASE
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts"))
from smtp_capture import plain_text, wait_for_messages  # noqa: E402

SMTP_DIR = os.environ["DISPATCH_SMTP_DIR"]
# A backup and a verify (pg_dump, pg_restore into a scratch database) on a loaded machine.
SLOW = 180_000


def captured_test_mails():
    """The console's test mails the relay received for the admin so far."""
    return [m for m in wait_for_messages(SMTP_DIR, 0, timeout=0, to=ADMIN_EMAIL) if "Subject: Test mail from" in m["data"]]


def test_back_up_now_then_verify_shows_verified(admin_page, check_page):
    page = admin_page
    page.goto(BASE + "/console/backups")
    before = page.locator("tbody tr").count()
    page.get_by_role("button", name="Back up now").click()
    expect(page.get_by_role("status").first).to_contain_text("Backup started")
    # The page refreshes itself (meta refresh) while the backup runs; then the new row is written.
    expect(page.locator("tbody tr")).to_have_count(before + 1, timeout=SLOW)
    newest = page.locator("tbody tr").first
    expect(newest.get_by_text("written", exact=True)).to_be_visible(timeout=SLOW)
    expect(newest).to_contain_text(ADMIN_EMAIL)
    expect(newest).to_contain_text("not verified")
    name = newest.locator("code").first.inner_text()
    newest.get_by_role("button", name=f"Verify {name}").click()
    expect(page.get_by_role("status").first).to_contain_text("Verify started")
    row = page.locator("tbody tr", has=page.get_by_text(name, exact=True))
    expect(row.get_by_text("verified", exact=True)).to_be_visible(timeout=SLOW)
    expect(page.get_by_role("button", name="Back up now")).to_be_enabled(timeout=SLOW)
    check_page(page, "backups")
    # The exact restore command names this deployment's data directory and the file.
    row.get_by_text("Restore command").click()
    command = row.locator("pre code").inner_text()
    assert re.match(r"^DATA_DIR=\S+ \S+/dispatchd restore --force \S+" + re.escape(name) + "$", command), command


def test_a_download_asks_for_the_password_and_refuses_a_wrong_one(admin_page):
    page = admin_page
    page.goto(BASE + "/console/backups")
    row = page.locator("tbody tr", has=page.get_by_text("written", exact=True)).first
    name = row.locator("code").first.inner_text()
    row.get_by_text("Download…").click()
    row.get_by_label(re.compile("Your password")).fill("not the password at all")
    row.get_by_role("button", name=f"Download {name}").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Unprocessable Content")  # 422, no file
    expect(page.locator("main")).to_contain_text("Does not match the current password")
    page.goto(BASE + "/console/backups")
    row = page.locator("tbody tr", has=page.get_by_text(name, exact=True))
    row.get_by_text("Download…").click()
    row.get_by_label(re.compile("Your password")).fill(ADMIN_PASSWORD)
    with page.expect_download() as download:
        row.get_by_role("button", name=f"Download {name}").click()
    assert download.value.suggested_filename == name
    with open(download.value.path(), "rb") as file:
        head = file.read(1024)
    assert b"manifest.json" in head  # a tar whose first member is the signed manifest


def test_a_test_mail_arrives_at_the_relay(admin_page, check_page):
    page = admin_page
    page.goto(BASE + "/console/mail")
    expect(page.locator("main")).to_contain_text("SMTP_HOST")
    before = len(captured_test_mails())
    page.get_by_role("button", name="Send a test mail to me").click()
    expect(page.get_by_role("status").first).to_contain_text("Test mail queued")
    for _ in range(150):
        if len(captured_test_mails()) > before:
            break
        time.sleep(0.2)
    arrived = captured_test_mails()
    assert len(arrived) > before, "the test mail did not reach the relay"
    assert "It arrived, so mail works." in plain_text(arrived[-1])
    row = page.locator("tbody tr", has=page.get_by_text("test", exact=True)).first
    for _ in range(60):  # the relay has it; the sender records it a moment later
        page.goto(BASE + "/console/mail")
        if row.get_by_text("sent", exact=True).count():
            break
        page.wait_for_timeout(500)
    expect(row.get_by_text("sent", exact=True)).to_be_visible()
    check_page(page, "mail")


def test_a_dead_invitation_is_shown_and_a_new_one_delivers(api, admin_page):
    email = f"bounce-once-{uuid.uuid4().hex[:8]}@example.com"
    api.call("POST", "/v1/invitations", {"email": email, "name": "Bounced Once"}, expect=201)
    page = admin_page
    row = page.locator("tbody tr", has=page.get_by_text(email, exact=True))
    for _ in range(60):  # the sender's first and only attempt is refused by the relay
        page.goto(BASE + "/console/mail")
        if row.get_by_text("dead", exact=True).count():
            break
        page.wait_for_timeout(500)
    expect(row.get_by_text("dead", exact=True)).to_be_visible()
    expect(row).to_contain_text("550")
    row.get_by_role("button", name=f"Send {email} a new invitation").click()
    # The API's own limits hold: one mail per address per minute, so a mail that died at once
    # is renewed a minute after it was queued.
    refusal = page.locator("main").inner_text()
    if "can only be requested again after" in refusal:
        wait = int(re.search(r"after (\d+) seconds", refusal).group(1))
        page.wait_for_timeout((wait + 1) * 1000)
        page.goto(BASE + "/console/mail")
        row.get_by_role("button", name=f"Send {email} a new invitation").click()
    expect(page.get_by_role("status").first).to_contain_text("A new mail was queued")
    messages = wait_for_messages(SMTP_DIR, 1, timeout=30, to=email)
    assert len(messages) == 1, "the new invitation did not arrive"
    assert re.search(r"https?://\S+/auth/v1/verify\?\S+", plain_text(messages[0]))
    audit = page.goto(BASE + "/console/audit")
    assert audit.ok
    expect(page.locator("main")).to_contain_text(f"Sent a new invitation to {email}")


def test_a_realtors_failed_request_appears_on_their_pages(api, admin_page, check_page):
    person = api.create_user("Failing Phone")
    phone = API(person["email"], person["password"], user_agent="Dispatch/1.0 (iPhone)")
    missing = str(uuid.uuid4())
    try:
        phone.call("GET", f"/v1/tasks/{missing}")
        raise AssertionError("a missing task answered 2xx")
    except urllib.error.HTTPError as error:
        assert error.code == 404
        request_id = error.headers.get("X-Request-Id")
    page = admin_page
    for path in (f"/console/people/{person['id']}", f"/console/sync/{person['id']}"):
        page.goto(BASE + path)
        section = page.locator(".card", has=page.get_by_role("columnheader", name="Error code"))
        expect(section).to_contain_text("GET /v1/tasks/{id}")
        expect(section).to_contain_text("404")
        expect(section).to_contain_text("not_found")
        if request_id:
            expect(section).to_contain_text(request_id)
        assert missing not in section.inner_text()  # the route's pattern, never the raw path
    check_page(page, "person-failures")
