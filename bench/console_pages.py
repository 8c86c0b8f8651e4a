"""Times the console's pages for bench/console-pages: signs in as an admin (the real form,
cookies and CSRF), then GETs each page N times over one keep-alive connection and reports the
median and worst of the client's wall time and of the server's own duration (duration_ms of
the request's line in the JSON request log, found by its X-Request-Id).

usage: console_pages.py BASE_URL EMAIL PASSWORD SERVER_LOG RUNS
"""
import http.client
import json
import re
import statistics
import sys
import time
import urllib.parse

base, email, password, server_log, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
url = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
cookies = {}


def request(method, path, body=None):
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        body = urllib.parse.urlencode(body)
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read().decode("utf-8", "replace")
    elapsed = time.perf_counter() - started
    for name, value in response.getheaders():
        if name.lower() == "set-cookie":
            key, _, rest = value.partition("=")
            cookies[key] = rest.split(";", 1)[0]
    return response.status, data, elapsed, response.getheader("X-Request-Id")


status, page, _, _ = request("GET", "/console/sign-in")
csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
status, _, _, _ = request("POST", "/console/sign-in", {"csrf": csrf, "email": email, "password": password})
if status != 303 or "dispatch_console" not in cookies:
    sys.exit(f"sign-in failed: {status}")
status, people, _, _ = request("GET", "/console/people")
person = re.search(r'href="(/console/people/[0-9a-f-]{36})"', people)
pages = [("Overview", "/console"), ("Server", "/console/server"), ("Sync health", "/console/sync"),
         ("People", "/console/people"), ("A person", person.group(1) if person else None), ("Work", "/console/work"),
         ("Integrations", "/console/integrations"), ("Backups", "/console/backups"), ("Mail", "/console/mail")]

results, skipped, request_ids = [], [], {}
for name, path in pages:
    if path is None:
        skipped.append(f"{name}: no person listed")
        continue
    status, _, _, _ = request("GET", path)  # warm-up, and the 404 check
    if status == 404:
        skipped.append(f"{name} ({path}): 404 on this build")
        continue
    if status != 200:
        sys.exit(f"{path} answered {status}")
    times = []
    for _ in range(runs):
        status, _, elapsed, request_id = request("GET", path)
        times.append(elapsed * 1000)
        request_ids[request_id] = name
    results.append((name, path, times))

time.sleep(0.5)  # the request log is written after the answer
server = {}
with open(server_log, encoding="utf-8") as log:
    for line in log:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        name = request_ids.get(entry.get("request_id"))
        if name and "duration_ms" in entry:
            server.setdefault(name, []).append(float(entry["duration_ms"]))

print(f"{'Page':<14} {'path':<58} {'client median':>14} {'client max':>11} {'server median':>14} {'server max':>11}")
for name, path, times in results:
    own = server.get(name, [])
    own_median = f"{statistics.median(own):.1f} ms" if own else "—"
    own_max = f"{max(own):.1f} ms" if own else "—"
    print(f"{name:<14} {path:<58} {statistics.median(times):>11.1f} ms {max(times):>8.1f} ms {own_median:>14} {own_max:>11}")
for note in skipped:
    print(f"skipped: {note}")
