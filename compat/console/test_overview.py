"""The overview at /console, every instance on the Server page, and charts with axes."""
import os
import re
import signal
import subprocess
import time

from conftest import BASE

CHECKS = {
    "Database": "/console/server",
    "Instances": "/console/server",
    "Backup": "/console/backups",
    "Mail": "/console/mail",
    "Webhooks, Slack and notifications": "/console/integrations",
    "Phones and apps": "/console/sync",
    "Server errors": "/console/server",
}


def test_a_sign_in_lands_on_the_overview_with_each_check_and_where_to_fix_it(admin_page, check_page):
    admin_page.get_by_role("link", name="Overview").click()
    assert admin_page.url == BASE + "/console"
    assert admin_page.get_by_role("link", name="Overview").get_attribute("aria-current") == "page"
    for check, link in CHECKS.items():
        row = admin_page.locator(f'tr[data-check="{check}"]')
        assert row.count() == 1, check
        assert row.locator("td .badge").inner_text() in ("all right", "look", "needs action"), check
        assert row.get_by_role("link").get_attribute("href") == link, check
        assert row.locator("th").get_attribute("title"), f"{check} has its technical detail as a tooltip"
    database = admin_page.locator('tr[data-check="Database"]').inner_text()
    assert "Reachable" in database
    # The demo seed's work at a glance; each count opens the list it counts.
    counts = admin_page.locator("a.work-count")
    assert counts.count() == 4
    assert "open task" in counts.nth(0).inner_text()
    counts.nth(2).click()
    assert "/console/work?" in admin_page.url and "priority=urgent" in admin_page.url and "claimer=none" in admin_page.url
    admin_page.go_back()
    check_page(admin_page, "overview")


def test_the_overview_is_usable_from_the_keyboard(admin_page):
    admin_page.goto(BASE + "/console")
    # Past the skip link and the navigation, the first check's link is reachable by Tab.
    for _ in range(40):
        admin_page.keyboard.press("Tab")
        if admin_page.evaluate("document.activeElement.getAttribute('href')") == "/console/server" and \
                admin_page.evaluate("document.activeElement.closest('tr') !== null"):
            break
    else:
        raise AssertionError("the first check's link is not reachable with Tab")
    admin_page.keyboard.press("Enter")
    admin_page.wait_for_url("**/console/server")


def _instance_rows(page):
    page.goto(BASE + "/console/server")
    return {row.get_attribute("data-instance"): row.inner_text() for row in page.locator("tr[data-instance]").all()}


def test_two_instances_both_appear_and_a_stopped_one_turns_stale(admin_page, check_page):
    before = _instance_rows(admin_page)
    env = dict(os.environ, PORT="0", BACKUP_DAILY="off")
    second = subprocess.Popen([os.environ["DISPATCH_BINARY"], "serve"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        url = None
        for line in second.stdout:
            match = re.match(r"^Dispatch server listening on (http://\S+)$", line.strip())
            if match:
                url = match.group(1)
                break
        assert url, "the second dispatchd did not start"
        port = url.rsplit(":", 1)[1]
        deadline = time.monotonic() + 30
        while True:
            rows = _instance_rows(admin_page)
            new = [(id, text) for id, text in rows.items() if id not in before and f":{port}" in text]
            if new and "running" in new[0][1]:
                break
            assert time.monotonic() < deadline, f"the second instance never appeared: {rows}"
            time.sleep(0.5)
        new_id = new[0][0]
        running = [text for text in rows.values() if "running" in text]
        assert len(running) >= 2, rows
        assert any("answered this page" in text for text in running)
        # Chart the second instance alone.
        admin_page.get_by_label("Instance", exact=True).select_option(new_id)
        admin_page.get_by_role("button", name="Show").click()
        assert f":{port}" in admin_page.locator("main").inner_text().split("Charts of", 1)[1].split("\n", 1)[0]
        check_page(admin_page, "server-instances")
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=60)
    deadline = time.monotonic() + 30
    while "stale" not in _instance_rows(admin_page).get(new_id, ""):
        assert time.monotonic() < deadline, "the stopped instance never turned stale"
        time.sleep(0.5)
    this = [text for text in _instance_rows(admin_page).values() if "answered this page" in text]
    assert len(this) == 1 and "running" in this[0]


def test_charts_have_a_time_axis_and_a_value_axis_with_units(admin_page):
    admin_page.goto(BASE + "/console/server")
    charts = admin_page.locator("figure.chart")
    assert charts.count() == 5
    for index in range(charts.count()):
        chart = charts.nth(index)
        times = chart.locator("svg text.axis-x").all_text_contents()
        assert len(times) == 5 and all(re.fullmatch(r"\d\d:\d\d", t) for t in times), times
        values = chart.locator("svg text.axis-y").all_text_contents()
        assert len(values) == 3 and all(re.search(r"(/min|ms|s|^\d+)$", v) for v in values), values
        assert chart.locator(".value").inner_text()
        assert chart.locator("figcaption").get_attribute("title")
    latency = charts.filter(has_text="Slowest 5 %")
    assert any(v.endswith("ms") or v.endswith(" s") for v in latency.locator("svg text.axis-y").all_text_contents())
    requests = charts.filter(has_text="Requests answered")
    # The signed-in browser's own page loads were answered in the last minutes: a real line or dot.
    assert requests.locator("svg polyline.line, svg circle.dot").count() >= 1
    assert "range" in requests.locator(".range").inner_text()
