"""Integrations: webhook endpoints with their failing deliveries, replay, enable/disable,
rotation, and Slack paused by a refused incoming webhook, resumed, and linked on a person's page.

A scripted receiver on 127.0.0.1 (INTEGRATIONS_PORT, which scripts/console-test also names in
WEBHOOK_ALLOWED_HOSTS and SLACK_HOOKS_BASE_URL) answers every webhook delivery 500 and every
Slack post 410 `channel_is_archived`, as a failing endpoint and an archived channel do.
"""
import http.server
import os
import threading
import time
import uuid

import pytest

from conftest import BASE
from test_data_pages import confirm

PORT = int(os.environ["INTEGRATIONS_PORT"])


class Receiver(http.server.BaseHTTPRequestHandler):
    channel_archived = True
    slack_posts = []

    def do_POST(self):
        received = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        slack = self.path.startswith("/services/")
        if slack and not Receiver.channel_archived:
            Receiver.slack_posts.append(received.decode())
            status, body = 200, b"ok"
        else:
            status, body = (410, b"channel_is_archived") if slack else (500, b"receiver is down")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def receiver():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield
    server.shutdown()


def eventually(check, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_webhook_failures_replay_disable_and_rotate(admin_page, api, check_page, receiver):
    created = api.call("POST", "/v1/webhooks", {"url": f"http://127.0.0.1:{PORT}/hook/{uuid.uuid4().hex[:8]}",
                                                "events": ["task.created"], "description": "Office CRM"}, expect=201)
    api.call("POST", "/v1/tasks", {"title": "Order the sign", "priority": "high"}, expect=201)
    eventually(lambda: [d for d in api.call("GET", f"/v1/webhooks/{created['id']}/deliveries")["items"]
                        if d["http_status"] == 500], "a delivery answered 500")

    admin_page.get_by_role("link", name="Integrations").click()
    row = admin_page.locator("tr", has_text=created["url"])
    assert "enabled" in row.inner_text() and "retrying" in row.inner_text() and "Office CRM" in row.inner_text()
    check_page(admin_page, "integrations")

    row.get_by_role("link", name=created["url"]).click()
    table = admin_page.locator("tbody").inner_text()
    assert "task.created" in table and "500" in table and "retrying" in table
    check_page(admin_page, "webhook")
    before = len(api.call("GET", f"/v1/webhooks/{created['id']}/deliveries")["items"])
    admin_page.get_by_role("button", name="Replay").first.click()
    assert "queued again" in admin_page.get_by_role("status").inner_text()
    assert len(api.call("GET", f"/v1/webhooks/{created['id']}/deliveries")["items"]) == before + 1

    admin_page.get_by_label("Status").select_option("dead")
    admin_page.get_by_role("button", name="Filter").click()
    assert "No deliveries match." in admin_page.locator("main").inner_text()

    confirm(admin_page, "Disable")
    assert "Webhook disabled" in admin_page.get_by_role("status").inner_text()
    assert api.call("GET", f"/v1/webhooks/{created['id']}")["enabled"] is False
    admin_page.get_by_role("button", name="Enable").click()
    assert api.call("GET", f"/v1/webhooks/{created['id']}")["enabled"] is True

    confirm(admin_page, "Rotate secret")
    secret = admin_page.locator("#secret").inner_text()
    assert secret.startswith("whsec_") and secret != created["secret"]
    check_page(admin_page, "webhook-secret")
    admin_page.get_by_role("link", name="Done").click()
    assert "the previous one also signs until" in admin_page.locator("main").inner_text()
    assert secret not in admin_page.content()
    admin_page.goto(BASE + "/console/audit")
    assert "Rotated the secret of the webhook to " + created["url"] in admin_page.locator("main").inner_text()


def test_slack_paused_by_an_archived_channel_is_shown_resumed_and_linked(admin_page, api, check_page, receiver):
    api.call("POST", "/v1/integrations/slack", {
        "team_id": "T0CONSOLE", "signing_secret": "8f742231b10e8888abcd99yyyzzz85a5",
        "incoming_webhook_url": f"http://127.0.0.1:{PORT}/services/T0CONSOLE/B0CONSOLE/secretpart",
        "events": ["task.created"]}, expect=200)
    api.call("POST", "/v1/tasks", {"title": "Post me to Slack", "priority": "medium"}, expect=201)
    eventually(lambda: api.call("GET", "/v1/integrations/slack")["state"] == "paused", "Slack paused")

    admin_page.get_by_role("link", name="Integrations").click()
    main = admin_page.locator("main").inner_text()
    assert "paused" in main and "channel_is_archived" in main and "T0CONSOLE" in main
    assert "secretpart" not in admin_page.content()
    check_page(admin_page, "integrations-slack-paused")
    Receiver.channel_archived = False  # the office unarchived the channel
    admin_page.get_by_role("button", name="Resume posting").click()
    assert "resumed" in admin_page.get_by_role("status").inner_text()
    eventually(lambda: any("Post me to Slack" in post for post in Receiver.slack_posts), "the waiting post delivered")
    assert api.call("GET", "/v1/integrations/slack")["state"] == "active"

    person = api.create_user("Sam Slack")
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    admin_page.get_by_label("Slack member ID").fill("U0SAMSLACK")
    admin_page.get_by_role("button", name="Link Slack user").click()
    assert "Slack user linked" in admin_page.get_by_role("status").inner_text()
    assert "U0SAMSLACK" in admin_page.locator("main").inner_text()
    check_page(admin_page, "person-slack")
    linked = api.call("GET", "/v1/integrations/slack/users")["items"]
    assert any(link["user_id"] == person["id"] and link["slack_user_id"] == "U0SAMSLACK" for link in linked)
    admin_page.goto(BASE + "/console/integrations")
    assert admin_page.get_by_role("link", name="Sam Slack").count() == 1
    admin_page.goto(BASE + f"/console/people/{person['id']}")
    confirm(admin_page, "Unlink Slack")
    assert "Slack user unlinked" in admin_page.get_by_role("status").inner_text()
    assert not any(link["user_id"] == person["id"] for link in api.call("GET", "/v1/integrations/slack/users")["items"])
