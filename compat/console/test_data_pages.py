"""Work, Explain access, View as, Sync health and Off-boarding, driven as an office admin would."""
import time

from conftest import API, BASE

SCRIPT = "<script>window.pwned = 1</script>"


def realtor_with_claimed_task(api, name):
    """A realtor (with a signed-in API session) who declared and claimed a task."""
    person = api.create_user(name)
    phone = API(person["email"], person["password"], user_agent="Dispatch/1.0 (iPhone)")
    task = phone.call("POST", "/v1/tasks", {"title": f"Call the buyer {SCRIPT}", "priority": "urgent"}, expect=201)
    phone.call("POST", f"/v1/tasks/{task['id']}/claim", expect=200)
    return person, phone, task


def confirm(page, button):
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name=button, exact=True).click()


def test_work_list_detail_and_every_edit(admin_page, api, check_page):
    person, _, task = realtor_with_claimed_task(api, "Wanda Work")
    admin_page.get_by_role("link", name="Work", exact=True).click()
    admin_page.get_by_label("Priority").select_option("urgent")
    admin_page.get_by_label("Claimed by").select_option(person["id"])
    admin_page.get_by_role("button", name="Show").click()
    rows = admin_page.locator("tbody tr").all_inner_texts()
    assert len(rows) == 1 and SCRIPT in rows[0] and "Wanda Work" in rows[0]
    check_page(admin_page, "work")

    admin_page.get_by_role("link", name=f"Call the buyer {SCRIPT}").click()
    assert admin_page.evaluate("window.pwned") is None  # the stored script stayed text
    check_page(admin_page, "work-item")
    confirm(admin_page, "Release claim")
    assert admin_page.get_by_role("status").inner_text() == "Claim released."
    assert api.call("GET", f"/v1/tasks/{task['id']}")["claimed_by"] is None
    admin_page.get_by_label("Hand the claim to").select_option(person["id"])
    admin_page.get_by_role("button", name="Hand over").click()
    assert admin_page.get_by_role("status").inner_text() == "Claim handed over."
    assert api.call("GET", f"/v1/tasks/{task['id']}")["claimed_by"] == person["id"]
    admin_page.get_by_label("New status").select_option("completed")
    admin_page.get_by_role("button", name="Change status").click()
    assert admin_page.get_by_role("status").inner_text() == "Status changed."
    confirm(admin_page, "Delete")
    assert api.call("GET", f"/v1/tasks/{task['id']}")["status"] == "deleted"
    confirm(admin_page, "Restore")
    assert admin_page.get_by_role("status").inner_text() == "Restored."
    assert api.call("GET", f"/v1/tasks/{task['id']}")["status"] == "completed"
    history = admin_page.locator("main").inner_text()
    assert "released" in history and "claimed" in history and "deleted" in history


def test_explain_access_and_view_as(admin_page, api, check_page):
    person, _, task = realtor_with_claimed_task(api, "Xavier Explain")
    stranger = api.create_user("Yara Stranger")
    admin_page.get_by_role("link", name="Explain access").click()
    admin_page.get_by_label("Person", exact=True).select_option(stranger["id"])
    admin_page.get_by_label("Kind of row").select_option("task")
    admin_page.get_by_label("Row id").fill(task["id"])
    admin_page.get_by_role("button", name="Explain").click()
    assert "does not see it" in admin_page.locator("main").inner_text()
    check_page(admin_page, "access")
    admin_page.get_by_label("Person", exact=True).select_option(person["id"])
    admin_page.get_by_role("button", name="Explain").click()
    main = admin_page.locator("main").inner_text()
    assert "sees it" in main and "does not see it" not in main and "declared it" in main

    admin_page.get_by_role("link", name="View as Xavier Explain: what their phone would sync").click()
    assert task["id"] in admin_page.locator("main").inner_text()
    assert "claimed by them" in admin_page.locator("main").inner_text()
    check_page(admin_page, "view-as")


def test_sync_health_per_device(admin_page, api, check_page):
    person, phone, _ = realtor_with_claimed_task(api, "Zoe Sync")
    phone.call("GET", "/v1/sync")
    # Device activity is written every 10 s (one statement per flush, not one per request).
    deadline = time.monotonic() + 25
    admin_page.get_by_role("link", name="Sync health").click()
    while "Zoe Sync" not in admin_page.locator("main").inner_text():
        assert time.monotonic() < deadline, "the device never appeared"
        time.sleep(1)
        admin_page.reload()
    check_page(admin_page, "sync")
    admin_page.get_by_role("link", name="Zoe Sync").first.click()
    assert "Up to date" in admin_page.locator("main").inner_text()
    check_page(admin_page, "devices")


def test_offboarding_hands_everything_over(admin_page, api, check_page):
    person, _, task = realtor_with_claimed_task(api, "Olga Leaving")
    colleague = api.create_user("Paul Colleague")
    listing = api.call("POST", "/v1/listings", {"address": "9 Harbour St", "owned_by": person["id"]}, expect=201)
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    admin_page.get_by_role("link", name="Off-board Olga Leaving: hand over claims and listings").click()
    check_page(admin_page, "offboard")
    admin_page.get_by_label("Their open claims").select_option(colleague["id"])
    admin_page.get_by_label("Their listings go to").select_option(colleague["id"])
    confirm(admin_page, "Hand everything over")
    assert "Off-boarding done" in admin_page.get_by_role("status").inner_text()
    assert api.call("GET", f"/v1/tasks/{task['id']}")["claimed_by"] == colleague["id"]
    assert api.call("GET", f"/v1/listings/{listing['id']}")["owned_by"] == colleague["id"]


def test_a_persons_phones_for_wake_ups(admin_page, api, check_page):
    person = api.create_user("Wendy Wakes")
    phone = API(person["email"], person["password"], user_agent="Dispatch/1.0 (iPhone)")
    token = "a1b2c3d4e5f6" * 5 + "feed42"
    phone.call("POST", "/v1/devices", {"platform": "ios", "token": token, "app_id": "com.example.dispatch"})
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    card = admin_page.locator("h2:has-text('Wake-ups') + .card").inner_text()
    assert "iPhone / iPad" in card and "com.example.dispatch" in card and "feed42" in card and "never" in card
    assert token not in admin_page.content()  # only its last characters
    check_page(admin_page, "person-wake-ups")
    admin_page.goto(BASE + f"/console/sync/{person['id']}")
    assert "com.example.dispatch" in admin_page.locator("h2:has-text('Wake-ups') + .card").inner_text()
